# javac_run.sh - sourced by the javac benches (javac_bench.sh, javac_asprof.sh).

# javac_run JAVA_HOME JVM_OPTION ARGS...: javac of JAVA_HOME with one JVM option. A home
# whose bin/javac is another JDK's (tests/aarch64/fake_home.sh: bin/java runs the arm64 JDK
# under qemu-user, bin/javac links to the host's) runs the compiler's main class through
# its bin/java, so that javac runs on the JDK (and the agent) under test.
javac_run() {
  local home=$1 opt=$2
  shift 2
  local javac java dir
  javac=$(readlink -f "$home/bin/javac") java=$(readlink -f "$home/bin/java") dir=$(readlink -f "$home")
  if [ "${javac%/*}" = "${java%/*}" ] || [ "${javac#"$dir"/}" != "$javac" ]; then
    "$home/bin/javac" "-J$opt" "$@"
  else
    "$home/bin/java" "$opt" -m jdk.compiler/com.sun.tools.javac.Main "$@"
  fi
}
