#!/usr/bin/env bash
# test_walk.sh BUILD_DIR - the HotSpot stack walker against AsyncGetCallTrace on real JVMs.
#
# Each workload runs under the walk test agent (agents/walk_agent.c), which samples the
# Java threads with SIGPROF and walks each sample with ASGST and with AsyncGetCallTrace in
# the same handler on the same ucontext. The agent prints "WALK ok|not ok - ..." checks and
# "WALK # figure: ..." lines; this script numbers them as TAP, adds a crash check per JVM
# run and a total sample count. WALK_SECONDS scales the short runs (default 5 s each,
# some 15,000 samples a run on a busy 2-core machine); the stress run samples every 100 us
# for 30 s (WALK_STRESS_SECONDS).
set -u
BUILD=$(cd "${1:?build dir}" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd)
JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/java-17-openjdk-amd64}
AGENT=$BUILD/tests/jvm/libwalk_agent.so
JNILIB=$BUILD/tests/jvm/libwalk_jni.so
SECS=${WALK_SECONDS:-5}
STRESS=${WALK_STRESS_SECONDS:-30}
WORK=$BUILD/tests/jvm/walk
mkdir -p "$WORK/classes"
n=0
total=0

tap() { n=$((n + 1)); echo "$1 $n - $2"; }
. "$HERE/javac_once.sh"
. "$HERE/oracle_crash.sh"

if [ ! -x "$JAVA_HOME/bin/java" ] || [ ! -f "$AGENT" ]; then
  tap "not ok" "walk tests: no JDK at $JAVA_HOME or the agent is not built (./build.sh build)"
  exit 0
fi
if ! javac_once "$WORK/classes" "$HERE/java/walk/Workload.java" >"$WORK/javac.log" 2>&1; then
  tap "not ok" "compile Workload.java"; cat "$WORK/javac.log"; exit 1
fi

# launch LABEL AGENT_OPTIONS "JVM FLAGS" MODE SECONDS: one JVM run of the workload under the
# agent; its output in $WORK/LABEL.log, its exit status in rc.
launch() {
  local label=$1 opts=$2 flags=$3 mode=$4 secs=$5
  rm -f "$WORK"/hs_err_*.log
  (cd "$WORK" && timeout -k 5 $((secs + 60)) "$JAVA_HOME/bin/java" $flags -Xss4m \
    "-agentpath:$AGENT=label=$label,$opts" -Dwalk.jni="$JNILIB" -cp "$WORK/classes" \
    Workload "$mode" "$secs") >"$WORK/$label.log" 2>&1
  rc=$?
}

# run NAME AGENT_OPTIONS "JVM FLAGS" MODE SECONDS
# WALK_ONLY="NAME ...": only these runs (the arm64 suite under qemu, tests/aarch64/run_suite.sh,
# where each JVM is 2-5x slower, keeps one run per kind of frame).
run() {
  case " ${WALK_ONLY:-$1} " in *" $1 "*) ;; *) return ;; esac
  local name=$1 opts=$2 flags=$3 mode=$4 secs=$5 rc label=$1 why=""
  launch "$name" "$opts" "$flags" "$mode" "$secs"
  # AsyncGetCallTrace (the oracle) crashed the JVM under qemu (tiers-noinline on 21 and
  # 25): a skip, and a run without it (oracle_crash.sh).
  local crash
  crash=$(oracle_crash "$WORK" $rc)
  if [ -n "$crash" ]; then
    tap "ok" "$(oracle_crash_skip "$name" "$crash")"
    why="no oracle: AsyncGetCallTrace crashed the JVM of the first run under qemu ($crash)"
    oracle_crash_keep "$WORK" "$name"
    label=$name-no-oracle
    launch "$label" "oracle=0,$opts" "$flags" "$mode" "$secs"
  fi
  local log=$WORK/$label.log
  if [ $rc = 0 ] && grep -q "^workload .* done" "$log" && ! ls "$WORK"/hs_err_*.log >/dev/null 2>&1; then
    tap "ok" "$label: JVM ran and exited cleanly"
  else
    tap "not ok" "$label: JVM exit status $rc (log: ${log#$BUILD/})"
    # A crash names its frame here, and its report is kept beside the log: later runs in
    # the same directory (the arm64 suite's pauth-off runs) overwrite the log.
    grep -A1 -m1 '^# Problematic frame:' "$log" | sed 's/^/# /'
    local hs
    hs=$(ls "$WORK"/hs_err_*.log 2>/dev/null | head -1)
    [ -n "$hs" ] && mv "$hs" "$log.hs_err" && echo "# crash report: ${log#$BUILD/}.hs_err"
    tail -5 "$log" | sed 's/^/# /'
  fi
  grep -q '^WALK ' "$log" || { tap "not ok" "$label: agent printed no results"; return; }
  while IFS= read -r line; do
    case "$line" in
      "WALK ok - "*) tap "ok" "${line#WALK ok - }" ;;
      "WALK not ok - "*) tap "not ok" "${line#WALK not ok - }" ;;
      # A check against the oracle, which this run left out (oracle=0).
      "WALK skip - "*) tap "ok" "${line#WALK skip - } # SKIP ${why:-the oracle was left out}" ;;
      "WALK # figure:"*) echo "${line#WALK }" ;;
      "WALK # example"*|"WALK #   "*) echo "${line#WALK }" ;;
      "WALK # "*) echo "${line#WALK }" ;;
    esac
  done < <(grep '^WALK ' "$log")
  local s
  s=$(sed -n 's/^WALK # figure: workload=[^ ]* samples=\([0-9]*\).*/\1/p' "$log" | head -1)
  total=$((total + ${s:-0}))
}

