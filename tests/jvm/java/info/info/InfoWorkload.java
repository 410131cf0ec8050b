package info;

import java.util.*;
import java.util.function.*;
import java.util.stream.*;

/** Runs a mix of code (generics, lambdas, streams, nested classes, exceptions) so that many
 *  methods are loaded and on stacks; with "wait MS [STOPFILE]" it then waits for an attach,
 *  MS milliseconds or until STOPFILE exists (the script makes it once the attach is done). */
public class InfoWorkload {
  interface Shape<T extends Number> { T area(); }
  static final class Square implements Shape<Double> {
    private final double s;
    Square(double s) { this.s = s; }
    public Double area() { return s * s; }
  }
  private static class Holder<K, V extends Comparable<V>> {
    final Map<K, List<V>> map = new HashMap<>();
    synchronized void put(K k, V v) { map.computeIfAbsent(k, x -> new ArrayList<>()).add(v); }
    <R> R fold(R zero, BiFunction<R, V, R> f) {
      R r = zero;
      for (List<V> l : map.values()) for (V v : l) r = f.apply(r, v);
      return r;
    }
  }

  static int recurse(int n) { return n <= 0 ? 0 : 1 + recurse(n - 1); }

  static long work(int rounds) {
    long sum = 0;
    Holder<String, Integer> h = new Holder<>();
    for (int i = 0; i < rounds; i++) {
      h.put("k" + (i % 17), i);
      sum += recurse(i % 50);
      try {
        if (i % 97 == 0) throw new IllegalStateException("x" + i);
      } catch (IllegalStateException e) {
        sum += e.getMessage().length();
      }
    }
    sum += h.fold(0L, (a, v) -> a + v);
    sum += IntStream.range(0, rounds).filter(x -> x % 3 == 0).mapToObj(Integer::toString)
        .collect(Collectors.joining(",")).length();
    sum += new Square(3).area().longValue();
    return sum;
  }

  public static void main(String[] args) throws Exception {
    long t = 0;
    for (int i = 0; i < 20; i++) t += work(5000);
    System.out.println("workload sum " + t);
    if (args.length > 0 && args[0].equals("wait")) {
      System.out.println("READY");
      System.out.flush();
      long end = System.currentTimeMillis() + Long.parseLong(args[1]);
      java.io.File stop = args.length > 2 ? new java.io.File(args[2]) : null;
      while (System.currentTimeMillis() < end && (stop == null || !stop.exists())) {
        t += work(500);
        Thread.sleep(10);
      }
    }
    if (args.length > 0 && args[0].equals("jni")) {
      System.load(args[1]);
      t += work(100);
    }
    System.out.println("done " + (t & 1));
  }
}
