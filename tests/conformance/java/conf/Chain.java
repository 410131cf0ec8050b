package conf;

/** The stack the checks look at: probe (native) <- inner <- generic <- outer. The runner
 *  forces inner to be inlined and generic and outer not to be (CompileCommand). The class
 *  and one method are generic so that generic signatures can be compared. */
final class Chain<T> {
  static int outer(int what) {
    return generic("x", what) + 1;
  }

  static <U extends CharSequence> int generic(U tag, int what) {
    return inner(what) + tag.length();
  }

  static int inner(int what) {
    return Native.probe(what);
  }

  private Chain() {}
}
