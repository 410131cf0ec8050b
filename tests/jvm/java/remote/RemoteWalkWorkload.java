// Threads parked at known depths, for comparing out-of-thread walks with in-handler walks
// of the same threads: "rw-sleep-*" sleep at the bottom of a recursion (thread in VM /
// native, walked from its last Java frame), "rw-busy-*" spin in a loop without calls at
// the bottom of one (thread in Java, walked from the signal context).
public class RemoteWalkWorkload {
    static volatile boolean done;
    static volatile long sink;

    static void sleepAt(int depth) {
        if (depth > 0) { sleepAt(depth - 1); return; }
        // One sleep for the whole run and past it (daemon threads: the VM exits with them
        // asleep): a thread that wakes runs Thread.sleep's Java code (much of it on JDK 25),
        // and a pair of walks straddling a wake-up differs. With 50 ms naps, 4 of 162 pairs
        // did beside two busy loops.
        while (true) {
            try { Thread.sleep(3_600_000L); } catch (InterruptedException e) { }
        }
    }

    static void spinAt(int depth) {
        if (depth > 0) { spinAt(depth - 1); return; }
        long x = 1;
        while (!done) { x = x * 6364136223846793005L + 1442695040888963407L; }
        sink = x;
    }

    public static void main(String[] args) throws Exception {
        int seconds = Integer.parseInt(args[0]);
        Thread[] ts = new Thread[4];
        for (int i = 0; i < 2; i++) {
            final int depth = 20 + 15 * i;
            ts[i] = new Thread(() -> sleepAt(depth),
                               "rw-sleep-" + i);
            ts[i].setDaemon(true);
            ts[i + 2] = new Thread(() -> spinAt(depth), "rw-busy-" + i);
        }
        for (Thread t : ts) t.start();
        Thread.sleep(seconds * 1000L);
        done = true;
        ts[2].join();
        ts[3].join();
    }
}
