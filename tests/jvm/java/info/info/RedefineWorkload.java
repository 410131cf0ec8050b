package info;

/** Calls Redefinee.value() until the agent's redefinition makes it return 2. */
public class RedefineWorkload {
  public static void main(String[] args) throws Exception {
    long end = System.currentTimeMillis() + 20000;
    long calls = 0;
    while (Redefinee.value() == 1 && System.currentTimeMillis() < end) {
      calls += Redefinee.twice(3);
      if ((calls & 0xfff) == 0) Thread.sleep(1);
    }
    System.out.println("redefined value " + Redefinee.value() + " calls " + (calls > 0));
  }
}
