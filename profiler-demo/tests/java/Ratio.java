import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

/**
 * CPU work in ratio about 3:1 between threeParts and onePart (same loop, 3x the
 * iterations). The JIT may compile the two callers differently, so the real split can
 * drift from 3:1; the thread's CPU time around each call says what it was.
 *
 * Each call lasts many sampling periods (onePart about 15 ms of CPU once compiled, against
 * samples every 1 ms): a sampler that fires every N ms of CPU gives a call of L ms either
 * floor(L / N) or that plus one samples, depending on where the call starts in the period,
 * and while calls keep the same length that phase drifts slowly, so the rounding does not
 * average out. With onePart at about 0.85 ms (loop(1M)) a perfect 1 ms sampler applied to
 * the calls' measured CPU intervals gave ratios 8-19% off, up or down with the phase alone,
 * on runs of 30-110 calls (a busy machine); with 20M it is within 5%.
 */
public class Ratio {
  static long sink;

  static long loop(long n) {
    long s = 0;
    for (long i = 0; i < n; i++) s += (i * i) ^ (s >>> 3);
    return s;
  }

  static void threeParts() { sink += loop(60_000_000); }

  static void onePart() { sink += loop(20_000_000); }

  public static void main(String[] args) {
    ThreadMXBean mx = ManagementFactory.getThreadMXBean();
    long end = System.nanoTime() + (long) (Double.parseDouble(args[0]) * 1e9);
    long threeNs = 0, oneNs = 0, calls = 0;
    while (System.nanoTime() < end) {
      long t0 = mx.getCurrentThreadCpuTime();
      threeParts();
      long t1 = mx.getCurrentThreadCpuTime();
      onePart();
      long t2 = mx.getCurrentThreadCpuTime();
      threeNs += t1 - t0;
      oneNs += t2 - t1;
      calls++;
    }
    System.out.println(sink);
    // The main thread's CPU time, for tests that count CPU-time samples on a busy machine.
    System.err.println("ratio_cpu_ms " + mx.getCurrentThreadCpuTime() / 1_000_000);
    // The CPU each part got, the oracle for the share of samples each should get.
    System.err.println("ratio_parts_cpu_ms " + threeNs / 1_000_000 + " " + oneNs / 1_000_000);
    System.err.println("ratio_parts_calls " + calls);
  }
}
