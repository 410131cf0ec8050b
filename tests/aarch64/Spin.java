/** Busy Java code for the arm64 probe (probe.sh): a few levels of calls around a loop for
 * SECONDS. MODE arith keeps it in compiled Java code; MODE sin spends most time in
 * Math.sin, which HotSpot on arm64 runs as a stub routine without a Java frame. */
public class Spin {
    static double leaf(int i, boolean sin) {
        return sin ? Math.sin(i) : (double) ((i * 2654435761L) ^ (i >>> 3)) / (i + 1);
    }

    static double loop(int n, boolean sin) {
        double s = 0;
        for (int i = 0; i < n; i++) s += leaf(i, sin);
        return s;
    }

    static double nest(int depth, int n, boolean sin) {
        return depth == 0 ? loop(n, sin) : nest(depth - 1, n, sin) + 1;
    }

    public static void main(String[] args) {
        long ms = (long) (Double.parseDouble(args.length > 0 ? args[0] : "3") * 1000);
        boolean sin = args.length > 1 && args[1].equals("sin");
        long end = System.currentTimeMillis() + ms, iters = 0;
        double sink = 0;
        while (System.currentTimeMillis() < end) sink += nest((int) (iters++ % 8), 1000, sin);
        System.out.println("spin iters=" + iters + (sink == 0.5 ? " !" : ""));
    }
}
