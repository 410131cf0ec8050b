import java.util.concurrent.locks.LockSupport;

/** Threads whose top frame repeats (sleeping, parked) beside spinning ones. */
public class RepeatedFrames {
  static volatile long sink;

  static void sleepALot(long until) throws InterruptedException {
    while (System.nanoTime() < until) Thread.sleep(100);
  }

  static void parkALot(long until) {
    while (System.nanoTime() < until) LockSupport.parkNanos(100_000_000L);
  }

  static void spinALot(long until) {
    while (System.nanoTime() < until) sink++;
  }

  public static void main(String[] args) throws Exception {
    long until = System.nanoTime() + (long) (Double.parseDouble(args[0]) * 1e9);
    int n = args.length > 1 ? Integer.parseInt(args[1]) : 4;
    Thread[] ts = new Thread[2 * n + 2];
    for (int i = 0; i < n; i++) {
      ts[2 * i] = new Thread(() -> {
        try { sleepALot(until); } catch (InterruptedException e) { }
      }, "sleeper-" + i);
      ts[2 * i + 1] = new Thread(() -> parkALot(until), "parker-" + i);
    }
    ts[2 * n] = new Thread(() -> spinALot(until), "spinner-0");
    ts[2 * n + 1] = new Thread(() -> spinALot(until), "spinner-1");
    for (Thread t : ts) t.start();
    for (Thread t : ts) t.join();
  }
}
