package info;

/** Loaded many times through throw-away class loaders by UnloadWorkload. */
public class Unloadee {
  private int x;
  public int step(int y) { x += y; return helper(x); }
  private static int helper(int v) { return v * 31 + 7; }
}
