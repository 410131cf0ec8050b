package info;

import java.io.InputStream;
import java.lang.ref.WeakReference;
import java.lang.reflect.Method;

/**
 * GapWorkload LIB: the window between a live-phase ASGST_Initialize's answer and the
 * listing of the classes loaded before it (impl/hotspot/classes/class_backlog.c), widened by the
 * test build's ASGST_TEST_LISTING_DELAY_MS. Two copies of info.Unloadee are loaded before
 * the binding, each by a loader of its own. Inside the window copy B is dropped and
 * collected (a class the profiler was never handed: it unloads unlisted), and copy A's
 * method is converted with ASGST_JMethodIDToMethod (which waits for the listing). Then A
 * is dropped too: its unload must reach the handler. The natives are in info_agent.c.
 */
public class GapWorkload {
  static native int bind();
  static native int walk();
  static native long convert(Method m);
  static native void report(boolean bGoneInWindow);

  static final class OneShotLoader extends ClassLoader {
    private final byte[] bytes;
    OneShotLoader(byte[] bytes) { super(null); this.bytes = bytes; }
    @Override protected Class<?> findClass(String name) throws ClassNotFoundException {
      if (!name.equals("info.Unloadee")) throw new ClassNotFoundException(name);
      return defineClass(name, bytes, 0, bytes.length);
    }
  }

  /** Collects until ref is cleared or `ms` have passed; true if cleared. */
  static boolean collect(WeakReference<?> ref, long ms) throws InterruptedException {
    long end = System.nanoTime() + ms * 1000000L;
    while (ref.get() != null && System.nanoTime() < end) { System.gc(); Thread.sleep(20); }
    return ref.get() == null;
  }

  /** Runs the copy's step (a helper, so that no local slot of main keeps the class). */
  static void run(Class<?> c) throws Exception {
    c.getMethod("step", int.class).invoke(c.getDeclaredConstructor().newInstance(), 1);
  }

  public static void main(String[] args) throws Exception {
    byte[] bytes;
    try (InputStream in = GapWorkload.class.getResourceAsStream("Unloadee.class")) {
      bytes = UnloadWorkload.readAll(in);
    }
    ClassLoader la = new OneShotLoader(bytes), lb = new OneShotLoader(bytes);
    Class<?> a = la.loadClass("info.Unloadee"), b = lb.loadClass("info.Unloadee");
    run(a);
    run(b);
    WeakReference<ClassLoader> wa = new WeakReference<>(la), wb = new WeakReference<>(lb);
    Method step = a.getMethod("step", int.class);
    lb = null;
    b = null;
    System.load(args[0]);
    bind();
    /* B unloads inside the window: its loader is gone while walks still say pending. */
    boolean bGone = collect(wb, 1000) && walk() < 0;
    convert(step);
    la = null;
    a = null;
    step = null;
    boolean aGone = collect(wa, 5000);
    /* The VM reports unloaded classes to JVMTI from its service thread after the GC. */
    for (int i = 0; i < 5; i++) { System.gc(); Thread.sleep(100); }
    System.out.println("copy A collected " + aGone);
    report(bGone);
  }
}
