/**
 * A fixed amount of mixed work at varying stack depths (recursion 5 to 30 deep above
 * hashing, a sieve, sorting, string building and hash maps), for the walk-mode evaluation:
 * deep enough stacks that walks can disagree, and a fixed amount of work so that the
 * profiler's slowdown shows. Prints "work_ms W cpu_ms C" for the timed part (after a
 * warm-up).
 */
public class EvalMixed {
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

  static long sort(int n) {
    int[] v = new int[n];
    long x = 12345;
    for (int i = 0; i < n; i++) { x = x * 6364136223846793005L + 1; v[i] = (int) (x >>> 33); }
    java.util.Arrays.sort(v);
    return v[n / 2];
  }

  static long strings(int n) {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < n; i++) b.append(i % 97).append(',');
    return b.toString().hashCode();
  }

  static long maps(int n) {
    java.util.HashMap<Integer, Integer> m = new java.util.HashMap<>();
    for (int i = 0; i < n; i++) m.merge(i % 1000, i, Integer::sum);
    return m.get(7);
  }

  static long leaf(int kind) {
    switch (kind) {
      case 0: return hash(300_000);
      case 1: return sieve(60_000);
      case 2: return sort(20_000);
      case 3: return strings(20_000);
      default: return maps(40_000);
    }
  }

  static long descend(int depth, int kind) {
    if (depth == 0) return leaf(kind);
    return descend(depth - 1, kind) + (depth & 1);
  }

  static void round(int r) {
    for (int kind = 0; kind < 5; kind++) sink += descend(5 + (r * 7 + kind * 3) % 26, kind);
  }

  public static void main(String[] args) {
    int rounds = Integer.parseInt(args[0]);
    for (int i = 0; i < rounds / 5 + 1; i++) round(i); // warm-up
    java.lang.management.ThreadMXBean tmx = java.lang.management.ManagementFactory.getThreadMXBean();
    long c0 = tmx.getCurrentThreadCpuTime();
    long t0 = System.nanoTime();
    for (int i = 0; i < rounds; i++) round(i);
    long ms = (System.nanoTime() - t0) / 1_000_000;
    long cpu = (tmx.getCurrentThreadCpuTime() - c0) / 1_000_000;
    System.out.println("work_ms " + ms + " cpu_ms " + cpu + " " + (sink & 1));
  }
}
