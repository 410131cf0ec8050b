#!/usr/bin/env bash
# test_native_agree.sh BUILD_DIR - ASGST's C frames (ASGST_INCLUDE_NON_JAVA_FRAMES) against
# an independent unwinder, libunwind, on the same stopped stacks. The nofp spinner (C code
# without frame pointers under 50 Java frames) runs beside threads that allocate, intern,
# contend, sleep and load classes (java/native/NativeAgree.java); the agent
# (agents/unwind_agent.c) signals every thread of the process in turn and, in the handler,
# unwinds the top C frames from the same ucontext with both, frame by frame. Checks: at
# least AGREE_MIN frames compared (default 1000) and >= 99% of them equal.
# AGREE_SECONDS: how long it samples (default 5: some 35,000 C frames compared on a busy
# 2-core machine, 65,000-80,000 in 10 s).
set -u
BUILD=$(cd "${1:?build dir}" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd)
JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/java-17-openjdk-amd64}
AGENT=$BUILD/tests/jvm/libunwind_agent.so
LIB=$BUILD/tests/jvm/libnofp.so
SECS=${AGREE_SECONDS:-5}
MIN=${AGREE_MIN:-1000}
WORK=$BUILD/tests/jvm/native_agree
mkdir -p "$WORK/classes"
n=0
tap() { n=$((n + 1)); echo "$1 $n - $2"; }
. "$HERE/agent_tap.sh"

if [ ! -f "$AGENT" ] && [ -f "$LIB" ]; then
  echo "1..0 # skip the agent is not built: libunwind (Debian libunwind-dev) was not found at configure time"
  exit 0
fi
if [ ! -x "$JAVA_HOME/bin/java" ] || [ ! -f "$LIB" ]; then
  echo "1..1"
  tap "not ok" "native agreement: no JDK at $JAVA_HOME or libnofp is not built (./build.sh build)"
  exit 0
fi
echo "1..4"
. "$HERE/javac_once.sh"
if ! javac_once "$WORK/classes" "$HERE/java/native/NativeFrames.java" \
  "$HERE/java/native/NativeAgree.java" >"$WORK/javac.log" 2>&1; then
  tap "not ok" "NativeAgree.java compiles"; sed 's/^/# /' "$WORK/javac.log"; exit 1
fi
rm -f "$WORK"/hs_err_*.log
log=$WORK/run.log
# The workload runs 3 s longer than the agent samples, so every sample finds it busy.
(cd "$WORK" && timeout -k 5 $((SECS + 60)) "$JAVA_HOME/bin/java" -Xss4m -Xmx256m \
  "-agentpath:$AGENT=secs=$SECS,min=$MIN" -Dnofp.lib="$LIB" -cp "$WORK/classes" \
  NativeAgree $((SECS + 3))) >"$log" 2>&1
jvm_exit_tap $? "$WORK" "$log" "NativeAgree done"
agent_checks_tap AGREE "$log" 2
