import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;

/**
 * AttachBench N KIND LIB: loads N generated classes, then binds the ASGST library the way an
 * agent attached to a running JVM does (ASGST_Initialize in the live phase, from the native
 * library LIB) and prints how long that took.
 * KIND "system": the classes are defined in the application class loader (never unloaded);
 * "custom": in custom class loaders of 1000 classes each (unloadable, so the library keeps
 * a shadow copy of their metadata).
 * Each generated class has a constructor and four small static methods, so that it has
 * methods, line tables and a constant pool like a small real class.
 */
public class AttachBench {
  static native long initializeNanos();
  static native long initializeCpuNanos();
  static native long backlogNanos();
  static native long pendingNanos();


  public static void main(String[] args) throws Exception {
    int n = Integer.parseInt(args[0]);
    String kind = args[1];
    List<Class<?>> keep = new ArrayList<>();
    long t0 = System.nanoTime();
    if (kind.equals("system")) {
      for (int i = 0; i < n; i++) keep.add(defineInAppLoader("Gen" + i));
    } else {
      Loader loader = null;
      for (int i = 0; i < n; i++) {
        if (i % 1000 == 0) loader = new Loader();
        keep.add(loader.define("Gen" + i));
      }
    }
    for (Class<?> c : keep) c.getMethod("m0").invoke(null); // link and initialize them
    long loaded = (System.nanoTime() - t0) / 1000000;
    System.load(args[2]);
    long init = initializeNanos();
    long cpu = initializeCpuNanos();
    long settled = backlogNanos();
    long pending = pendingNanos();
    System.out.printf("ATTACH classes=%d kind=%s loaded_in_ms=%d initialize_ms=%.1f initialize_cpu_ms=%.1f walks_pending_ms=%.1f background_ms=%.0f%n",
        n, kind, loaded, init / 1e6, cpu / 1e6, pending / 1e6, settled / 1e6);
    System.out.println("ATTACH kept " + keep.size());
  }

  static Method appDefine;

  /**
   * Defines a class in the application class loader: Lookup.defineClass from JDK 9 on;
   * on 8 (which has no such method) ClassLoader.defineClass, opened by reflection. Both
   * through reflection, so that the file compiles on 8.
   */
  static Class<?> defineInAppLoader(String name) throws Exception {
    byte[] b = classBytes(name);
    try {
      Method m = MethodHandles.Lookup.class.getMethod("defineClass", byte[].class);
      return (Class<?>) m.invoke(MethodHandles.lookup(), (Object) b);
    } catch (NoSuchMethodException e) {
      if (appDefine == null) {
        appDefine = ClassLoader.class.getDeclaredMethod("defineClass", String.class, byte[].class,
            int.class, int.class);
        appDefine.setAccessible(true);
      }
      return (Class<?>) appDefine.invoke(AttachBench.class.getClassLoader(), name, b, 0, b.length);
    }
  }

  static final class Loader extends ClassLoader {
    Class<?> define(String name) {
      byte[] b = classBytes(name);
      return defineClass(name, b, 0, b.length);
    }
  }

  /** A class file: public class NAME { NAME(){super();} static int mK() { return K; } (K 0..3) }. */
  static byte[] classBytes(String name) {
    try {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      DataOutputStream out = new DataOutputStream(bytes);
      out.writeInt(0xCAFEBABE);
      out.writeShort(0);
      out.writeShort(52); // Java 8 class file: no stack map frames needed for straight code
      String[] utf = {name, "java/lang/Object", "<init>", "()V", "Code", "LineNumberTable", "()I",
                      "m0", "m1", "m2", "m3"};
      out.writeShort(utf.length + 5 + 1);
      for (String s : utf) { out.writeByte(1); out.writeUTF(s); } // #1..#11
      out.writeByte(7); out.writeShort(1);                          // #12 class NAME
      out.writeByte(7); out.writeShort(2);                          // #13 class Object
      out.writeByte(12); out.writeShort(3); out.writeShort(4);      // #14 <init>:()V
      out.writeByte(10); out.writeShort(13); out.writeShort(14);    // #15 Object.<init>
      out.writeByte(1); out.writeUTF("SourceFile");                 // #16 (unused)
      out.writeShort(0x21);
      out.writeShort(12);
      out.writeShort(13);
      out.writeShort(0);
      out.writeShort(0);
      out.writeShort(5);
      method(out, 0x1, 3, 4, new byte[] {0x2a, (byte) 0xb7, 0, 15, (byte) 0xb1}, 1);
      for (int k = 0; k < 4; k++) method(out, 0x9, 8 + k, 7, new byte[] {(byte) (0x03 + k), (byte) 0xac}, 0);
      out.writeShort(0);
      return bytes.toByteArray();
    } catch (IOException e) {
      throw new RuntimeException(e);
    }
  }

  static void method(DataOutputStream out, int flags, int name, int desc, byte[] code, int locals)
      throws IOException {
    out.writeShort(flags);
    out.writeShort(name);
    out.writeShort(desc);
    out.writeShort(1);
    out.writeShort(5); // Code
    out.writeInt(2 + 2 + 4 + code.length + 2 + 2 + 2 + 4 + 2 + 4);
    out.writeShort(1);
    out.writeShort(locals);
    out.writeInt(code.length);
    out.write(code);
    out.writeShort(0);
    out.writeShort(1);
    out.writeShort(6); // LineNumberTable: one entry, line 10 + method's name index
    out.writeInt(2 + 4);
    out.writeShort(1);
    out.writeShort(0);
    out.writeShort(10 + name);
  }
}
