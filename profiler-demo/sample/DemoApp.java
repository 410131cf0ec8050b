import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ProtocolFamily;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.WatchService;

/**
 * The demo profiler's sample: opens the kinds of descriptors that keep a process from being
 * checkpointed (a TCP server socket on loopback, a WatchService, a UNIX-domain channel pair),
 * keeps them open, and burns CPU in a few known methods. Args: seconds of CPU work.
 * Runs on JDK 8 and later: UNIX-domain channels (JDK 16+) are reached through reflection,
 * and left out where the JDK has none.
 */
public class DemoApp {
  static ServerSocketChannel server;
  static WatchService watcher;
  static ServerSocketChannel unixServer;
  static SocketChannel unixClient;
  static long sink;

  static int openServer() throws IOException {
    server = ServerSocketChannel.open();
    server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
    return ((InetSocketAddress) server.getLocalAddress()).getPort();
  }

  static void watchDirectory(Path dir) throws IOException {
    watcher = FileSystems.getDefault().newWatchService();
    dir.register(watcher, java.nio.file.StandardWatchEventKinds.ENTRY_CREATE);
  }

  /** The UNIX-domain channel pair at dir/demo.sock; null where the JDK (before 16) has none. */
  static Path openUnixChannel(Path dir) throws Exception {
    Class<?> address;
    try {
      address = Class.forName("java.net.UnixDomainSocketAddress");
    } catch (ClassNotFoundException e) {
      return null;
    }
    Path sock = dir.resolve("demo.sock");
    SocketAddress addr = (SocketAddress) address.getMethod("of", Path.class).invoke(null, sock);
    ProtocolFamily unix = StandardProtocolFamily.valueOf("UNIX");
    unixServer = (ServerSocketChannel) ServerSocketChannel.class
        .getMethod("open", ProtocolFamily.class).invoke(null, unix);
    unixServer.bind(addr);
    unixClient = SocketChannel.open(addr);
    return sock;
  }

  static long hashLoop(int n) {
    long h = 1125899906842597L;
    for (int i = 0; i < n; i++) h = 31 * h + (i ^ (h >>> 7));
    return h;
  }

  static int primeSieve(int n) {
    boolean[] composite = new boolean[n + 1];
    int count = 0;
    for (int i = 2; i <= n; i++) {
      if (composite[i]) continue;
      count++;
      for (long j = (long) i * i; j <= n; j += i) composite[(int) j] = true;
    }
    return count;
  }

  static double matrixMultiply(int n) {
    double[][] a = new double[n][n], b = new double[n][n], c = new double[n][n];
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++) { a[i][j] = i + j; b[i][j] = i - j; }
    for (int i = 0; i < n; i++)
      for (int k = 0; k < n; k++)
        for (int j = 0; j < n; j++) c[i][j] += a[i][k] * b[k][j];
    return c[n - 1][n - 1];
  }

  /** Returns how many rounds of work fit in the time: the program's throughput. */
  static long burnCpu(double seconds) {
    long end = System.nanoTime() + (long) (seconds * 1e9);
    long rounds = 0;
    while (System.nanoTime() < end) {
      sink += hashLoop(2_000_000);
      sink += primeSieve(300_000);
      sink += (long) matrixMultiply(60);
      rounds++;
    }
    return rounds;
  }

  public static void main(String[] args) throws Exception {
    double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 3;
    Path dir = Files.createTempDirectory("asgst-demo");
    int port = openServer();
    watchDirectory(dir);
    Path sock = openUnixChannel(dir);
    System.out.println("DemoApp: listening on 127.0.0.1:" + port + ", watching " + dir
        + ", unix socket " + sock);
    long rounds = burnCpu(seconds);
    System.out.println("DemoApp: done, " + rounds + " rounds (" + sink + ")");
    if (sock != null) Files.deleteIfExists(sock);
  }
}
