package conf;

/** The conformance agent's entry points (tests/conformance/agent/agent.c). */
final class Native {
  static final int NOTHING = 0, STACK = 1, SPINNER = 2, SIGNALS = 3, THREADS = 4, INFO = 5,
      UNLOADED = 6, QUEUE = 7, QUEUE_DONE = 8, FINISH = 9, QUEUE_FILLED = 10;

  static native int probe(int what);

  static native void noteClass(Class<?> c);

  private Native() {}
}
