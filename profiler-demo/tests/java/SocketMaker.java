import java.lang.reflect.Method;
import java.net.ProtocolFamily;
import java.net.StandardProtocolFamily;
import java.nio.channels.SocketChannel;

/**
 * Creates exactly N AF_UNIX sockets in makeUnix and N TCP sockets in makeTcp. UNIX-domain
 * channels came in JDK 16 (reached through reflection, so that the class compiles on 8):
 * before that it exits with status 3 and says so.
 */
public class SocketMaker {
  static void makeUnix(int n) throws Exception {
    Method open = SocketChannel.class.getMethod("open", ProtocolFamily.class);
    ProtocolFamily unix = StandardProtocolFamily.valueOf("UNIX");
    for (int i = 0; i < n; i++) ((SocketChannel) open.invoke(null, unix)).close();
  }

  static void makeTcp(int n) throws Exception {
    for (int i = 0; i < n; i++) SocketChannel.open().close();
  }

  public static void main(String[] args) throws Exception {
    int n = Integer.parseInt(args[0]);
    try {
      Class.forName("java.net.UnixDomainSocketAddress");
    } catch (ClassNotFoundException e) {
      System.out.println("SocketMaker: this JDK has no UNIX-domain socket channels (16+)");
      System.exit(3);
    }
    makeUnix(n);
    makeTcp(n);
  }
}
