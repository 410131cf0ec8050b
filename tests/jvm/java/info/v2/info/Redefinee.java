package info;

/** Version 2: value() is 2. Same methods, so their idnums must survive. */
public class Redefinee {
  public static int value() { return 2; }
  public static int twice(int a) { return a * 2 + value() - value(); }
}
