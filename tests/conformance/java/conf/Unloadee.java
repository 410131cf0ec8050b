package conf;

/** Loaded through a throw-away class loader and unloaded by Workload. */
public class Unloadee {
  private int x;

  public int step(int y) {
    x += y;
    return helper(x);
  }

  private static int helper(int v) {
    return v * 31 + 7;
  }
}
