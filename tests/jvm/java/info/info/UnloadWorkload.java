package info;

import java.io.InputStream;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.List;

/** Loads info.Unloadee through N fresh class loaders, runs it, drops every loader and
 *  collects until all of them are gone (the JVM then has unloaded the N classes). */
public class UnloadWorkload {
  static final class OneShotLoader extends ClassLoader {
    private final byte[] bytes;
    OneShotLoader(byte[] bytes) { super(null); this.bytes = bytes; }
    @Override protected Class<?> findClass(String name) throws ClassNotFoundException {
      if (!name.equals("info.Unloadee")) throw new ClassNotFoundException(name);
      return defineClass(name, bytes, 0, bytes.length);
    }
  }

  public static void main(String[] args) throws Exception {
    int n = Integer.parseInt(args[0]);
    byte[] bytes;
    try (InputStream in = UnloadWorkload.class.getResourceAsStream("Unloadee.class")) {
      bytes = readAll(in);
    }
    List<WeakReference<ClassLoader>> refs = new ArrayList<>();
    long sum = 0;
    for (int i = 0; i < n; i++) {
      ClassLoader l = new OneShotLoader(bytes);
      Class<?> c = l.loadClass("info.Unloadee");
      Object o = c.getDeclaredConstructor().newInstance();
      sum += (Integer) c.getMethod("step", int.class).invoke(o, i);
      refs.add(new WeakReference<>(l));
    }
    for (int round = 0; round < 50; round++) {
      System.gc();
      Thread.sleep(50);
      if (refs.stream().allMatch(r -> r.get() == null)) break;
    }
    long alive = refs.stream().filter(r -> r.get() != null).count();
    /* The VM reports unloaded classes to JVMTI from its service thread after the GC. */
    for (int i = 0; i < 5; i++) { System.gc(); Thread.sleep(100); }
    System.out.println("loaders alive " + alive + " sum " + (sum & 1));
  }

  /** The stream's bytes (InputStream.readAllBytes is JDK 9+; this compiles on 8). */
  static byte[] readAll(InputStream in) throws java.io.IOException {
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    byte[] buf = new byte[4096];
    for (int n; (n = in.read(buf)) > 0;) out.write(buf, 0, n);
    return out.toByteArray();
  }
}
