package conf;

import java.io.InputStream;
import java.lang.ref.WeakReference;

/** The conformance workload. Argument: the run label (int, c1, c2). Every run does the
 *  stack checks and the signal walks; the int run also does the thread, information,
 *  unload and queue checks, which do not depend on compilation. */
public final class Workload {
  static final class OneShotLoader extends ClassLoader {
    private final byte[] bytes;

    OneShotLoader(byte[] bytes) {
      super(null);
      this.bytes = bytes;
    }

    @Override
    protected Class<?> findClass(String name) throws ClassNotFoundException {
      if (!name.equals("conf.Unloadee")) throw new ClassNotFoundException(name);
      return defineClass(name, bytes, 0, bytes.length);
    }
  }

  public static void main(String[] args) throws Exception {
    boolean all = args[0].equals("int");
    Spinner spinner = new Spinner();
    spinner.start();
    spinner.ready.await();
    stackRounds();
    Native.probe(Native.SIGNALS);
    if (all) {
      Native.probe(Native.THREADS);
      Native.probe(Native.INFO);
      unloadRound();
      queueRound();
    }
    spinner.stop = true;
    Native.probe(Native.FINISH);
  }

  /** Warm-up (so that the c1 and c2 runs compile the chain), then five checked rounds. */
  static void stackRounds() {
    long sum = 0;
    for (int i = 0; i < 20000; i++) sum += Chain.outer(Native.NOTHING);
    for (int round = 0; round < 5; round++) {
      for (int i = 0; i < 2000; i++) sum += Chain.outer(Native.NOTHING);
      sum += Chain.outer(Native.STACK);
    }
    if (sum == 42) System.out.println();
  }

  /** Loads Unloadee in its own loader and returns a weak reference to the loader. */
  static WeakReference<ClassLoader> loadAndDrop() throws Exception {
    byte[] bytes;
    try (InputStream in = Workload.class.getResourceAsStream("Unloadee.class")) {
      bytes = readAll(in);
    }
    ClassLoader loader = new OneShotLoader(bytes);
    Class<?> c = loader.loadClass("conf.Unloadee");
    Object o = c.getDeclaredConstructor().newInstance();
    c.getMethod("step", int.class).invoke(o, 3);
    Native.noteClass(c); // JVMTI lists a class's methods only once it is prepared
    return new WeakReference<>(loader);
  }

  /** Collects until the loader is gone and the handlers saw the class, 4 s at most. */
  static void unloadRound() throws Exception {
    WeakReference<ClassLoader> ref = loadAndDrop();
    for (int i = 0; i < 80; i++) {
      System.gc();
      if (ref.get() == null && Native.probe(Native.UNLOADED) == 1) break;
      Thread.sleep(50);
    }
    System.out.println("unload: loader collected " + (ref.get() == null));
  }

  static volatile long spinSink;

  /** Registers a queue, spins in Java while the agent's signal fills it (a signal handler
   * on a thread running Java code, where no processing can start), then waits here (a safe
   * place) until the elements were processed. The spin asks every million rounds whether
   * the queue is filled (the signal comes within milliseconds; the whole spin is some 10 s
   * in the interpreter), and ends at once without a queue. */
  static void queueRound() throws InterruptedException {
    Native.probe(Native.QUEUE);
    long x = 1;
    for (long i = 0; i < 300_000_000L; i++) { // at most 0.3-3 s of compiled Java
      x = x * 31 + i;
      if ((i & 0xFFFFF) == 0 && Native.probe(Native.QUEUE_FILLED) != 0) break;
    }
    spinSink = x;
    for (int i = 0; i < 150 && Native.probe(Native.QUEUE_DONE) == 0; i++) Thread.sleep(20);
  }

  private Workload() {}

  /** The stream's bytes (InputStream.readAllBytes is JDK 9+; this compiles on 8). */
  static byte[] readAll(InputStream in) throws java.io.IOException {
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    byte[] buf = new byte[4096];
    for (int n; (n = in.read(buf)) > 0;) out.write(buf, 0, n);
    return out.toByteArray();
  }
}
