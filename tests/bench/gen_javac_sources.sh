#!/usr/bin/env bash
# gen_javac_sources.sh DIR [N] - writes N (default 300) Java classes into DIR/gen/ for the
# javac walk benchmark (javac_bench.sh). The classes vary so that javac does real work on
# each: generics and inference, lambdas and streams, overloads, switches over enums and
# strings, nested and anonymous classes, records of state, string concatenation, and
# references to other generated classes (resolution across files). Java 8 source, so that
# every release's javac compiles them.
set -eu
DIR=${1:?directory}
N=${2:-300}
mkdir -p "$DIR/gen"
rm -f "$DIR"/gen/*.java

# class_src I: the source of class Gen<I>.
class_src() {
  local i=$1 prev=$(( $1 > 0 ? $1 - 1 : 0 )) other=$(( ($1 * 7 + 3) % N )) k=$(( $1 % 5 ))
  cat <<JAVA
package gen;

import java.util.*;
import java.util.function.*;
import java.util.stream.*;

/** Generated class $i (variant $k). */
public class Gen$i<T extends Comparable<T>> implements Comparable<Gen$i<T>>, Supplier<List<T>> {
  enum Mode { ALPHA, BETA, GAMMA, DELTA_$k }
  interface Visitor<R> { R visitInt(int v); R visitStr(String s); default R visitAny(Object o) { return visitStr(String.valueOf(o)); } }
  static final class Node<V> {
    final V value; final List<Node<V>> kids = new ArrayList<>();
    Node(V value) { this.value = value; }
    <R> R fold(R init, BiFunction<R, ? super V, R> f) {
      R acc = f.apply(init, value);
      for (Node<V> k : kids) acc = k.fold(acc, f);
      return acc;
    }
  }
  private final List<T> items = new ArrayList<>();
  private final Map<String, List<Integer>> index = new HashMap<>();
  private Mode mode = Mode.ALPHA;
  private int counter$i;

  public Gen$i(Collection<? extends T> init) { items.addAll(init); }

  @Override public List<T> get() { return Collections.unmodifiableList(items); }
  @Override public int compareTo(Gen$i<T> o) { return Integer.compare(items.size(), o.items.size()); }

  public static int over(int a) { return a * $((i % 13 + 2)); }
  public static long over(long a) { return a + $i; }
  public static String over(String s) { return s + "#$i"; }
  public static <E extends Number> double over(List<E> xs) { return xs.stream().mapToDouble(Number::doubleValue).sum(); }
  public static Object over(Object o, int... rest) { return rest.length > 0 ? o : null; }

  public String describe(Object o) {
    switch (mode) {
      case ALPHA: return "a" + o + counter$i;
      case BETA: return "b" + over(String.valueOf(o));
      case GAMMA: return String.format("g%s-%d", o, over(counter$i));
      default: return "d" + Objects.hashCode(o);
    }
  }

  public int classify(String key) {
    switch (key) {
      case "one": return 1;
      case "two": return 2;
      case "three$i": return 3;
      case "four": return over(4);
      default: return key.length() > $((i % 9 + 1)) ? -1 : key.hashCode() & 0xff;
    }
  }

  public Map<Boolean, List<String>> partition(List<String> words) {
    return words.stream()
        .filter(w -> !w.isEmpty())
        .map(w -> w.toUpperCase(Locale.ROOT) + counter$i)
        .sorted(Comparator.comparing(String::length).thenComparing(Function.identity()))
        .collect(Collectors.partitioningBy(w -> w.length() % 2 == $((i % 2))));
  }

  public <K, V extends Comparable<V>> Optional<Map.Entry<K, V>> maxEntry(Map<K, V> m) {
    return m.entrySet().stream().max(Map.Entry.comparingByValue());
  }

  public void indexAll(List<String> words) {
    for (int j = 0; j < words.size(); j++) {
      index.computeIfAbsent(words.get(j), w -> new ArrayList<>()).add(j + over(j));
    }
  }

  public <R> R visit(Object o, Visitor<R> v) {
    if (o instanceof Integer) return v.visitInt((Integer) o);
    if (o instanceof String) return v.visitStr((String) o);
    return v.visitAny(o);
  }

  public int tree(int depth) {
    Node<Integer> root = new Node<>(depth);
    Deque<Node<Integer>> work = new ArrayDeque<>();
    work.push(root);
    while (!work.isEmpty() && depth-- > 0) {
      Node<Integer> n = work.pop();
      for (int c = 0; c < $((i % 3 + 2)); c++) { Node<Integer> k = new Node<>(n.value * 31 + c); n.kids.add(k); work.push(k); }
    }
    return root.fold(0, (acc, v) -> acc + v % $((i % 17 + 3)));
  }

  public Runnable task(final int n) {
    return new Runnable() {
      int runs;
      @Override public void run() {
        runs += n;
        counter$i += visit(runs, new Visitor<Integer>() {
          public Integer visitInt(int v) { return v + $k; }
          public Integer visitStr(String s) { return s.length(); }
        });
      }
    };
  }

  public static String uses() {
    Gen$prev<String> p = new Gen$prev<>(Arrays.asList("x", "y$i"));
    Gen$other<Integer> q = new Gen$other<>(Arrays.asList(3, 1, 2));
    return p.describe(q.get()) + q.classify("two") + Gen$other.over($i) + p.tree($((i % 4 + 2)));
  }
}
JAVA
}

for ((i = 0; i < N; i++)); do class_src "$i" >"$DIR/gen/Gen$i.java"; done
