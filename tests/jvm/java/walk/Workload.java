import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;

/**
 * Java programs with known call chains for the stack walker tests. Usage:
 *   java Workload MODE SECONDS
 * Modes: mix (recursion, interpreted/compiled/inlined calls), deep (200+ frames),
 * tiers (methods whose tier/inlining the test forces with -XX:CompileCommand),
 * jni (Java -> JNI C -> Java callbacks; needs -Dwalk.jni=path of libwalk_jni.so),
 * lambda (lambdas and streams), mh (method handles and reflection), exc (exceptions in
 * loops), deopt (deoptimisation by class hierarchy changes and uncommon traps), threads
 * (60 threads with churn), alloc (allocation and GC), classload (classes loaded and
 * unloaded through custom class loaders), trans (threads that spend their time entering and
 * leaving the VM: a trivial JNI call in a tight loop, Thread.yield and identity hash codes
 * of new objects, two threads contending for a monitor; needs -Dwalk.jni like jni),
 * all (everything at once).
 */
public class Workload {
  static final AtomicLong SINK = new AtomicLong();
  static volatile boolean stop;

  // ---- mix / deep ---------------------------------------------------------------------
  static int leaf(int x) {
    int s = 0;
    for (int i = 0; i < 50; i++) s += (x * 31 + i) ^ (s >>> 3);
    return s;
  }
  static int middle(int x) { return leaf(x) + leaf(x + 1); }
  static int recurse(int depth, int x) {
    if (depth == 0) return middle(x);
    return recurse(depth - 1, x + 1) + 1;
  }
  static volatile long ops; // mix() and tiers() iterations: the throughput tests compare
  static void mix() {
    int d = 0;
    while (!stop) {
      SINK.addAndGet(recurse(d++ % 40, d));
      if ((d & 1023) == 0) ops += 1024;
    }
  }
  static void deep() {
    while (!stop) SINK.addAndGet(recurse(220 + (int) (SINK.get() & 15), 3));
  }

  // ---- tiers: the test forces these with CompileCommand ---------------------------------
  static int tierLeaf(int x) {                                         // inline / dontinline
    int s = x;
    for (int i = 0; i < 16; i++) s = s * 7 + (s >>> 2) + i;
    return s;
  }
  static int tierExcluded(int x) {                                     // exclude: interpreted
    int s = 0;
    for (int i = 0; i < 20; i++) s += tierLeaf(x + i);
    return s;
  }
  static int tierHot(int x) {
    int s = 0;
    for (int i = 0; i < 100; i++) s += tierLeaf(x + i);
    return s + tierExcluded(x);
  }
  static void tiers() {
    int x = 0;
    while (!stop) {
      SINK.addAndGet(tierHot(x++));
      if ((x & 1023) == 0) ops += 1024;
    }
  }

  // ---- jni ------------------------------------------------------------------------------
  static native int nativeCall(int depth, int x);
  static int callback(int depth, int x) {
    if (depth > 0) return nativeCall(depth - 1, x + 1);
    return middle(x);
  }
  static void jni() {
    System.load(System.getProperty("walk.jni"));
    int x = 0;
    // The first call links nativeCall (ClassLoader.findNative, method handles on 17):
    // under qemu on a loaded machine that took the whole of a 1 s run.
    SINK.addAndGet(callback(3, x++));
    READY.countDown();
    while (!stop) SINK.addAndGet(callback(3, x++));
  }

  // ---- trans: time in HotSpot's thread state transitions -------------------------------
  static native int nativeNop(int x);
  static final Object LOCK = new Object();
  static int shared;
  static void transNative() {
    int x = 0;
    while (!stop) x = nativeNop(x);
    SINK.addAndGet(x);
  }
  static void transVm() {
    long h = 0;
    while (!stop) {
      // A new object's identity hash is computed by the VM (_thread_in_vm, from the
      // interpreter's or a runtime stub's anchor); yield is a JVM_ENTRY native.
      for (int i = 0; i < 64; i++) h += System.identityHashCode(new Object());
      Thread.yield();
    }
    SINK.addAndGet(h);
  }
  static void transMonitor() {
    int x = 0;
    while (!stop) {
      synchronized (LOCK) {
        for (int i = 0; i < 200; i++) shared += (x++ ^ i);
      }
    }
    SINK.addAndGet(x);
  }
  static void trans() throws InterruptedException {
    System.load(System.getProperty("walk.jni"));
    Thread[] ts = {new Thread(Workload::transNative, "trans-native"), new Thread(Workload::transVm, "trans-vm"),
                   new Thread(Workload::transMonitor, "trans-monitor-1"),
                   new Thread(Workload::transMonitor, "trans-monitor-2")};
    for (Thread t : ts) t.start();
    for (Thread t : ts) t.join();
  }

