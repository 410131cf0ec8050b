/*
 * WalkBench - the walk bench's workload (tests/bench/walk_bench.sh,
 * tests/bench/agent/shipped_walk_agent.c). Phases, each in a thread of its own so that the
 * agent samples one thread at a time and knows which phase it is in by the thread's name:
 *   - "bench-warmup" (not sampled): every depth in turn for WARMUP seconds, so that the
 *     JIT has compiled the recursion before the timed phases (0 under -Xint);
 *   - "bench-walk-10", "-50", "-200": stacks of about 10, 50 and 200 frames (the shape of
 *     tests/jvm/java/walk/Workload.java's bench modes), SECONDS each;
 *   - with a library path: "bench-native", 50 Java frames over 21 C frames of libnofp.so
 *     (tests/jvm/java/native/NativeFrames.java), SECONDS. Last: NativeFrames.stop() ends
 *     its spin for good.
 * Usage: java WalkBench SECONDS WARMUP [NOFP_LIBRARY]
 * Compiles on JDK 8.
 */
import java.util.concurrent.atomic.AtomicLong;

public class WalkBench {
  static final AtomicLong SINK = new AtomicLong();
  static volatile boolean stop;

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

  static void bench(int depth) {
    int x = 0;
    while (!stop) SINK.addAndGet(recurse(depth, x++));
  }

  static void warm() {
    int x = 0;
    while (!stop) {
      SINK.addAndGet(recurse(4, x) + recurse(44, x) + recurse(194, x));
      x++;
    }
  }

  /* Runs body in a thread named name for ms milliseconds. */
  static void phase(String name, long ms, Runnable body) throws InterruptedException {
    if (ms <= 0) return;
    stop = false;
    Thread t = new Thread(body, name);
    t.start();
    Thread.sleep(ms);
    stop = true;
    t.join();
  }

  public static void main(String[] args) throws Exception {
    long ms = (long) (Double.parseDouble(args[0]) * 1000);
    long warmMs = (long) (Double.parseDouble(args[1]) * 1000);
    // Loaded first: the library's C frame tables take in a new object in the background,
    // and the native phase is to measure the walk, not how soon that happens. (Loaded
    // right before the phase, beside busy loops, 3 JVMs in 24 had the walk with C frames
    // at 3x all through it; whether for that reason is not proven.)
    if (args.length > 2) System.load(args[2]);
    phase("bench-warmup", warmMs, WalkBench::warm);
    phase("bench-walk-10", ms, () -> bench(4));
    phase("bench-walk-50", ms, () -> bench(44));
    phase("bench-walk-200", ms, () -> bench(194));
    if (args.length > 2) {
      Thread t = new Thread(() -> NativeFrames.recurse(NativeFrames.DEPTH - 2), "bench-native");
      t.start();
      Thread.sleep(ms);
      NativeFrames.stop();
      t.join();
    }
    System.out.println("WalkBench done " + (SINK.get() & 0xff));
  }
}
