import java.io.FileOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Pipe;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.WatchService;
import java.util.ArrayList;
import java.util.List;

/**
 * Opens one descriptor of each kind, each a few calls deep in application code: a listening
 * socket, a pool of 4 connections to it and the 4 accepted ends, a UNIX socket pair (the
 * WatchService's), a UNIX-domain channel, a log file, a read file, a pipe and a selector.
 * Then waits for DIR/close, closes them all, writes DIR/closed, waits for DIR/exit.
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

    static ServerSocketChannel channel(Path p) throws Exception {
      ServerSocketChannel s = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
      s.bind(UnixDomainSocketAddress.of(p));
      return s;
    }

    static SocketChannel dial(Path p) throws Exception {
      return SocketChannel.open(UnixDomainSocketAddress.of(p));
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
    Path dir = Path.of(args[0]);
    ServerSocket ss = Server.listen();
    open.add(ss);
    Pool.fill(ss.getLocalPort(), 4);
    Server.acceptAll(ss, 4);
    open.add(Unix.socketPair());
    Path sock = dir.resolve("fdmaker.sock");
    Files.deleteIfExists(sock);
    ServerSocketChannel us = Unix.channel(sock);
    open.add(us);
    open.add(Unix.dial(sock));
    open.add(us.accept());
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
    System.out.println("unix=" + sock);
    System.out.flush();
    Files.writeString(dir.resolve("ready"), "");
    waitFor(dir.resolve("close"));
    for (AutoCloseable c : open) c.close();
    Files.writeString(dir.resolve("closed"), "");
    waitFor(dir.resolve("exit"));
  }
}
