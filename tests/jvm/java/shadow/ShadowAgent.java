import java.lang.instrument.ClassFileTransformer;
import java.lang.instrument.Instrumentation;
import java.security.ProtectionDomain;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.Label;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;
import org.objectweb.asm.commons.AdviceAdapter;
import org.objectweb.asm.commons.Method;

/**
 * java.lang.instrument agent of the shadow-stack oracle: instruments every method (not
 * constructors or class initialisers) of the classes whose name starts with the agent's
 * argument (default "Workload") with Shadow.enter at entry, Shadow.exit before each return
 * and a catch-all handler over the whole body that calls Shadow.exit and rethrows. Each
 * method gets an int id by name (class.name+descriptor, the same id when a class is loaded
 * again); the id, the name and the method's windows go to the test agent through
 * Shadow.define. The windows are bci ranges where the method's frame is on the stack but
 * not on the shadow stack: [0, end of the entry sequence), and each exit sequence from the
 * call of Shadow.exit to its return or athrow (both ends included), as pairs after the
 * first element (the entry end).
 */
public final class ShadowAgent implements ClassFileTransformer {
  static final String SHADOW = "Shadow";
  static final Method ENTER = Method.getMethod("long enter(int)");
  static final Method EXIT = Method.getMethod("void exit(long)");
  final String prefix;
  final Map<String, Integer> ids = new HashMap<>();

  ShadowAgent(String prefix) { this.prefix = prefix; }

  public static void premain(String args, Instrumentation inst) {
    inst.addTransformer(new ShadowAgent(args == null || args.isEmpty() ? "Workload" : args));
  }

  @Override
  public byte[] transform(ClassLoader loader, String name, Class<?> redefined, ProtectionDomain pd,
                          byte[] bytes) {
    if (name == null || !name.startsWith(prefix) || redefined != null) return null;
    try {
      return instrument(loader, name, bytes);
    } catch (Throwable t) {
      System.err.println("shadow: cannot instrument " + name + ": " + t);
      return null;
    }
  }

  /** One instrumented method: its id and its window labels (offsets known once written). */
  final class Site {
    final int id;
    final String key;
    final boolean fresh;
    Label entryEnd;
    final List<Label> exits = new ArrayList<>();

    Site(String key) {
      this.key = key;
      Integer old = ids.get(key);
      fresh = old == null;
      id = fresh ? ids.size() + 1 : old;
      if (fresh) ids.put(key, id);
    }

    void define() {
      if (!fresh) return;
      int[] w = new int[1 + exits.size()];
      w[0] = entryEnd.getOffset();
      for (int i = 0; i < exits.size(); i++) w[1 + i] = exits.get(i).getOffset();
      Shadow.define(id, key, w);
    }
  }

  synchronized byte[] instrument(final ClassLoader loader, final String cls, byte[] bytes) {
    ClassReader r = new ClassReader(bytes);
    ClassWriter w = new ClassWriter(r, ClassWriter.COMPUTE_FRAMES) {
      @Override protected String getCommonSuperClass(String a, String b) {
        return commonSuper(loader, a, b);
      }
    };
    final List<Site> sites = new ArrayList<>();
    r.accept(new ClassVisitor(Opcodes.ASM9, w) {
      @Override
      public MethodVisitor visitMethod(int access, String name, String desc, String sig, String[] exc) {
        MethodVisitor mv = super.visitMethod(access, name, desc, sig, exc);
        if (name.startsWith("<") || (access & (Opcodes.ACC_ABSTRACT | Opcodes.ACC_NATIVE)) != 0) return mv;
        Site s = new Site(cls + "." + name + desc);
        sites.add(s);
        return new Probe(mv, access, name, desc, s);
      }
    }, ClassReader.EXPAND_FRAMES);
    byte[] out = w.toByteArray();
    for (Site s : sites) s.define();
    return out;
  }

  static String commonSuper(ClassLoader loader, String a, String b) {
    try {
      ClassLoader l = loader != null ? loader : ClassLoader.getSystemClassLoader();
      Class<?> c = Class.forName(a.replace('/', '.'), false, l);
      Class<?> d = Class.forName(b.replace('/', '.'), false, l);
      if (c.isAssignableFrom(d)) return a;
      if (d.isAssignableFrom(c)) return b;
      if (c.isInterface() || d.isInterface()) return "java/lang/Object";
      do c = c.getSuperclass(); while (!c.isAssignableFrom(d));
      return c.getName().replace('.', '/');
    } catch (Throwable t) {
      return "java/lang/Object";
    }
  }

  /** The instrumentation of one method. */
  static final class Probe extends AdviceAdapter {
    final Site site;
    final Label start = new Label();
    int base;

    Probe(MethodVisitor mv, int access, String name, String desc, Site site) {
      super(Opcodes.ASM9, mv, access, name, desc);
      this.site = site;
    }

    @Override protected void onMethodEnter() {
      push(site.id);
      invokeStatic(Type.getObjectType(SHADOW), ENTER);
      base = newLocal(Type.LONG_TYPE);
      storeLocal(base);
      site.entryEnd = new Label();
      visitLabel(site.entryEnd);
      visitLabel(start);
    }

    /** Before each return (a throw leaves through the catch-all handler, which pops). */
    @Override protected void onMethodExit(int opcode) {
      if (opcode != ATHROW) popHere(false);
    }

    /** The pop sequence, its window's start and end labels recorded. */
    void popHere(boolean rethrow) {
      Label from = new Label(), to = new Label();
      visitLabel(from);
      loadLocal(base);
      invokeStatic(Type.getObjectType(SHADOW), EXIT);
      visitLabel(to);
      site.exits.add(from);
      site.exits.add(to);
      if (rethrow) visitInsn(ATHROW);
    }

    @Override public void visitMaxs(int maxStack, int maxLocals) {
      Label end = new Label(), handler = new Label();
      visitLabel(end);
      visitTryCatchBlock(start, end, handler, null);
      visitLabel(handler);
      popHere(true);
      super.visitMaxs(maxStack, maxLocals);
    }
  }
}