  // ---- lambdas and streams --------------------------------------------------------------
  static void lambda() {
    while (!stop) {
      long s = IntStream.range(0, 2000).map(i -> leaf(i)).filter(i -> (i & 1) == 0).asLongStream().sum();
      Runnable r = () -> SINK.addAndGet(middle((int) s));
      r.run();
    }
  }

  // ---- method handles and reflection ----------------------------------------------------
  static void mh() {
    try {
      MethodHandle h = MethodHandles.lookup().findStatic(Workload.class, "middle",
          MethodType.methodType(int.class, int.class));
      Method m = Workload.class.getDeclaredMethod("middle", int.class);
      int x = 0;
      while (!stop) {
        SINK.addAndGet((int) h.invokeExact(x++));
        SINK.addAndGet((Integer) m.invoke(null, x++));
      }
    } catch (Throwable t) {
      throw new RuntimeException(t);
    }
  }

  // ---- exceptions -----------------------------------------------------------------------
  static int thrower(int x) {
    if ((x & 3) == 0) throw new IllegalStateException("x" + x);
    return leaf(x);
  }
  static void exc() {
    int x = 0;
    while (!stop) {
      try {
        SINK.addAndGet(thrower(x++));
      } catch (IllegalStateException e) {
        SINK.incrementAndGet();
      }
    }
  }

  // ---- deoptimisation -------------------------------------------------------------------
  interface Shape { int area(int x); }
  static class Sq implements Shape { public int area(int x) { return x * x; } }
  static class Tri implements Shape { public int area(int x) { return x * x / 2; } }
  static int areas(Shape s, int n) {
    int t = 0;
    for (int i = 0; i < n; i++) t += s.area(i) + leaf(i);
    return t;
  }
  static void deopt() {
    int round = 0;
    while (!stop) {
      // Monomorphic for a while, then a new receiver type invalidates the compiled code.
      Shape s = (round++ % 50 == 49) ? new Tri() : new Sq();
      SINK.addAndGet(areas(s, 300));
      if (round % 200 == 0) SINK.addAndGet(uncommon(round));
    }
  }
  static int uncommon(int r) {
    Object o = (r % 400 == 0) ? (Object) "s" : (Object) Integer.valueOf(r);
    return o instanceof String ? ((String) o).length() : ((Integer) o) & 7;
  }

  // ---- threads with churn ---------------------------------------------------------------
  static void threads() throws InterruptedException {
    List<Thread> live = new ArrayList<>();
    int n = 0;
    while (!stop) {
      while (live.size() < 60) {
        final int k = n++;
        Thread t = new Thread(() -> {
          long end = System.nanoTime() + 20_000_000L + (k % 7) * 5_000_000L;
          while (System.nanoTime() < end && !stop) SINK.addAndGet(recurse(k % 30, k));
        }, "churn-" + k);
        t.start();
        live.add(t);
      }
      Thread.sleep(5);
      live.removeIf(t -> !t.isAlive());
    }
    for (Thread t : live) t.join();
  }

  // ---- allocation and GC ----------------------------------------------------------------
  static void alloc() {
    List<int[]> keep = new ArrayList<>();
    int x = 0;
    while (!stop) {
      int[] a = new int[64 + (x++ & 1023)];
      a[0] = leaf(x);
      keep.add(a);
      if (keep.size() > 20000) keep = new ArrayList<>();
      SINK.addAndGet(a.length);
    }
  }

