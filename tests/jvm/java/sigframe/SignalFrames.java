/*
 * SignalFrames - the Java half of the signal frames test (tests/jvm/test_signal_frames.sh):
 * a thread named "sigframe-spinner" computes in Java, a few frames deep, while the agent
 * (tests/jvm/agents/sigframe_agent.c) signals it, until the agent sets `done` once it has
 * reported, or for at most the given seconds.
 * Usage: java SignalFrames MAX_SECONDS
 */
public class SignalFrames {
  static volatile long sink;
  /* Set by the agent (JNI) when its rounds are over. */
  static volatile boolean done;

  /* Fourteen longs live through the loop: more than C2 keeps in registers without rbp,
   * so that the compiled loop uses rbp as a general register (x86_64 does not keep frame
   * pointers in compiled code), as profiled code often does: a frame pointer step from
   * the signal frame then reads garbage. */
  static long mix(long s, int n) {
    long a = s, b = s + 1, c = s + 2, d = s + 3, e = s + 4, f = s + 5, g = s + 6;
    long h = s + 7, k = s + 8, l = s + 9, m = s + 10, o = s + 11, p = s + 12;
    for (int i = 0; i < n; i++) {
      a += b ^ i; b += c * 3; c += d ^ a; d += e * 5; e += f ^ b; f += g * 7; g += h ^ c;
      h += k * 9; k += l ^ d; l += m * 11; m += o ^ e; o += p * 13; p += a ^ f; s += p;
    }
    return s + a + b + c + d + e + f + g + h + k + l + m + o + p;
  }

  static long work(int rounds) {
    long s = 0;
    for (int r = 0; r < rounds; r++) s += mix(s, 10_000);
    return s;
  }

  static void spin(long nanos) {
    long end = System.nanoTime() + nanos;
    while (!done && System.nanoTime() < end) sink += work(100);
  }

  public static void main(String[] args) throws Exception {
    long secs = Long.parseLong(args[0]);
    Thread t = new Thread(() -> spin(secs * 1_000_000_000L), "sigframe-spinner");
    t.start();
    t.join();
    System.out.println("SignalFrames done");
  }
}
