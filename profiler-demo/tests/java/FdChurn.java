import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.File;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;

/**
 * A busy server's descriptors, as fast as one thread makes them: for SECONDS, opens and
 * closes a file (Churn.openFile) and, every fourth turn, a socket (Churn.openSocket). Before
 * that it opens KEEP files DIR/keep-I (Keep.hold) and leaves them open. Then prints
 * "files=N sockets=M", writes DIR/done and waits for DIR/exit (at most a minute).
 * Usage: FdChurn DIR SECONDS KEEP
 */
public class FdChurn {
  static final List<AutoCloseable> kept = new ArrayList<>();

  static class Keep {
    static void hold(File f) throws Exception {
      kept.add(new FileOutputStream(f));
    }
  }

  static class Churn {
    static void openFile(File f) throws Exception {
      new FileInputStream(f).close();
    }

    static void openSocket() throws Exception {
      SocketChannel.open().close();
    }
  }

  public static void main(String[] args) throws Exception {
    File dir = new File(args[0]);
    long seconds = Long.parseLong(args[1]);
    int keep = Integer.parseInt(args[2]);
    for (int i = 0; i < keep; i++) Keep.hold(new File(dir, "keep-" + i));
    File f = new File(dir, "churn");
    new FileOutputStream(f).close();
    long files = 0, sockets = 0, turn = 0;
    long end = System.nanoTime() + seconds * 1_000_000_000L;
    while (System.nanoTime() < end) {
      for (int i = 0; i < 100; i++, turn++) {
        Churn.openFile(f);
        files++;
        if ((turn & 3) == 0) {
          Churn.openSocket();
          sockets++;
        }
      }
    }
    System.out.println("files=" + files + " sockets=" + sockets);
    System.out.flush();
    Files.write(Paths.get(args[0], "done"), new byte[0]);
    for (int i = 0; i < 600 && !new File(dir, "exit").exists(); i++) Thread.sleep(100);
  }
}
