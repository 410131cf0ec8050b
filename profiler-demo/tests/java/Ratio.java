/** CPU work in ratio 3:1 between threeParts and onePart (same loop, 3x the iterations). */
public class Ratio {
  static long sink;

  static long loop(long n) {
    long s = 0;
    for (long i = 0; i < n; i++) s += (i * i) ^ (s >>> 3);
    return s;
  }

  static void threeParts() { sink += loop(3_000_000); }

  static void onePart() { sink += loop(1_000_000); }

  public static void main(String[] args) {
    long end = System.nanoTime() + (long) (Double.parseDouble(args[0]) * 1e9);
    while (System.nanoTime() < end) {
      threeParts();
      onePart();
    }
    System.out.println(sink);
    // The main thread's CPU time, for tests that count CPU-time samples on a busy machine.
    long cpu = java.lang.management.ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
    System.err.println("ratio_cpu_ms " + cpu / 1_000_000);
  }
}
