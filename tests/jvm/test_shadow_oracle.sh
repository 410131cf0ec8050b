#!/usr/bin/env bash
# test_shadow_oracle.sh BUILD_DIR - ASGST (and AsyncGetCallTrace) against a ground truth
# that is not a walker: the walk test workload (java/walk/Workload.java) instrumented at
# method entry and exit by a java.lang.instrument agent built on ASM (Debian's libasm-java,
# java/shadow/ShadowAgent.java) keeps a per-thread shadow stack in native memory; the test
# agent (agents/shadow_agent.c) samples with SIGPROF and compares each in-handler walk's
# instrumented Java frames with the shadow stack at the same instant. Samples in a
# method's entry/exit window (entered, not yet pushed; popped, not yet returned) are a
# class of their own. docs/testing.md describes the oracle and its classes.
#
# SHADOW_SECONDS: the length of each run (default 3). SHADOW_MIN_AGREE: the bound on ASGST's
# agreement outside the windows, per mille (default 990).
set -u
BUILD=$(cd "${1:?build dir}" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd)
JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/java-17-openjdk-amd64}
AGENT=$BUILD/tests/jvm/libshadow_agent.so
SECS=${SHADOW_SECONDS:-3}
MIN=${SHADOW_MIN_AGREE:-990}
WORK=$BUILD/tests/jvm/shadow
ASM=${ASM_JAR:-/usr/share/java/asm-all.jar}
n=0
tap() { n=$((n + 1)); echo "$1 $n - $2"; }
. "$HERE/javac_once.sh"
. "$HERE/agent_tap.sh"

echo "# shadow-stack oracle on $JAVA_HOME"
if [ ! -x "$JAVA_HOME/bin/java" ] || [ ! -f "$AGENT" ]; then
  tap "not ok" "no JDK at $JAVA_HOME or the agent is not built (./build.sh build)"; exit 0
fi
if [ ! -f "$ASM" ]; then
  tap "ok" "shadow-stack oracle # SKIP no ASM jar at $ASM (apt-get install libasm-java)"; exit 0
fi
rm -rf "$WORK" && mkdir -p "$WORK/classes" "$WORK/agent"
jdk=$("$HERE/../jdks/feature.sh" "$JAVA_HOME")
# The workload as Java 8 class files: ASM 9.4 reads class files up to Java 20's.
release=(--release 8)
[ "${jdk:-0}" -le 8 ] && release=(-source 8 -target 8)
if ! javac_once "$WORK/classes" "${release[@]}" -nowarn -Xlint:-options "$HERE/java/walk/Workload.java" \
    >"$WORK/javac.log" 2>&1; then
  tap "not ok" "compile Workload.java"; cat "$WORK/javac.log"; exit 0
fi
if ! javac_once "$WORK/agent" -nowarn -cp "$ASM" "$HERE/java/shadow/Shadow.java" \
    "$HERE/java/shadow/ShadowAgent.java" >>"$WORK/javac.log" 2>&1; then
  tap "not ok" "compile the instrumenting agent"; cat "$WORK/javac.log"; exit 0
fi
printf 'Premain-Class: ShadowAgent\nClass-Path: %s\n' "$ASM" >"$WORK/manifest.txt"
(cd "$WORK/agent" && "$JAVA_HOME/bin/jar" cfm "$WORK/shadow.jar" "$WORK/manifest.txt" ./*.class) ||
  { tap "not ok" "jar the instrumenting agent"; exit 0; }
flags=()
# JDK 23 on warns at sun.misc.Unsafe's memory access (JEP 471); the helper uses it on purpose.
[ "${jdk:-0}" -ge 23 ] && flags+=(--sun-misc-unsafe-memory-access=allow)

# launch LABEL MODE SECONDS AGENT_OPTIONS [JVM FLAGS...]: one JVM; rc its exit status.
launch() {
  local label=$1 mode=$2 secs=$3 opts=$4
  shift 4
  rm -f "$WORK"/hs_err_*.log
  (cd "$WORK" && timeout -k 5 $((secs + 60)) "$JAVA_HOME/bin/java" "${flags[@]}" "$@" -Xss4m \
    "-agentpath:$AGENT=interval_us=${SHADOW_INTERVAL_US:-100},min_agree=$MIN,out=$WORK/$label.shadow$opts" \
    -javaagent:"$WORK/shadow.jar" -cp "$WORK/classes" Workload "$mode" "$secs") >"$WORK/$label.log" 2>&1
  rc=$?
}

# The problematic frame of the crash report the last run left ("" if none).
crash_frame() {
  local hs
  hs=$(ls "$WORK"/hs_err_*.log 2>/dev/null | head -1)
  [ -n "$hs" ] && grep -A1 -m1 '^# Problematic frame:' "$hs" | tail -1 | tr -s ' ' | sed 's/^# //'
}

# run LABEL MODE SECONDS [JVM FLAGS...]
run() {
  local label=$1 mode=$2 secs=$3 log=$WORK/$1.log rc crash
  shift 3
  launch "$label" "$mode" "$secs" "" "$@"
  crash=$(crash_frame)
  # Under qemu (the arm64 suite) JDK 21's and 25's own AsyncGetCallTrace faults now and then
  # (test_walk.sh says more): when the crash is in its code, the run is repeated without it,
  # so that ASGST's checks still run; any other crash fails.
  if [ -n "$crash" ] && [ "${ASGST_TEST_QEMU:-0}" = 1 ] &&
    echo "$crash" | grep -q 'libjvm\.so.*\(vframeStreamForte\|forte_\|AsyncGetCallTrace\)'; then
    echo "# $label: AsyncGetCallTrace crashed the JVM under qemu ($crash): again without it"
    mv "$(ls "$WORK"/hs_err_*.log | head -1)" "$log.asgct-crash"
    launch "$label" "$mode" "$secs" ",asgct=0" "$@"
    crash=$(crash_frame)
  fi
  echo "# $label: Workload $mode $secs s $*"
  [ -n "$crash" ] && echo "# crash in: $crash" && mv "$(ls "$WORK"/hs_err_*.log | head -1)" "$log.hs_err"
  jvm_exit_tap "$rc" "$WORK" "$log" "workload $mode done"
  grep '^shadow: ' "$log" | head -3 | sed 's/^/# /'
  agent_checks_tap SHADOW "$WORK/$label.shadow" 4
}
# SHADOW_JAVA_FLAGS: more JVM flags for the run (e.g. to try a hypothesis about a class).
run tiered mix+deep+exc+deopt+lambda+mh+tiers "$SECS" ${SHADOW_JAVA_FLAGS:-}