D="-XX:+UnlockDiagnosticVMOptions"
run interpreted    "levels=0" "-Xint" mix "$SECS"
run c1-only        "levels=0:1" "-XX:TieredStopAtLevel=1" mix "$SECS"
run c2-only        "levels=0:4" "-XX:-TieredCompilation" mix "$SECS"
run tiers-noinline "lvl=Workload.tierExcluded:0,noinl=Workload.tierLeaf" \
  "-XX:CompileCommand=quiet -XX:CompileCommand=exclude,Workload::tierExcluded -XX:CompileCommand=dontinline,Workload::tierLeaf" tiers "$SECS"
run tiers-inline   "inl=Workload.tierLeaf" \
  "-XX:CompileCommand=quiet -XX:CompileCommand=inline,Workload::tierLeaf" tiers "$SECS"
run no-debug-nonsafepoints "nodebug=1" "$D -XX:-DebugNonSafepoints" mix+lambda "$SECS"
run debug-nonsafepoints "" "$D -XX:+DebugNonSafepoints" mix+lambda "$SECS"
run deep-recursion "" "" deep "$SECS"
run jni-callbacks  "nonjava=1,jni=1" "" jni "$SECS"
# Threads that spend their time entering and leaving the VM (a JNI call in a tight loop,
# VM calls, monitor contention): with trans=1 the agent checks the samples taken outside
# _thread_in_Java, which the walker starts at the frame anchor (no ASGST_UNSAFE_STATE,
# agreement with AsyncGetCallTrace). 2 s give some 2,000-4,000 such samples here. Every
# run prints the per-state figures (# figure: states=).
run transitions    "trans=1" "" trans 2
run lambda-mh      "nonjava=1" "" lambda+mh "$SECS"
run exceptions-deopt "" "" exc+deopt "$SECS"
run threads-churn  "" "" threads "$SECS"
run alloc-classload "" "-Xmx256m" alloc+classload "$SECS"
run stress-100us   "interval_us=100,nonjava=1" "" all "$STRESS"
# Virtual threads (JDK 21+): the carriers are sampled while a virtual thread is mounted,
# lazily thawed frames return through the continuation return barrier, and the agent
# prints the agreement by thread kind (mounted, carrier in scheduler code, other) and
# whether mounted walks go on past Continuation.enterSpecial into the carrier's frames.
# WALK_VTHREADS=0 leaves it out.
jdk=$("$HERE/../jdks/feature.sh" "$JAVA_HOME")
if [ "${WALK_VTHREADS:-1}" = 1 ] && [ "${jdk:-0}" -ge 21 ]; then
  run virtual-threads "nonjava=1" "" vthreads "$SECS"
elif [ "${WALK_VTHREADS:-1}" = 1 ]; then
  tap "ok" "virtual-threads # SKIP JDK ${jdk:-?} has no virtual threads (21+)"
fi

echo "# figure: walk_samples_total=$total"
# Enough samples for the agreement figures to mean something (0.5% of 50,000 is 250). On a
# loaded 2-core machine the default 5 s runs give some 210,000, the 2 s runs of the other
# JDKs (tests/run_all.sh, floor 30,000) about 100,000. The agent samples Java threads only;
# WALK_MIN_SAMPLES lowers the bar for WALK_ONLY's fewer runs.
min=${WALK_MIN_SAMPLES:-50000}
if [ "$total" -ge "$min" ]; then tap "ok" "at least $min samples compared ($total)"
else tap "not ok" "at least $min samples compared ($total)"; fi
