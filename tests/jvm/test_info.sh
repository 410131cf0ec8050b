#!/usr/bin/env bash
# test_info.sh BUILD_DIR - the hotspot binding and metadata on a real JVM 17:
#   ASGST method/class info == JVMTI's for every loaded method and every method seen on
#   stacks; ASGST_Initialize from Agent_OnLoad, Agent_OnAttach (jcmd JVMTI.agent_load, or
#   the Attach API on JDK 8) and JNI_OnLoad (System.load); class unload handlers;
#   the window before a live binding has listed the classes loaded before it;
#   redefinition; the unsupported-VM path (test hook ASGST_TEST_HIDE_FIELD). Prints TAP.
set -u
BUILD=$(cd "${1:?build dir}" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd)
JAVA_HOME=${JAVA_HOME:-$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")}
JAVA=$JAVA_HOME/bin/java
LIB=$BUILD/tests/jvm/libinfo_agent.so
WORK=$BUILD/tests/jvm/info
mkdir -p "$WORK"
n=0

tap() { n=$((n + 1)); echo "$1 $n - $2"; }
# report FILE: turns the agent's RESULT/FIGURE lines into TAP.
report() {
  while IFS= read -r line; do
    case $line in
      "RESULT pass "*) tap ok "${line#RESULT pass }" ;;
      "RESULT fail "*) tap "not ok" "${line#RESULT fail }" ;;
      "FIGURE "*) echo "# figure: ${line#FIGURE }" ;;
      "# "*) echo "$line" ;;
    esac
  done <"$1"
}
# expect NAME FILE PATTERN: a TAP line for a line of the JVM's own output.
expect() { if grep -q "$3" "$2"; then tap ok "$1"; else tap "not ok" "$1"; fi; }
# A JVM's exit status ($2) for the run named $1, whose output is $3: on a failure the
# output's last lines go into the log (the file is overwritten by the next JDK's run).
exited() {
  if [ "$2" = 0 ]; then tap ok "$1: JVM exited normally"; return; fi
  tap "not ok" "$1: JVM exit status $2"
  tail -n 30 "$3" | sed 's/^/#   /'
}

if [ ! -f "$LIB" ] || [ ! -x "$JAVA" ]; then
  echo "1..1"
  echo "not ok 1 - info tests: no agent ($LIB, build it: ./build.sh build) or no java in $JAVA_HOME"
  exit 0
fi

