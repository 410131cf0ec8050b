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

# measure LABEL JVM_ARGS...: runs the workload; prints "elapsed_ms cpu_ms".
measure() {
  local label=$1; shift
  local r
  r=$("$JAVA" "$@" -cp "$WORK" Bench "$ROUNDS" 2>"$WORK/$label.err" | awk '/^work_ms/ {print $2, $4}')
  echo "${r:-0 0}"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.3f", a / b; else print "n/a" }'; }

read -r base_ms base_cpu < <(measure none)
read -r agent_ms agent_cpu < <(measure agent \
  "-agentpath:$BUILD/lib/libasgstprof.so=event=cpu,interval=1ms,file=$WORK/p.collapsed")
read -r jfr_ms jfr_cpu < <(measure jfr \
  "-XX:StartFlightRecording:jdk.ExecutionSample#period=1ms,filename=$WORK/r.jfr")
read -r again_ms again_cpu < <(measure none2)
samples=$(awk '{s += $NF} END {print s + 0}' "$WORK/p.collapsed" 2>/dev/null)
walk=$(grep -o 'median [0-9.]* us' "$WORK/agent.err" | head -1)
echo "workload: $ROUNDS rounds of Bench (hash, sieve, matrix, sort), one run each;"
echo "times of the work (after warm-up): elapsed and the working thread's CPU time"
row() { printf '  %-36s %6s ms elapsed (x%s)  %6s ms cpu (x%s)  %s\n' "$1" "$2" \
  "$(ratio "$2" "$base_ms")" "$3" "$(ratio "$3" "$base_cpu")" "${4:-}"; }
row "no agent" "$base_ms" "$base_cpu"
row "asgst-prof event=cpu,interval=1ms" "$agent_ms" "$agent_cpu" "($samples samples, walk $walk)"
row "JFR jdk.ExecutionSample#period=1ms" "$jfr_ms" "$jfr_cpu"
row "no agent again (noise)" "$again_ms" "$again_cpu"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
echo "# figure: overhead at 1 ms cpu sampling (thread CPU time): agent/no-agent $(ratio "$agent_cpu" "$base_cpu"), JFR/no-agent $(ratio "$jfr_cpu" "$base_cpu"), no-agent rerun $(ratio "$again_cpu" "$base_cpu")"
