/*
 * Stores.java - hot loops that store references into old objects: each store of a young
 * object into an old one crosses G1 regions and takes the post-write barrier's slow path,
 * which C2 on JDK 24+ emits as an out-of-line stub after the method's main code (and C1
 * as a CodeStub on every release). With ParallelGC the same stores have inline card marks
 * only. Usage: Stores SECONDS.
 */
public class Stores {
  static final class Node {
    Object ref;
    Node link;
    int v;
  }

  static Node[] nodes;
  static Object[] slots;

  public static void main(String[] args) {
    int secs = args.length > 0 ? Integer.parseInt(args[0]) : 3;
    nodes = new Node[1 << 15];
    slots = new Object[1 << 15];
    for (int i = 0; i < nodes.length; i++) { nodes[i] = new Node(); nodes[i].v = i; }
    System.gc(); /* the nodes and the array are old from here on */
    long end = System.nanoTime() + secs * 1_000_000_000L;
    long sink = 0;
    while (System.nanoTime() < end) {
      sink += fieldStores();
      sink += arrayStores();
      sink += linkStores();
    }
    System.out.println("sink " + sink);
  }

  /* A young object into a field of each old node. */
  static int fieldStores() {
    int s = 0;
    Node[] ns = nodes;
    for (int i = 0; i < ns.length; i++) {
      Node n = ns[i];
      n.ref = new int[1];
      s += n.v;
    }
    return s;
  }

  /* A young object into each element of an old array. */
  static int arrayStores() {
    int s = 0;
    Object[] a = slots;
    for (int i = 0; i < a.length; i++) {
      a[i] = new Object();
      s += i;
    }
    return s;
  }

  /* Old nodes linked to one another out of order: no young object, region crossing. */
  static int linkStores() {
    int s = 0;
    Node[] ns = nodes;
    int n = ns.length;
    for (int i = 0; i < n; i++) {
      Node a = ns[i];
      a.link = ns[(i * 7919) & (n - 1)];
      s += a.v;
    }
    return s;
  }
}
