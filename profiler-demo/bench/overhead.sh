#!/usr/bin/env bash
# overhead.sh BUILD_DIR - the profiler's overhead on a CPU-bound Java workload: the same
# fixed work without an agent, with the agent at event=cpu,interval=1ms, and with JFR at
# its shortest execution sampling period (jdk.ExecutionSample#period=1ms). One run each;
# prints the work times and the ratios to the run without an agent.
set -uo pipefail
BUILD=$(cd "${1:?usage: overhead.sh BUILD_DIR}" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd)
JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/java-17-openjdk-amd64}
JAVA=$JAVA_HOME/bin/java
ROUNDS=${ROUNDS:-250}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/asgstprof-bench.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
"$JAVA_HOME/bin/javac" -d "$WORK" "$HERE/Bench.java" || exit 1

# work_ms LABEL JVM_ARGS...: runs the workload, prints and returns its work time.
work_ms() {
  local label=$1; shift
  local ms
  ms=$("$JAVA" "$@" -cp "$WORK" Bench "$ROUNDS" 2>"$WORK/$label.err" | awk '/^work_ms/ {print $2}')
  echo "${ms:-0}"
}

base=$(work_ms none)
agent=$(work_ms agent "-agentpath:$BUILD/lib/libasgstprof.so=event=cpu,interval=1ms,file=$WORK/p.collapsed")
jfr=$(work_ms jfr "-XX:StartFlightRecording:jdk.ExecutionSample#period=1ms,filename=$WORK/r.jfr")
samples=$(awk '{s += $NF} END {print s + 0}' "$WORK/p.collapsed" 2>/dev/null)
walk=$(grep -o 'median [0-9.]* us' "$WORK/agent.err" | head -1)
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.3f", a / b; else print "n/a" }'; }
echo "workload: $ROUNDS rounds of Bench (hash, sieve, matrix, sort), one run each"
printf '  %-38s %6s ms\n' "no agent" "$base"
printf '  %-38s %6s ms  ratio %s  (%s samples, walk %s)\n' "asgst-prof event=cpu,interval=1ms" \
  "$agent" "$(ratio "$agent" "$base")" "$samples" "$walk"
printf '  %-38s %6s ms  ratio %s\n' "JFR jdk.ExecutionSample#period=1ms" "$jfr" "$(ratio "$jfr" "$base")"
echo "# figure: overhead at 1 ms cpu sampling: agent/no-agent $(ratio "$agent" "$base"), JFR/no-agent $(ratio "$jfr" "$base")"
