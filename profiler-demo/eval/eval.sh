#!/usr/bin/env bash
# eval.sh - compares the demo profiler's walk modes (walk=signal|thread|queue), no profiler
# and JFR's method sampling on the same workloads, and writes a report: a table on the
# terminal and a self-contained HTML page with charts (OUT/report.html).
#
#   eval.sh [options]                      the built-in workloads (EvalMixed, EvalBias)
#   eval.sh [options] -- java -cp app Main  your program instead (run once per mode; the
#                                          agent or JFR option goes right after `java`)
# Options:
#   --build DIR      the project's build directory (default: the one beside this script)
#   --out DIR        where runs and the report go (default: out/eval in the project)
#   --event E        the sampled event: cpu (default), wall, or a tracepoint
#   --interval I     the sampling interval (default 1ms)
#   --reps N         runs per mode for the slowdown figures (default 3, alternating)
#   --seconds S      length of the bias workload (default 3)
#   --rounds N       size of the mixed workload (default 1500, about 3 s here)
#   --jdk25 DIR      a JDK 25 home for the JFR cooperative sampler rows ("none" to skip;
#                    default /var/cache/asgst-jdks/jdk25/home when it exists)
# JAVA_HOME picks the JVM (default JDK 17). Every mode takes the same runs: per mode one
# run with `compare` (agreement with the in-handler walk), one run of the bias workload
# and --reps runs without compare for the costs and the slowdown.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
BUILD=$ROOT/build
OUT=$ROOT/out/eval
EVENT=cpu
INTERVAL=1ms
REPS=3
SECONDS_BIAS=3
ROUNDS=1500
JDK25=/var/cache/asgst-jdks/jdk25/home
[ -x "$JDK25/bin/java" ] || JDK25=none
JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/java-17-openjdk-amd64}
USER_CMD=()
while [ $# -gt 0 ]; do
  case "$1" in
    --build) BUILD=$(cd "$2" && pwd); shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    --event) EVENT=$2; shift 2 ;;
    --interval) INTERVAL=$2; shift 2 ;;
    --reps) REPS=$2; shift 2 ;;
    --seconds) SECONDS_BIAS=$2; shift 2 ;;
    --rounds) ROUNDS=$2; shift 2 ;;
    --jdk25) JDK25=$2; shift 2 ;;
    --) shift; USER_CMD=("$@"); break ;;
    -h|--help) sed -n '2,22p' "$0"; exit 0 ;;
    *) echo "eval.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done
