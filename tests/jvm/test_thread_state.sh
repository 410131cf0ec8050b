#!/usr/bin/env bash
# test_thread_state.sh BUILD_DIR - ASGST_ThreadState, asked in each thread's own signal
# handler, gives the JVMTI GetThreadState bits of threads held in known states (sleeping,
# Object.wait timed and not, blocked on a monitor entry, parked timed and not, running
# Java, in a native read): agents/state_agent.c, on the demo's workload
# profiler-demo/tests/java/ThreadStates.java. One TAP line per thread: the same bits in
# >= 95% of the reads where JVMTI answered the same before and after.
set -u
BUILD=$(cd "${1:?build dir}" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd)
JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/java-17-openjdk-amd64}
AGENT=$BUILD/tests/jvm/libstate_agent.so
WORK=$BUILD/tests/jvm/state
mkdir -p "$WORK/classes"
n=0
tap() { n=$((n + 1)); echo "$1 $n - $2"; }
. "$HERE/agent_tap.sh"
echo "1..11"
. "$HERE/javac_once.sh"
if ! javac_once "$WORK/classes" "$HERE/../../profiler-demo/tests/java/ThreadStates.java" >"$WORK/javac.log" 2>&1; then
  echo "not ok 1 - ThreadStates.java compiles"; sed 's/^/# /' "$WORK/javac.log"; exit 1
fi
rm -f "$WORK"/hs_err_*.log
(cd "$WORK" && timeout -k 5 60 "$JAVA_HOME/bin/java" "-agentpath:$AGENT" -cp "$WORK/classes" \
  ThreadStates 2.5) >"$WORK/run.log" 2>&1
rc=$?
# The workload prints nothing: the agent's last line is the one to wait for.
jvm_exit_tap $rc "$WORK" "$WORK/run.log" "STATE done"
agent_checks_tap STATE "$WORK/run.log" 9
