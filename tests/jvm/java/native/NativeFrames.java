/*
 * NativeFrames - the Java half of the native frames test (tests/jvm/test_native_frames.sh):
 * a thread named "nofp-spinner" recurses DEPTH Java frames deep and then calls the native
 * spin() of libnofp.so (tests/jvm/native/nofp.c, built without frame pointers), which
 * spins in C until main calls stop() after the given seconds.
 * Usage: java -Dnofp.lib=PATH NativeFrames SECONDS
 */
public class NativeFrames {
  static final int DEPTH = 50;

  static native int spin(int x);

  static native void stop();

  static int recurse(int n) {
    if (n == 0) return spin(n);
    return recurse(n - 1) + 1;
  }

  public static void main(String[] args) throws Exception {
    System.load(System.getProperty("nofp.lib"));
    int secs = Integer.parseInt(args[0]);
    Thread t = new Thread(() -> recurse(DEPTH - 2), "nofp-spinner");
    t.start();
    Thread.sleep(secs * 1000L);
    stop();
    t.join();
    System.out.println("NativeFrames done");
  }
}
