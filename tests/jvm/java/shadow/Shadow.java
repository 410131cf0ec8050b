/**
 * The shadow stack the instrumented workload keeps for the shadow-stack oracle
 * (tests/jvm/test_shadow_oracle.sh, agents/shadow_agent.c). Every instrumented method calls
 * enter(id) first and exit(base) before each return and in a catch-all handler that pops
 * and rethrows. The stack lives in native memory, one buffer per thread, allocated and
 * registered with the test agent at the thread's first enter (the only JNI call); the
 * pushes and pops are plain Unsafe stores, so the helpers stay small enough to inline.
 *
 * Buffer layout (ints): [0] depth, [1] 1 while a push or pop is under way, [2 + i] the id
 * of the i-th method from the bottom. The stores are ordered (release) stores: the agent's
 * signal handler interrupts the same thread, so only the compiler's order matters, and an
 * ordered store keeps the id before the depth and is never dropped as a dead store.
 */
public final class Shadow {
  static final int CAP = 16384; // ints per thread
  static final sun.misc.Unsafe U = unsafe();
  static final ThreadLocal<Buf> BUF = new ThreadLocal<Buf>() {
    @Override protected Buf initialValue() {
      long b = U.allocateMemory(4L * CAP);
      U.setMemory(b, 4L * CAP, (byte) 0);
      register(b, CAP);
      return new Buf(b);
    }
  };

  static final class Buf {
    final long base;
    Buf(long base) { this.base = base; }
  }

  private static sun.misc.Unsafe unsafe() {
    try {
      java.lang.reflect.Field f = sun.misc.Unsafe.class.getDeclaredField("theUnsafe");
      f.setAccessible(true);
      return (sun.misc.Unsafe) f.get(null);
    } catch (Exception e) {
      throw new Error(e);
    }
  }

  /** Registers this thread's buffer with the agent (its tid, the buffer, a JNIEnv). */
  static native void register(long base, int capacity);
  /** Tells the agent a method's id, its name (class.name+descriptor) and its windows. */
  static native void define(int id, String key, int[] windows);

  public static long enter(int id) {
    long b = BUF.get().base;
    int d = U.getInt(b);
    U.putOrderedInt(null, b + 4, 1);
    if (d < CAP - 2) U.putOrderedInt(null, b + 8 + 4L * d, id);
    U.putOrderedInt(null, b, d + 1);
    U.putOrderedInt(null, b + 4, 0);
    return b;
  }

  public static void exit(long b) {
    U.putOrderedInt(null, b + 4, 1);
    U.putOrderedInt(null, b, U.getInt(b) - 1);
    U.putOrderedInt(null, b + 4, 0);
  }
}
