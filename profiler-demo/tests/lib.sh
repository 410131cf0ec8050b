# lib.sh - shared helpers of the profiler-demo tests (sourced). Each test is run as
# `bash test_x.sh BUILD_DIR` and prints TAP.
BUILD=$(cd "${1:?usage: $0 BUILD_DIR}" && pwd)
TESTS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/java-17-openjdk-amd64}
JAVA=$JAVA_HOME/bin/java
AGENT=$BUILD/lib/libasgstprof.so
ATTACH=$BUILD/bin/asgst-attach
WORK=$(mktemp -d "${TMPDIR:-/tmp}/asgstprof-test.XXXXXX")
CLASSES=$WORK/classes
trap 'rm -rf "$WORK"' EXIT
TAP_N=0

ok() { TAP_N=$((TAP_N + 1)); echo "ok $TAP_N - $1"; }
not_ok() { TAP_N=$((TAP_N + 1)); echo "not ok $TAP_N - $1"; }
# check NAME CMD...: ok if CMD succeeds.
check() { local name=$1; shift; if "$@"; then ok "$name"; else not_ok "$name"; fi; }
figure() { echo "# figure: $*"; }
# skip NAME REASON: a check this JDK cannot make, said so.
skip() { TAP_N=$((TAP_N + 1)); echo "ok $TAP_N - $1 # SKIP $2"; }
# The JDK's feature version (8 for "1.8.0_..."), from its release file; 0 if unknown.
jdk_feature() {
  local v
  v=$("$(dirname "${BASH_SOURCE[0]}")/../../tests/jdks/feature.sh" "$JAVA_HOME")
  echo "${v:-0}"
}
# True if the JDK has UNIX-domain socket channels (16+).
has_unix_channels() { [ "$(jdk_feature)" -ge 16 ]; }
NO_UNIX="JDK $(jdk_feature) has no UNIX-domain socket channels (16+)"
diag() { sed 's/^/# /'; }
# The JDK's jfr tool to read recordings with: $JAVA_HOME's; where it has none (JDK 8, the
# arm64 suite's fake home under qemu), the provisioned JDK 17's, else the first of the
# system's JVM directory (a run filtered to arm64 provisions no JDK: list.sh says SKIP).
host_jfr() {
  local j
  for j in "$JAVA_HOME/bin/jfr" \
    "$("$(dirname "${BASH_SOURCE[0]}")/../../tests/jdks/list.sh" | awk '$1 == "jdk17" {print $2}')/bin/jfr" \
    /usr/lib/jvm/*/bin/jfr; do
    [ -x "$j" ] && { echo "$j"; return; }
  done
  echo "$JAVA_HOME/bin/jfr"
}

# Compiles the test programs into $CLASSES (once per build directory and JDK version:
# later scripts copy the classes, tests/jvm/javac_once.sh).
. "$TESTS/../../tests/jvm/javac_once.sh"
compile() {
  javac_once "$CLASSES" "$TESTS"/java/*.java "$TESTS"/../sample/*.java
}

# Seconds a test's JVM may run before it is stopped; the test then says which JVM did not
# exit (its own line in the TAP output, wherever the JVM's output goes).
JVM_LIMIT=${JVM_LIMIT:-180}
exec 9>&1

# jvm ARGS...: java ARGS under the time limit; the JVM's exit status (124 if stopped).
jvm() {
  timeout -k 5 "$JVM_LIMIT" "$JAVA" "$@"
  local rc=$?
  if [ $rc = 124 ] || [ $rc = 137 ]; then
    echo "# timeout: the JVM 'java $*' did not exit within $JVM_LIMIT s and was stopped" >&9
  fi
  return $rc
}

# run_agent OPTIONS CLASS ARGS...: runs CLASS under the agent; stderr in $WORK/stderr.
run_agent() {
  local opts=$1; shift
  jvm -agentpath:"$AGENT=$opts" -cp "$CLASSES" "$@" 2>"$WORK/stderr"
}

# samples_with FILE REGEX: sum of counts of folded-stack lines matching REGEX.
# stats_field FILE KEY: KEY's value on the summary's key=value line ("stats: ...") in FILE.
stats_field() { sed -n "s/^stats: .*\b$2=\([0-9.]*\).*/\1/p" "$1" | head -1; }
samples_with() {
  grep -E -- "$2" "$1" 2>/dev/null | awk '{s += $NF} END {print s + 0}'
}
samples_total() { awk '{s += $NF} END {print s + 0}' "$1" 2>/dev/null || echo 0; }