AGENT=$BUILD/lib/libasgstprof.so
[ -f "$AGENT" ] || { echo "eval.sh: no agent at $AGENT (./build.sh build first)" >&2; exit 1; }
mkdir -p "$OUT/runs" "$OUT/classes"
rm -f "$OUT"/runs/* "$OUT/manifest.tsv"
MODES=(signal thread queue)

# jfr_usable HOME: true if this JDK's JFR can record method samples.
jfr_usable() { [ -x "$1/bin/jfr" ] && "$1/bin/java" -XX:StartFlightRecording:filename=/dev/null -version >/dev/null 2>&1; }

# run LABEL WORKLOAD MODE JDK_HOME EXTRA_AGENT_OPTS CMD...: one run; MODE none, jfr or a
# walk mode. Records a manifest line: label workload mode jdk elapsed_ms exit_status.
run() {
  local label=$1 workload=$2 mode=$3 home=$4 extra=$5; shift 5
  local base=$OUT/runs/$label jvmopt=()
  case "$mode" in
    none) ;;
    jfr) jvmopt=("-XX:StartFlightRecording:jdk.ExecutionSample#period=${INTERVAL},filename=$base.jfr") ;;
    *) jvmopt=("-agentpath:$AGENT=event=$EVENT,interval=$INTERVAL,walk=$mode$extra,verbose,file=$base.collapsed") ;;
  esac
  local cmd=("$@")
  local t0 t1 rc
  t0=$(date +%s%N)
  timeout 300 "${cmd[0]}" "${jvmopt[@]}" "${cmd[@]:1}" >"$base.out" 2>"$base.err"
  rc=$?
  t1=$(date +%s%N)
  if [ "$mode" = jfr ] && [ -f "$base.jfr" ]; then
    "$home/bin/jfr" print --json --events jdk.ExecutionSample "$base.jfr" >"$base.json" 2>/dev/null
  fi
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$label" "$workload" "$mode" "$(basename "$(dirname "$home")")/$(basename "$home")" \
    "$(((t1 - t0) / 1000000))" "$rc" >>"$OUT/manifest.tsv"
  printf '  %-24s %6d ms  exit %d\n' "$label" "$(((t1 - t0) / 1000000))" "$rc"
}

# The workloads as commands for JDK home $1.
mixed_cmd() { echo "$1/bin/java -cp $OUT/classes EvalMixed $ROUNDS"; }
bias_cmd() {
  echo "$1/bin/java -XX:-UseCountedLoopSafepoints -XX:CompileCommand=quiet \
-XX:CompileCommand=dontinline,EvalBias::hot -cp $OUT/classes EvalBias $SECONDS_BIAS"
}

START=$(date +%s)
echo "eval.sh: event=$EVENT interval=$INTERVAL, JDK $JAVA_HOME, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
JFR17=false; jfr_usable "$JAVA_HOME" && JFR17=true
JFR25=false; [ "$JDK25" != none ] && jfr_usable "$JDK25" && JFR25=true
if [ ${#USER_CMD[@]} -gt 0 ]; then
  # Your program: agreement runs, then alternating rounds of every mode for the slowdown.
  for m in thread queue; do run "user-compare-$m" user "$m" "$JAVA_HOME" ",compare" "${USER_CMD[@]}"; done
  for r in $(seq "$REPS"); do
    for m in none "${MODES[@]}"; do run "user-$m-$r" user "$m" "$JAVA_HOME" "" "${USER_CMD[@]}"; done
    $JFR17 && run "user-jfr-$r" user jfr "$JAVA_HOME" "" "${USER_CMD[@]}"
  done
else
  "$JAVA_HOME/bin/javac" -d "$OUT/classes" "$HERE"/java/*.java || exit 1
  echo "safepoint bias (EvalBias: hot counted loop without polls beside ordinary code):"
  for m in "${MODES[@]}"; do run "bias-$m" bias "$m" "$JAVA_HOME" "" $(bias_cmd "$JAVA_HOME"); done
  $JFR17 && run bias-jfr bias jfr "$JAVA_HOME" "" $(bias_cmd "$JAVA_HOME")
  $JFR25 && run bias-jfr25 bias jfr "$JDK25" "" $(bias_cmd "$JDK25")
  echo "agreement with the in-handler walk (EvalMixed with compare):"
  for m in thread queue; do run "compare-$m" mixed "$m" "$JAVA_HOME" ",compare" $(mixed_cmd "$JAVA_HOME"); done
  echo "costs and slowdown (EvalMixed, $REPS alternating rounds):"
  for r in $(seq "$REPS"); do
    for m in none "${MODES[@]}"; do run "mixed-$m-$r" mixed "$m" "$JAVA_HOME" "" $(mixed_cmd "$JAVA_HOME"); done
    $JFR17 && run "mixed-jfr-$r" mixed jfr "$JAVA_HOME" "" $(mixed_cmd "$JAVA_HOME")
  done
  if $JFR25; then
    run mixed25-none-1 mixed none "$JDK25" "" $(mixed_cmd "$JDK25")
    run mixed25-jfr-1 mixed jfr "$JDK25" "" $(mixed_cmd "$JDK25")
  fi
fi
echo "runs took $(($(date +%s) - START)) s; load now $(cut -d' ' -f1-3 /proc/loadavg)"
python3 "$HERE/report.py" "$OUT" --event "$EVENT" --interval "$INTERVAL" --jdk "$JAVA_HOME"
