package conf;

import java.util.concurrent.CountDownLatch;

/** A thread that runs Java code until stopped, for the signal and out-of-thread walks. */
final class Spinner extends Thread {
  volatile boolean stop;
  final CountDownLatch ready = new CountDownLatch(1);
  long sink;

  Spinner() {
    setDaemon(true);
    setName("conformance-spinner");
  }

  @Override
  public void run() {
    Native.probe(Native.SPINNER);
    ready.countDown();
    sink = spinLoop();
  }

  long spinLoop() {
    long x = 1;
    while (!stop) {
      x = mix(x);
    }
    return x;
  }

  static long mix(long x) {
    return x * 6364136223846793005L + 1442695040888963407L;
  }
}
