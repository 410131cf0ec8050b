import java.io.File;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.util.ArrayList;
import java.util.List;

/**
 * Workloads for the perf-event tests, each in a method of its own name:
 *   faults MB       allocateFresh: allocates and keeps MB one-megabyte arrays, memory the
 *                   process never touched (run with a young generation larger than MB)
 *   switches MS     sleepOften: sleeps 1 ms at a time for MS milliseconds
 *   migrate MS      hopAround: three threads that spin and sleep by turns for MS ms
 *   syscalls MS     writeFile: writes 8 KB at the start of a temporary file, then reads
 *                   it back, for MS milliseconds (time in the kernel's read and write)
 */
public class PerfWork {
  static volatile long sink;

  static List<byte[]> allocateFresh(int mb) {
    List<byte[]> kept = new ArrayList<>();
    for (int i = 0; i < mb; i++) {
      byte[] a = new byte[1 << 20];
      a[i % a.length] = 1;
      kept.add(a);
    }
    return kept;
  }

  static void sleepOften(long ms) throws InterruptedException {
    long end = System.nanoTime() + ms * 1_000_000L;
    while (System.nanoTime() < end) Thread.sleep(1);
  }

  static void hopAround(long ms) {
    long end = System.nanoTime() + ms * 1_000_000L;
    long x = 0;
    while (System.nanoTime() < end) {
      for (int i = 0; i < 200_000; i++) x += i ^ (x >>> 3);
      try {
        Thread.sleep(0, 200_000);
      } catch (InterruptedException e) {
        return;
      }
    }
    sink = x;
  }

  static void migrate(long ms) throws InterruptedException {
    Thread[] ts = new Thread[3];
    for (int i = 0; i < ts.length; i++) {
      ts[i] = new Thread(() -> hopAround(ms), "hopper-" + i);
      ts[i].start();
    }
    for (Thread t : ts) t.join();
  }

  static void writeFile(long ms) throws IOException {
    File f = File.createTempFile("perfwork", ".bin");
    f.deleteOnExit();
    byte[] buf = new byte[8192];
    long end = System.nanoTime() + ms * 1_000_000L;
    try (RandomAccessFile raf = new RandomAccessFile(f, "rw")) {
      while (System.nanoTime() < end) {
        for (int i = 0; i < 100; i++) {
          raf.seek(0);
          raf.write(buf);
          raf.seek(0);
          sink += raf.read(buf);
        }
      }
    }
    f.delete();
  }

  public static void main(String[] args) throws Exception {
    long n = Long.parseLong(args[1]);
    switch (args[0]) {
      case "faults": sink = allocateFresh((int) n).size(); break;
      case "switches": sleepOften(n); break;
      case "migrate": migrate(n); break;
      case "syscalls": writeFile(n); break;
      default: throw new IllegalArgumentException(args[0]);
    }
  }
}
