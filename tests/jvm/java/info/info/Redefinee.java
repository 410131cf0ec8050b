package info;

/** Version 1: value() is 1. The agent redefines it with v2/info/Redefinee.java. */
public class Redefinee {
  public static int value() { return 1; }
  public static int twice(int a) { return a * 2 + value() - value(); }
}
