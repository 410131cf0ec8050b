package info;

import com.sun.tools.attach.VirtualMachine;

/** Loads a JVMTI agent library into a running JVM through the Attach API: what
 *  `jcmd PID JVMTI.agent_load LIB OPTIONS` does on JDK 9 and later, for JDK 8, whose jcmd
 *  has no such command. Usage: Attach PID LIB OPTIONS (needs JDK 8's lib/tools.jar). */
public class Attach {
  public static void main(String[] args) throws Exception {
    VirtualMachine vm = VirtualMachine.attach(args[0]);
    try {
      vm.loadAgentPath(args[1], args[2]); // throws if Agent_OnAttach returns non-zero
      System.out.println("agent loaded");
    } finally {
      vm.detach();
    }
  }
}