  // ---- class loading and unloading ------------------------------------------------------
  static byte[] classBytes;
  static class Loader extends ClassLoader {
    Loader() { super(Workload.class.getClassLoader()); }
    Class<?> define(String name, byte[] b) { return defineClass(name, b, 0, b.length); }
  }
  public static class Loadee {
    public static int work(int x) {
      int s = 0;
      for (int i = 0; i < 2000; i++) s += (x * 31 + i) ^ (s >>> 3);
      return s;
    }
  }
  static void classload() throws Exception {
    // Read by hand: InputStream.readAllBytes is JDK 9+, and this file compiles on 8.
    try (java.io.InputStream in = Workload.class.getResourceAsStream("Workload$Loadee.class")) {
      java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
      byte[] buf = new byte[4096];
      for (int n; (n = in.read(buf)) > 0;) out.write(buf, 0, n);
      classBytes = out.toByteArray();
    }
    int x = 0;
    while (!stop) {
      Class<?> c = new Loader().define("Workload$Loadee", classBytes);
      Method m = c.getMethod("work", int.class);
      for (int i = 0; i < 20; i++) SINK.addAndGet((Integer) m.invoke(null, x++));
      if (x % 2000 == 0) System.gc();
    }
  }

  // ---- virtual threads (JDK 21+): mounted on carrier threads while they compute; a short
  // sleep now and then unmounts and remounts them (continuation freeze and thaw) -------
  static void vthreads() throws Exception {
    Runnable body = () -> {
      int d = 0;
      while (!stop) {
        SINK.addAndGet(recurse(d++ % 40, d));
        if (d % 500 == 0) {
          try { Thread.sleep(1); } catch (InterruptedException e) { return; }
        }
      }
    };
    // Through reflection, so that this file still compiles and runs on JDK 8 and 17.
    Object builder = Thread.class.getMethod("ofVirtual").invoke(null);
    java.lang.reflect.Method start = Class.forName("java.lang.Thread$Builder")
        .getMethod("start", Runnable.class);
    List<Thread> vs = new ArrayList<>();
    for (int i = 0; i < 3; i++) vs.add((Thread) start.invoke(builder, body));
    for (Thread v : vs) v.join();
  }

  // ---- bench: stacks of about 10, 50 and 200 frames ----------------------------------
  static void bench(int depth) {
    int x = 0;
    while (!stop) SINK.addAndGet(recurse(depth, x++));
  }

  // Counted down by each runner once its workload runs: the run's time starts then (jni()
  // first links its native method; the others at once).
  static CountDownLatch READY;

  static Thread runner(String mode) {
    Thread t = new Thread(() -> {
      if (!mode.equals("jni")) READY.countDown();
      try {
        switch (mode) {
          case "mix": mix(); break;
          case "deep": deep(); break;
          case "tiers": tiers(); break;
          case "jni": jni(); break;
          case "trans": trans(); break;
          case "lambda": lambda(); break;
          case "mh": mh(); break;
          case "exc": exc(); break;
          case "deopt": deopt(); break;
          case "threads": threads(); break;
          case "alloc": alloc(); break;
          case "classload": classload(); break;
          case "vthreads": vthreads(); break;
          case "bench10": bench(4); break;
          case "bench50": bench(44); break;
          case "bench200": bench(194); break;
          default: throw new IllegalArgumentException(mode);
        }
      } catch (Exception e) {
        throw new RuntimeException(e);
      }
    }, "work-" + mode);
    t.start();
    return t;
  }

  public static void main(String[] args) throws Exception {
    String mode = args[0];
    long ms = (long) (Double.parseDouble(args[1]) * 1000);
    List<Thread> ts = new ArrayList<>();
    String[] modes = mode.equals("all")
        ? new String[] {"mix", "deep", "lambda", "mh", "exc", "deopt", "alloc", "classload", "threads"}
        : mode.split("\\+");
    READY = new CountDownLatch(modes.length);
    for (String m : modes) ts.add(runner(m));
    READY.await(60, TimeUnit.SECONDS);
    Thread.sleep(ms);
    stop = true;
    for (Thread t : ts) t.join();
    System.out.println("workload " + mode + " done " + (SINK.get() & 0xff) + " ops=" + ops);
  }
}
