/** A fixed amount of CPU-bound work (hashing, a sieve, small matrix products, sorting);
 *  prints the elapsed and thread-CPU milliseconds of the work, after a warm-up. */
public class Bench {
  static long sink;

  static long hash(int n) {
    long h = 17;
    for (int i = 0; i < n; i++) h = h * 31 + (i ^ (h >>> 11));
    return h;
  }

  static int sieve(int n) {
    boolean[] c = new boolean[n + 1];
    int k = 0;
    for (int i = 2; i <= n; i++) {
      if (c[i]) continue;
      k++;
      for (long j = (long) i * i; j <= n; j += i) c[(int) j] = true;
    }
    return k;
  }

  static double matrix(int n) {
    double[][] a = new double[n][n], b = new double[n][n], r = new double[n][n];
    for (int i = 0; i < n; i++) for (int j = 0; j < n; j++) { a[i][j] = i * j; b[i][j] = i - j; }
    for (int i = 0; i < n; i++)
      for (int k = 0; k < n; k++) for (int j = 0; j < n; j++) r[i][j] += a[i][k] * b[k][j];
    return r[n / 2][n / 2];
  }

  static long sort(int n) {
    int[] v = new int[n];
    long x = 12345;
    for (int i = 0; i < n; i++) { x = x * 6364136223846793005L + 1; v[i] = (int) (x >>> 33); }
    java.util.Arrays.sort(v);
    return v[n / 2];
  }

  static void round() {
    sink += hash(3_000_000);
    sink += sieve(500_000);
    sink += (long) matrix(70);
    sink += sort(200_000);
  }

  public static void main(String[] args) {
    int rounds = Integer.parseInt(args[0]);
    for (int i = 0; i < rounds / 10 + 1; i++) round(); // warm-up
    java.lang.management.ThreadMXBean tmx = java.lang.management.ManagementFactory.getThreadMXBean();
    long c0 = tmx.getCurrentThreadCpuTime();
    long t0 = System.nanoTime();
    for (int i = 0; i < rounds; i++) round();
    long ms = (System.nanoTime() - t0) / 1_000_000;
    long cpu = (tmx.getCurrentThreadCpuTime() - c0) / 1_000_000;
    // The thread's CPU time includes its signal handlers, and other processes' load on a
    // shared machine changes it much less than the elapsed time.
    System.out.println("work_ms " + ms + " cpu_ms " + cpu + " " + (sink & 1));
  }
}
