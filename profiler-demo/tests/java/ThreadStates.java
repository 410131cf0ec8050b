import java.nio.ByteBuffer;
import java.nio.channels.Pipe;
import java.util.concurrent.locks.LockSupport;

/**
 * Threads each held in one known state for the run, named for it: sleeping
 * (Thread.sleep), waiting and waiting_timed (Object.wait), blocked (entering a monitor a
 * sleeping holder keeps), parked and parked_timed (LockSupport), running (a Java loop)
 * and native (a blocking read of a pipe nobody writes). Every thread is started in its
 * state before the next starts; the program ends after args[0] seconds.
 */
public class ThreadStates {
  static volatile long sink;
  static final Object waitLock = new Object(), timedLock = new Object(), held = new Object();

  static void sleeping() throws Exception {
    for (;;) Thread.sleep(10_000);
  }

  static void waiting(Object lock, long ms) throws Exception {
    synchronized (lock) {
      for (;;) lock.wait(ms);
    }
  }

  static void holding() throws Exception {
    synchronized (held) {
      for (;;) Thread.sleep(10_000);
    }
  }

  static void blocked() {
    synchronized (held) {
      sink++;
    }
  }

  static void parked(boolean timed) {
    for (;;) {
      if (timed) LockSupport.parkNanos(10_000_000_000L);
      else LockSupport.park();
    }
  }

  static void running() {
    for (;;) sink++;
  }

  static void reading(Pipe p) throws Exception {
    p.source().read(ByteBuffer.allocate(16));
  }

  interface Body { void run() throws Exception; }

  /** Starts a daemon thread named name running body, and gives it time to get there. */
  static Thread start(String name, Body body) throws Exception {
    Thread t = new Thread(() -> {
      try { body.run(); } catch (Exception e) { throw new RuntimeException(e); }
    }, name);
    t.setDaemon(true);
    t.start();
    long until = System.nanoTime() + 2_000_000_000L;
    while (stillStarting(t) && System.nanoTime() < until) Thread.sleep(1);
    return t;
  }

  /** True until a thread that is meant to stop somewhere has stopped (a spinning one is
   * running as soon as it started). */
  static boolean stillStarting(Thread t) {
    Thread.State s = t.getState();
    return s == Thread.State.NEW || (s == Thread.State.RUNNABLE && !t.getName().equals("st-running")
                                     && !t.getName().equals("st-native"));
  }

  public static void main(String[] args) throws Exception {
    long end = System.nanoTime() + (long) (Double.parseDouble(args[0]) * 1e9);
    Pipe pipe = Pipe.open();
    // The native reader cannot say when it is in its read: load and run the read path here
    // first, so that the thread gets there at once.
    Pipe warm = Pipe.open();
    warm.sink().write(ByteBuffer.wrap(new byte[] {1}));
    warm.source().read(ByteBuffer.allocate(16));
    start("st-sleeping", ThreadStates::sleeping);
    start("st-waiting", () -> waiting(waitLock, 0));
    start("st-waiting-timed", () -> waiting(timedLock, 10_000));
    start("st-holder", ThreadStates::holding);
    start("st-blocked", ThreadStates::blocked);
    start("st-parked", () -> parked(false));
    start("st-parked-timed", () -> parked(true));
    start("st-running", ThreadStates::running);
    start("st-native", () -> reading(pipe));
    while (System.nanoTime() < end) Thread.sleep(20);
  }
}
