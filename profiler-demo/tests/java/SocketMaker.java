import java.net.StandardProtocolFamily;
import java.nio.channels.SocketChannel;

/** Creates exactly N AF_UNIX sockets in makeUnix and N TCP sockets in makeTcp. */
public class SocketMaker {
  static void makeUnix(int n) throws Exception {
    for (int i = 0; i < n; i++) SocketChannel.open(StandardProtocolFamily.UNIX).close();
  }

  static void makeTcp(int n) throws Exception {
    for (int i = 0; i < n; i++) SocketChannel.open().close();
  }

  public static void main(String[] args) throws Exception {
    int n = Integer.parseInt(args[0]);
    makeUnix(n);
    makeTcp(n);
  }
}
