#!/usr/bin/env bash
# test_signal_frames.sh BUILD_DIR - walks that start inside another agent's signal handler
# go through the kernel's signal frame into the Java code it interrupted
# (impl/native/sigframe.h). A thread computes in Java (java/sigframe/SignalFrames.java);
# the agent (agents/sigframe_agent.c) samples it directly (SIGPROF) and nested in a
# SIGVTALRM handler of its own that plays another agent's (raising SIGPROF from its C
# frames, or with both signals pending at once, so that the walk starts at the handler's
# first instruction). Checks: the share of nested samples with Java frames within 1 point
# of the direct share, their walks with C frames show handler, trampoline, then Java,
# and their Java frames equal a walk from the context the handler was given.
# SIGFRAME_SECONDS: how long it samples (default 3: some 1,500 rounds on a busy 2-core
# machine, against the 100 samples of each kind the checks ask for).
set -u
BUILD=$(cd "${1:?build dir}" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd)
JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/java-17-openjdk-amd64}
AGENT=$BUILD/tests/jvm/libsigframe_agent.so
SECS=${SIGFRAME_SECONDS:-3}
WORK=$BUILD/tests/jvm/sigframe
mkdir -p "$WORK/classes"
n=0
tap() { n=$((n + 1)); echo "$1 $n - $2"; }

if [ ! -x "$JAVA_HOME/bin/java" ] || [ ! -f "$AGENT" ]; then
  echo "1..1"
  tap "not ok" "signal frames: no JDK at $JAVA_HOME or the agent is not built (./build.sh build)"
  exit 0
fi
echo "1..6"
. "$HERE/javac_once.sh"
if ! javac_once "$WORK/classes" "$HERE/java/sigframe/SignalFrames.java" >"$WORK/javac.log" 2>&1; then
  tap "not ok" "SignalFrames.java compiles"; sed 's/^/# /' "$WORK/javac.log"; exit 1
fi
rm -f "$WORK"/hs_err_*.log
log=$WORK/run.log
# The spinner computes until the agent is done: the agent waits 0.3 s for the loop to be
# compiled and then for the C frame tables' first build (seconds under qemu on a loaded
# machine), samples SECS seconds and ends it; at most SECS + 60 s.
(cd "$WORK" && timeout -k 5 $((SECS + 90)) "$JAVA_HOME/bin/java" \
  "-agentpath:$AGENT=secs=$SECS" -cp "$WORK/classes" SignalFrames $((SECS + 60))) >"$log" 2>&1
rc=$?
crash=$(ls "$WORK"/hs_err_*.log 2>/dev/null | wc -l)
if [ $rc = 0 ] && [ "$crash" = 0 ] && grep -q '^SignalFrames done' "$log"; then
  tap "ok" "JVM ran SignalFrames with the agent and exited cleanly"
else
  tap "not ok" "JVM exit status $rc, $crash crash logs (log: ${log#$BUILD/})"; tail -5 "$log" | sed 's/^/# /'
fi
checks=0
while IFS= read -r line; do
  case "$line" in
    "SIGFRAME ok - "*) tap "ok" "${line#SIGFRAME ok - }"; checks=$((checks + 1)) ;;
    "SIGFRAME not ok - "*) tap "not ok" "${line#SIGFRAME not ok - }"; checks=$((checks + 1)) ;;
    "SIGFRAME # "*) echo "${line#SIGFRAME }" ;;
  esac
done < <(grep '^SIGFRAME ' "$log")
[ "$checks" -ge 4 ] && tap "ok" "the agent reported its checks" ||
  tap "not ok" "the agent reported its checks ($checks of 4)"