. "$HERE/javac_once.sh"
javac_once "$WORK/classes" "$HERE"/java/info/info/*.java || { echo "not ok 1 - javac"; exit 1; }
javac_once "$WORK/v2" "$HERE"/java/info/v2/info/Redefinee.java || { echo "not ok 1 - javac v2"; exit 1; }
CP=$WORK/classes

# 1. Agent_OnLoad: compare everything at VMDeath.
timeout 300 "$JAVA" -agentpath:"$LIB"=info -cp "$CP" info.InfoWorkload wait 3000 >"$WORK/onload.out" 2>&1
rc=$?
report "$WORK/onload.out"
exited onload $rc "$WORK/onload.out"

# 2. Agent_OnAttach through jcmd (diagnostic flags unlocked only so that VM.flags lists
#    DebugNonSafepoints). The workload waits up to 15 s, and ends as soon as the attach
#    and the flag reads are done (the agent compares at attach; the stop file).
rm -f "$WORK/attach.stop"
"$JAVA" -XX:+UnlockDiagnosticVMOptions -cp "$CP" info.InfoWorkload wait 15000 "$WORK/attach.stop" >"$WORK/attach.out" 2>&1 &
pid=$!
for _ in $(seq 100); do grep -q READY "$WORK/attach.out" && break; sleep 0.1; done
"$JAVA_HOME/bin/jcmd" "$pid" VM.flags -all 2>/dev/null | grep -w DebugNonSafepoints >"$WORK/flag-before.out"
if [ -f "$JAVA_HOME/lib/tools.jar" ]; then
  # JDK 8: its jcmd has no JVMTI.agent_load; the Attach API of its tools.jar loads the agent.
  javac_once "$WORK/attach" -cp "$JAVA_HOME/lib/tools.jar" "$HERE"/java/info/attach/info/Attach.java
  "$JAVA" -cp "$JAVA_HOME/lib/tools.jar:$WORK/attach" info.Attach "$pid" "$LIB" attach >"$WORK/jcmd.out" 2>&1
  loaded="agent loaded"
else
  "$JAVA_HOME/bin/jcmd" "$pid" JVMTI.agent_load "$LIB" attach >"$WORK/jcmd.out" 2>&1
  loaded="return code: 0"
fi
"$JAVA_HOME/bin/jcmd" "$pid" VM.flags -all 2>/dev/null | grep -w DebugNonSafepoints >"$WORK/flag-after.out"
touch "$WORK/attach.stop"
wait "$pid"
rc=$?
report "$WORK/attach.out"
expect "attach: the agent was loaded (jcmd JVMTI.agent_load; the Attach API on JDK 8)" "$WORK/jcmd.out" "$loaded"
echo "# figure: DebugNonSafepoints before attach: $(tr -s ' ' <"$WORK/flag-before.out"), after: $(tr -s ' ' <"$WORK/flag-after.out")"
expect "attach: ASGST_Initialize switched DebugNonSafepoints on" "$WORK/flag-after.out" "= true"
exited attach $rc "$WORK/attach.out"

# 3. JNI_OnLoad through System.load.
timeout 300 "$JAVA" -cp "$CP" info.InfoWorkload jni "$LIB" >"$WORK/jni.out" 2>&1
rc=$?
report "$WORK/jni.out"
exited jni $rc "$WORK/jni.out"

# 4. Class unloading: 200 copies of a class through throw-away loaders; the handler
#    resolves each copy's class and methods (the backend's shadow copies of their metadata,
#    already freed by the VM when the handler runs).
timeout 300 "$JAVA" -agentpath:"$LIB"=unload,200 -cp "$CP" info.UnloadWorkload 200 >"$WORK/unload.out" 2>&1
rc=$?
report "$WORK/unload.out"
expect "unload: every loader was collected" "$WORK/unload.out" "loaders alive 0"
exited unload $rc "$WORK/unload.out"

# 4b. The window between a live binding's answer and the listing of the classes loaded
#     before it (impl/hotspot/classes/class_backlog.c), held open 1.5 s by the test build: a class
#     dropped inside it unloads unlisted (walks still pending: nothing of it was handed
#     out); a class converted inside it (the conversion waits for the listing) and dropped
#     after gets its unload handler call.
INFO_GAP=1 ASGST_TEST_LISTING_DELAY_MS=1500 timeout 120 "$JAVA" -cp "$CP" info.GapWorkload "$LIB" >"$WORK/gap.out" 2>&1
rc=$?
report "$WORK/gap.out"
expect "gap: the converted copy's loader was collected" "$WORK/gap.out" "copy A collected true"
exited gap $rc "$WORK/gap.out"

# 5. Redefinition while the class runs.
timeout 300 "$JAVA" -agentpath:"$LIB"=redefine,"$WORK/v2/info/Redefinee.class" -cp "$CP" info.RedefineWorkload >"$WORK/redefine.out" 2>&1
rc=$?
report "$WORK/redefine.out"
expect "redefine: the running code sees the new version" "$WORK/redefine.out" "redefined value 2"
exited redefine $rc "$WORK/redefine.out"

# 6. Unsupported VM (test hook: these fields count as missing) - the JVM keeps running.
ASGST_TEST_HIDE_FIELD=Method::_constMethod,Symbol::_length \
  timeout 300 "$JAVA" -agentpath:"$LIB"=unsupported -cp "$CP" info.InfoWorkload >"$WORK/unsupported.out" 2>&1
rc=$?
report "$WORK/unsupported.out"
expect "unsupported: the JVM ran its program to the end" "$WORK/unsupported.out" "^done"
exited unsupported $rc "$WORK/unsupported.out"

echo "1..$n"
