/**
 * The safepoint-bias workload: two phases of known CPU time, alternating.
 *   hot:      an int counted loop. Run with -XX:-UseCountedLoopSafepoints, C2 compiles it
 *             without a safepoint poll, so a thread in it cannot reach a safe point until
 *             the loop ends (and hot is kept out of line, so its frame is gone by then).
 *   ordinary: a long-indexed loop calling a small method; it polls on every iteration.
 * Each call is calibrated to take about the same CPU time, and the program measures the
 * truth itself: the thread CPU time spent in each phase, printed at the end as
 * "truth hot_ms H ordinary_ms O". A profiler without bias attributes H / (H + O) of the
 * samples in either method to hot.
 */
public class EvalBias {
  static long sink;

  static int hot(int n) {
    int s = 0;
    for (int i = 0; i < n; i++) s += (i * 0x9E3779B1) ^ (s >>> 7);
    return s;
  }

  static long mix(long i, long s) {
    return (i * i) ^ (s >>> 3);
  }

  static long ordinary(long n) {
    long s = 0;
    for (long i = 0; i < n; i++) s += mix(i, s);
    return s;
  }

  static final java.lang.management.ThreadMXBean TMX =
      java.lang.management.ManagementFactory.getThreadMXBean();

  static long cpu() {
    return TMX.getCurrentThreadCpuTime();
  }

  /** Iterations of hot and ordinary that take about target_ns each. */
  static long[] calibrate(long targetNs) {
    int hn = 1_000_000;
    long on = 1_000_000;
    for (int round = 0; round < 30; round++) {
      long t0 = cpu();
      sink += hot(hn);
      long t1 = cpu();
      sink += ordinary(on);
      long t2 = cpu();
      if (round >= 10) {
        hn = (int) Math.max(1000, Math.min(Integer.MAX_VALUE / 2, hn * (double) targetNs / Math.max(1, t1 - t0)));
        on = (long) Math.max(1000, on * (double) targetNs / Math.max(1, t2 - t1));
      }
    }
    return new long[] {hn, on};
  }

  public static void main(String[] args) {
    double seconds = Double.parseDouble(args[0]);
    long[] n = calibrate(5_000_000);
    long hotNs = 0, ordNs = 0;
    long t0 = System.nanoTime();
    long wall0 = t0;
    while (System.nanoTime() - t0 < seconds * 1e9) {
      long a = cpu();
      sink += hot((int) n[0]);
      long b = cpu();
      sink += ordinary(n[1]);
      long c = cpu();
      hotNs += b - a;
      ordNs += c - b;
    }
    long ms = (System.nanoTime() - wall0) / 1_000_000;
    System.out.println("truth hot_ms " + hotNs / 1_000_000 + " ordinary_ms " + ordNs / 1_000_000
        + " work_ms " + ms + " " + (sink & 1));
  }
}
