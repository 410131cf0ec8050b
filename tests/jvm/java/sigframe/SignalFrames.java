/*
 * SignalFrames - the Java half of the signal frames test (tests/jvm/test_signal_frames.sh):
 * a thread named "sigframe-spinner" computes in Java, a few frames deep, for the given
 * seconds, while the agent (tests/jvm/agents/sigframe_agent.c) signals it.
 * Usage: java SignalFrames SECONDS
 */
public class SignalFrames {
  static volatile long sink;

  static long mix(long s, int n) {
    for (int i = 0; i < n; i++) s = (s ^ i) * 31 + (s >>> 7);
    return s;
  }

  static long work(int rounds) {
    long s = 0;
    for (int r = 0; r < rounds; r++) s += mix(s, 10_000);
    return s;
  }

  static void spin(long nanos) {
    long end = System.nanoTime() + nanos;
    while (System.nanoTime() < end) sink += work(100);
  }

  public static void main(String[] args) throws Exception {
    long secs = Long.parseLong(args[0]);
    Thread t = new Thread(() -> spin(secs * 1_000_000_000L), "sigframe-spinner");
    t.start();
    t.join();
    System.out.println("SignalFrames done");
  }
}
