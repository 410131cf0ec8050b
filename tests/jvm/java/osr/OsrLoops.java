/*
 * OsrLoops.java - loops that the interpreter moves into OSR compilations
 * (tests/jvm/test_osr_entry.sh): each method runs one long loop per call, long enough that
 * its OSR compilation is ready before the loop ends, and main calls each a few times, so
 * that the calls made before the method's standard compilation each enter an OSR
 * compilation (C1's, then C2's once tiered compilation reaches it). The loops differ in
 * what the OSR entry copies from the interpreter: few locals, many locals of every kind,
 * an inner loop's header in the middle of the method, a held monitor.
 * Usage: OsrLoops ROUNDS.
 */
public class OsrLoops {
  static final Object lock = new Object();
  static volatile long sink;

  public static void main(String[] args) {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 6;
    for (int r = 0; r < rounds; r++) {
      sink += simple(1 << 21);
      sink += manyLocals(1 << 21);
      sink += nested(1 << 11);
      sink += locked(1 << 21);
    }
    System.out.println("OsrLoops done " + sink);
  }

  static int simple(int n) {
    int s = 0;
    for (int i = 0; i < n; i++) s = s * 31 + i;
    return s;
  }

  static long manyLocals(int n) {
    long a = 1, b = 2, c = 3;
    double d = 0.5, e = 1.5;
    int f = 7, g = 11, h = 13;
    Object o = lock;
    for (int i = 0; i < n; i++) {
      a += i ^ f; b ^= a + g; c += b >>> 3; d += e; f += h; g ^= f; h += o.hashCode() & 1;
    }
    return a + b + c + (long) d + f + g + h;
  }

  static int nested(int n) {
    int s = 0;
    for (int i = 0; i < n; i++) {
      s += i;
      for (int j = 0; j < n; j++) s ^= i * j + s;
    }
    return s;
  }

  static int locked(int n) {
    int s = 0;
    synchronized (lock) {
      for (int i = 0; i < n; i++) s = s * 17 + (i & 255);
    }
    return s;
  }
}
