/*
 * NativeAgree - the Java half of the native frames agreement test
 * (tests/jvm/test_native_agree.sh): the nofp spinner of NativeFrames (C code built without
 * frame pointers under 50 Java frames) beside worker threads whose samples land in VM
 * code, the garbage collector, libc and the interpreter: allocation, String.intern,
 * monitor contention with wait/notify, sleeping, yielding, class loading through
 * reflection. The agent samples every thread of the process.
 * Usage: java -Dnofp.lib=PATH NativeAgree SECONDS
 */
import java.util.ArrayList;
import java.util.List;

public class NativeAgree {
  static volatile boolean stop;
  static final Object lock = new Object();
  static volatile Object sink;

  /* Short-lived and some longer-lived garbage: young and old collections. */
  static void allocate() {
    List<int[]> keep = new ArrayList<>();
    for (long i = 0; !stop; i++) {
      int[] a = new int[(int) (i % 4096) + 16];
      if (i % 64 == 0) keep.add(a);
      if (keep.size() > 2000) keep = new ArrayList<>();
      sink = a;
    }
  }

  /* The VM's string table. */
  static void intern() {
    for (long i = 0; !stop; i++) sink = ("s" + (i % 200000)).intern();
  }

  /* Monitor enter under contention, wait and notify: ObjectMonitor and parking in the VM. */
  static void contend() {
    for (long i = 0; !stop; i++) {
      synchronized (lock) {
        lock.notifyAll();
        try {
          if (i % 8 == 0) lock.wait(1);
        } catch (InterruptedException e) {
          return;
        }
        sink = new Object();
      }
    }
  }

  /* Sleeping and yielding: the VM's sleep and libc's sched_yield. */
  static void nap() {
    for (long i = 0; !stop; i++) {
      try {
        if (i % 4 == 0) Thread.sleep(1);
        else Thread.yield();
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  /* Reflection and class lookup: the VM's class loading and linking paths, and the
   * interpreter on code that is called too rarely to be compiled. */
  static void reflect() {
    String[] names = {"java.util.HashMap", "java.util.TreeMap", "java.util.concurrent.ConcurrentHashMap",
        "java.lang.StringBuilder", "java.util.ArrayDeque", "java.util.LinkedList"};
    for (long i = 0; !stop; i++) {
      try {
        Class<?> c = Class.forName(names[(int) (i % names.length)]);
        sink = c.getDeclaredMethods();
        sink = java.lang.reflect.Array.newInstance(c, 4);
        sink = System.identityHashCode(new Object());
      } catch (ReflectiveOperationException e) {
        throw new RuntimeException(e);
      }
    }
  }

  static Thread start(String name, Runnable r) {
    Thread t = new Thread(r, name);
    t.setDaemon(true);
    t.start();
    return t;
  }

  public static void main(String[] args) throws Exception {
    System.load(System.getProperty("nofp.lib"));
    int secs = Integer.parseInt(args[0]);
    Thread spinner = new Thread(() -> NativeFrames.recurse(NativeFrames.DEPTH - 2), "nofp-spinner");
    spinner.start();
    List<Thread> workers = new ArrayList<>();
    workers.add(start("agree-alloc", NativeAgree::allocate));
    workers.add(start("agree-intern", NativeAgree::intern));
    workers.add(start("agree-contend-1", NativeAgree::contend));
    workers.add(start("agree-contend-2", NativeAgree::contend));
    workers.add(start("agree-nap", NativeAgree::nap));
    workers.add(start("agree-reflect", NativeAgree::reflect));
    Thread.sleep(secs * 1000L);
    stop = true;
    NativeFrames.stop();
    spinner.join();
    for (Thread t : workers) t.join(5000);
    System.out.println("NativeAgree done");
  }
}
