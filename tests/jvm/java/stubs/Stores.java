/*
 * Stores.java - hot loops that store references into old objects: each store of a young
 * object into an old one crosses G1 regions and takes the post-write barrier's slow path,
 * which C2 on JDK 24+ emits as an out-of-line stub after the method's main code (and C1
 * as a CodeStub on every release). With ParallelGC the same stores have inline card marks
 * only.
 *
 * Each loop, header and body, is one source line: the store and a fixed chain of integer
 * arithmetic that costs the same under every GC. So every instruction of the loop, and
 * every barrier slow path it takes, belongs to that line whatever PcDesc C2 records
 * nearest to it (C2 may give the code before an unrolled copy's back edge the scope of
 * the loop's goto), the two methods' shares of the time move little with the GC, and the
 * per-line histogram of a G1 run can be compared with a ParallelGC run's
 * (tests/jvm/test_stub_bci.sh). A sample in stub code that loses its bci lands on line
 * -1, or with AsyncGetCallTrace's placeholder bci 0 on the method's first line (int s),
 * neither of which the loops' samples reach otherwise.
 *
 * A third method, mixedStores, is not part of that comparison: its store line is followed
 * by lines with int array accesses, whose range checks C1 emits as CodeStubs with debug
 * information after the store's G1 barrier stubs. A sample in the barrier's call of the
 * runtime's slow path that a walker names by the first PcDesc after the stub's return
 * address lands on one of those later lines; the stub's way back names the putfield.
 * Its loop header is on the store line, so that C2's loop-end scope stays there too.
 * Usage: Stores SECONDS (a decimal).
 */
public class Stores {
  static final class Node {
    Object ref;
    int v;
  }

  static final int MIN_ROUNDS = 200;
  static Node[] nodes;
  static Object[] slots;
  static int[] counts;

  public static void main(String[] args) {
    double secs = args.length > 0 ? Double.parseDouble(args[0]) : 3;
    nodes = new Node[1 << 14];
    slots = new Object[1 << 14];
    counts = new int[1 << 14];
    for (int i = 0; i < nodes.length; i++) { nodes[i] = new Node(); nodes[i].v = i; }
    System.gc(); /* the nodes and the array are old from here on */
    long end = System.nanoTime() + (long) (secs * 1e9);
    long sink = 0;
    /* At least MIN_ROUNDS rounds: on a starved machine the run lasts until the loops have
     * run long enough to be sampled (some 0.2-0.6 s of work on a quiet one). */
    int rounds = 0;
    while (System.nanoTime() < end || rounds < MIN_ROUNDS) {
      sink += fieldStores();
      sink += arrayStores();
      sink += mixedStores(rounds);
      rounds++;
    }
    System.out.println("sink " + sink + " rounds " + rounds);
  }

  /* A young object into a field of each old node; the arithmetic on the same line. */
  static int fieldStores() {
    int s = 1;
    Node[] ns = nodes;
    for (int i = 0; i < ns.length; i++) { Node n = ns[i]; n.ref = new Object(); s = (s ^ n.v) * 0x9E3779B1; s = (s ^ (s >>> 15)) * 0x85EBCA6B; s = (s ^ (s >>> 13)) * 0xC2B2AE35; s = (s ^ (s >>> 16)) * 0x27D4EB2F; s = (s ^ (s >>> 15)) * 0x165667B1; s = (s ^ (s >>> 13)) * 0x9E3779B1; s = (s ^ (s >>> 16)) * 0x85EBCA6B; s ^= s >>> 15; }
    return s;
  }

  /* A young object into each element of an old array; the arithmetic on the same line. */
  static int arrayStores() {
    int s = 1;
    Object[] a = slots;
    for (int i = 0; i < a.length; i++) { a[i] = new Object(); s = (s ^ i) * 0x9E3779B1; s = (s ^ (s >>> 15)) * 0x85EBCA6B; s = (s ^ (s >>> 13)) * 0xC2B2AE35; s = (s ^ (s >>> 16)) * 0x27D4EB2F; s = (s ^ (s >>> 15)) * 0x165667B1; s = (s ^ (s >>> 13)) * 0x9E3779B1; s = (s ^ (s >>> 16)) * 0x85EBCA6B; s ^= s >>> 15; }
    return s;
  }

  /* A young object into a field of each old node, then int array work on other lines. */
  static int mixedStores(int r) {
    int s = 0;
    Node[] ns = nodes;
    int[] c = counts;
    for (int i = 0; i < ns.length; i++) { Node n = ns[i]; n.ref = new Object();
      c[(i * 7 + r) & (c.length - 1)] += n.v;
      s += c[i];
    }
    return s;
  }
}
