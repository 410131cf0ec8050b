import java.net.InetAddress;
import java.security.Security;

/**
 * Resolves "localhost" N times with the JDK's address cache off, so that every lookup goes
 * down to glibc's getaddrinfo, whose sockets come from libc's internal (not exported)
 * functions: the test of C frame names from libc's separate debug file.
 */
public class Resolver {
  public static void main(String[] args) throws Exception {
    Security.setProperty("networkaddress.cache.ttl", "0");
    Security.setProperty("networkaddress.cache.negative.ttl", "0");
    int n = Integer.parseInt(args[0]);
    int found = 0;
    for (int i = 0; i < n; i++) found += InetAddress.getAllByName("localhost").length;
    System.out.println("Resolver: " + n + " lookups, " + found + " addresses");
  }
}
