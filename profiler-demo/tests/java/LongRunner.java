/** Runs CPU work for the given seconds in busyWork; used for attach tests and the bench. */
public class LongRunner {
  static long sink;

  static long busyWork(long n) {
    long s = 0;
    for (long i = 0; i < n; i++) s += (i * 31) ^ (s >>> 5);
    return s;
  }

  public static void main(String[] args) {
    long end = System.nanoTime() + (long) (Double.parseDouble(args[0]) * 1e9);
    long rounds = 0;
    while (System.nanoTime() < end) { sink += busyWork(1_000_000); rounds++; }
    System.out.println("rounds " + rounds + " " + sink);
  }
}
