import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * JitGcBusy SECONDS - keeps the JIT compilers and the garbage collector busy for SECONDS:
 * two threads run a mix of library code (regular expressions, formatting, big integers,
 * maps, sorting: hundreds of methods to compile) and allocate, keeping a ring of arrays
 * alive so that objects survive young collections. With -Dspin.lib=PATH (the JNI library
 * tests/tools/native_spin.c) a native thread the JVM never hears of, started half a second
 * in, spins for half a second. For test_all_threads.sh.
 */
public class JitGcBusy {
  static volatile long sink;

  static native void startNative(int ms);

  static long mix(int i, Object[] ring) {
    long s = 0;
    Matcher m = Pattern.compile("([a-z]+)(\\d+)").matcher("abc" + i + " def" + (i * 7));
    while (m.find()) s += m.group(2).length();
    s += String.format("%d-%s-%.2f", i, Integer.toHexString(i), i / 3.0).length();
    s += BigInteger.valueOf(i).pow(20).mod(BigInteger.valueOf(1000003)).longValue();
    Map<String, Integer> map = new HashMap<>();
    for (int k = 0; k < 50; k++) map.put("k" + (k * i % 97), k);
    s += map.size();
    int[] a = new int[200];
    for (int k = 0; k < a.length; k++) a[k] = (k * 7919 + i) % 1009;
    Arrays.sort(a);
    s += a[100];
    List<String> l = new ArrayList<>();
    for (int k = 0; k < 20; k++) l.add(Long.toString(k * 31L + i, 36));
    s += String.join(",", l).hashCode();
    ring[i % ring.length] = new byte[512 + (i % 64) * 64];
    return s;
  }

  public static void main(String[] args) throws Exception {
    final long end = System.nanoTime() + (long) (Double.parseDouble(args[0]) * 1e9);
    Thread[] t = new Thread[2];
    for (int n = 0; n < t.length; n++) {
      t[n] = new Thread(new Runnable() {
        public void run() {
          Object[] ring = new Object[4000]; /* about 10 MB */
          long s = 0;
          for (int i = 0; System.nanoTime() < end; i++) s += mix(i, ring);
          sink = s;
        }
      }, "busy-" + n);
      t[n].start();
    }
    String lib = System.getProperty("spin.lib");
    if (lib != null) {
      System.load(lib);
      Thread.sleep(500);
      startNative(500);
    }
    for (Thread x : t) x.join();
  }
}
