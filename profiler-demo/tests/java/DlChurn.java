import java.io.File;

/**
 * DlChurn DIR SECONDS PERIOD_MS SPIN_MS: loads DIR/libdlchurn.so, then every PERIOD_MS
 * loads one of DIR/spin0.so .. spin3.so in turn (dlopen), runs its C code for SPIN_MS and
 * unloads it (dlclose), for SECONDS, beside a thread of Java work. Prints "cycles=N
 * failed=M" at the end. The workload of tests/soak/memory.sh's dlopen run.
 */
public class DlChurn {
  static native int cycle(String path, long ms);

  static volatile long sink;

  public static void main(String[] args) throws Exception {
    String dir = args[0];
    long seconds = Long.parseLong(args[1]), period = Long.parseLong(args[2]), spin = Long.parseLong(args[3]);
    System.load(new File(dir, "libdlchurn.so").getAbsolutePath());
    long end = System.nanoTime() + seconds * 1_000_000_000L;
    Thread java = new Thread(() -> {
      while (System.nanoTime() < end) sink += work(1 << 16);
    }, "java-work");
    java.setDaemon(true);
    java.start();
    long cycles = 0, failed = 0;
    for (long next = System.nanoTime(); System.nanoTime() < end; next += period * 1_000_000L) {
      String lib = new File(dir, "spin" + (cycles % 4) + ".so").getAbsolutePath();
      if (cycle(lib, spin) != 1) failed++;
      cycles++;
      long wait = (next + period * 1_000_000L - System.nanoTime()) / 1_000_000L;
      if (wait > 0) Thread.sleep(wait);
    }
    System.out.println("cycles=" + cycles + " failed=" + failed);
  }

  static long work(int n) {
    long x = 0;
    for (int i = 0; i < n; i++) x += (x ^ i) * 31;
    return x;
  }
}
