/** A sleeping thread and a spinning thread, for wall-clock sampling. */
public class WallThreads {
  static volatile long sink;

  static void sleepALot(long until) throws InterruptedException {
    while (System.nanoTime() < until) Thread.sleep(50);
  }

  static void spinALot(long until) {
    while (System.nanoTime() < until) sink++;
  }

  public static void main(String[] args) throws Exception {
    long until = System.nanoTime() + (long) (Double.parseDouble(args[0]) * 1e9);
    Thread sleeper = new Thread(() -> {
      try { sleepALot(until); } catch (InterruptedException e) { }
    }, "sleeper");
    Thread spinner = new Thread(() -> spinALot(until), "spinner");
    sleeper.start();
    spinner.start();
    sleeper.join();
    spinner.join();
  }
}
