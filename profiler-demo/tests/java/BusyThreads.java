/**
 * Busy threads with varied but finite stacks, for the profiler's memory test: each thread
 * goes round recursion depths 10..15 through two alternating methods and ends in one of
 * three leaf loops: stacks of 25-35 frames, a few hundred distinct call traces however
 * long the run.
 * Args: seconds, threads (4).
 */
public class BusyThreads {
  static volatile long sink;

  static long leafHash(int n) {
    long h = 17;
    for (int i = 0; i < n; i++) h = 31 * h + (i ^ (h >>> 7));
    return h;
  }

  static long leafSum(int n) {
    long s = 0;
    for (int i = 0; i < n; i++) s += (long) i * i ^ (s >>> 3);
    return s;
  }

  static long leafMix(int n) {
    long x = 1;
    for (int i = 0; i < n; i++) x ^= x << 13 ^ x >>> 7 ^ i;
    return x;
  }

  static long down(int depth, int leaf) {
    if (depth == 0) {
      return leaf == 0 ? leafHash(200_000) : leaf == 1 ? leafSum(200_000) : leafMix(200_000);
    }
    return across(depth - 1, leaf) + 1;
  }

  static long across(int depth, int leaf) {
    return down(depth, leaf) + 2;
  }

  static void work(long until) {
    for (long round = 0; System.nanoTime() < until; round++) {
      sink += down((int) (10 + round % 6), (int) (round / 6 % 3));
    }
  }

  public static void main(String[] args) throws Exception {
    long until = System.nanoTime() + (long) (Double.parseDouble(args[0]) * 1e9);
    int n = args.length > 1 ? Integer.parseInt(args[1]) : 4;
    Thread[] threads = new Thread[n];
    for (int i = 0; i < n; i++) {
      threads[i] = new Thread(() -> work(until), "busy-" + i);
      threads[i].start();
    }
    for (Thread t : threads) t.join();
    System.out.println("BusyThreads: done " + sink);
  }
}
