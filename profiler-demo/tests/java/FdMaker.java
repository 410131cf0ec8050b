import java.io.FileOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.ProtocolFamily;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.nio.channels.Pipe;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.WatchService;
import java.util.ArrayList;
import java.util.List;

/**
 * Opens one descriptor of each kind, each a few calls deep in application code: a listening
 * socket, a pool of 4 connections to it and the 4 accepted ends, a UNIX socket pair (the
 * WatchService's), a UNIX-domain channel, a log file, a read file, a pipe and a selector.
 * Then waits for DIR/close, closes them all, writes DIR/closed, waits for DIR/exit.
 * Runs on JDK 8 and later: the UNIX-domain channel (JDK 16+) is opened through reflection
 * and left out where the JDK has none ("unix=none").
 * Usage: FdMaker DIR
 */
public class FdMaker {
  static final List<AutoCloseable> open = new ArrayList<>();

  static class Server {
    static ServerSocket listen() throws Exception {
      return new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    }

    static void acceptAll(ServerSocket ss, int n) throws Exception {
      for (int i = 0; i < n; i++) open.add(ss.accept());
    }
  }

  static class Pool {
    static Socket connectOne(int port) throws Exception {
      return new Socket(InetAddress.getLoopbackAddress(), port);
    }

    static void fill(int port, int n) throws Exception {
      for (int i = 0; i < n; i++) open.add(connectOne(port));
    }
  }

  static class Unix {
    static WatchService socketPair() throws Exception {
      return FileSystems.getDefault().newWatchService();
    }

    /** True if this JDK has UNIX-domain socket channels (16+). */
    static boolean available() {
      try {
        Class.forName("java.net.UnixDomainSocketAddress");
        return true;
      } catch (ClassNotFoundException e) {
        return false;
      }
    }

    static SocketAddress address(Path p) throws Exception {
      return (SocketAddress) Class.forName("java.net.UnixDomainSocketAddress")
          .getMethod("of", Path.class).invoke(null, p);
    }

    static ServerSocketChannel channel(Path p) throws Exception {
      ProtocolFamily unix = StandardProtocolFamily.valueOf("UNIX");
      ServerSocketChannel s = (ServerSocketChannel) ServerSocketChannel.class
          .getMethod("open", ProtocolFamily.class).invoke(null, unix);
      s.bind(address(p));
      return s;
    }

    static SocketChannel dial(Path p) throws Exception {
      return SocketChannel.open(address(p));
    }
  }

  static class Log {
    static OutputStream openLog(Path p) throws Exception {
      return new FileOutputStream(p.toFile(), true);
    }

    static InputStream openInput(Path p) throws Exception {
      return Files.newInputStream(p);
    }
  }

  static class Plumbing {
    static Pipe makePipe() throws Exception {
      return Pipe.open();
    }

    static Selector makeSelector() throws Exception {
      return Selector.open();
    }
  }

  static void waitFor(Path p) throws Exception {
    // Long enough for a loaded machine; the test kills the JVM when it is done.
    for (int i = 0; i < 3600 && !Files.exists(p); i++) Thread.sleep(50);
  }

  public static void main(String[] args) throws Exception {
    Path dir = Paths.get(args[0]);
    ServerSocket ss = Server.listen();
    open.add(ss);
    Pool.fill(ss.getLocalPort(), 4);
    Server.acceptAll(ss, 4);
    open.add(Unix.socketPair());
    Path sock = dir.resolve("fdmaker.sock");
    if (Unix.available()) {
      Files.deleteIfExists(sock);
      ServerSocketChannel us = Unix.channel(sock);
      open.add(us);
      open.add(Unix.dial(sock));
      open.add(us.accept());
    }
    Path log = dir.resolve("fdmaker.log");
    OutputStream out = Log.openLog(log);
    out.write("started\n".getBytes());
    open.add(out);
    open.add(Log.openInput(log));
    Pipe pipe = Plumbing.makePipe();
    open.add(pipe.source());
    open.add(pipe.sink());
    open.add(Plumbing.makeSelector());
    System.out.println("port=" + ss.getLocalPort());
    System.out.println("log=" + log);
    System.out.println("unix=" + (Unix.available() ? sock : "none"));
    System.out.flush();
    Files.write(dir.resolve("ready"), new byte[0]);
    waitFor(dir.resolve("close"));
    for (AutoCloseable c : open) c.close();
    Files.write(dir.resolve("closed"), new byte[0]);
    waitFor(dir.resolve("exit"));
  }
}
