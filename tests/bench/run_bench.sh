#!/usr/bin/env bash
# run_bench.sh BUILD_DIR - full-walk time of ASGST and of AsyncGetCallTrace, measured in the
# same SIGPROF handler of the same run (the walk test agent with bench=1; the order of the
# two walks alternates per sample), for stacks of about 10, 50 and 200 frames, compiled and
# interpreted (-Xint). Prints medians, their ratio (budget: <= 0.4 at 50 frames) and the
# median ASGST_GetMethodInfo time (budget: < 200 ns). BENCH_SECONDS sets the run length.
set -u
BUILD=$(cd "${1:?build dir}" && pwd)
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/java-17-openjdk-amd64}
AGENT=$BUILD/tests/jvm/libwalk_agent.so
SECS=${BENCH_SECONDS:-10}
WORK=$BUILD/bench
mkdir -p "$WORK/classes"
"$JAVA_HOME/bin/javac" -d "$WORK/classes" "$ROOT/tests/jvm/java/walk/Workload.java" || exit 1

for mode in compiled interpreted; do
  flags=""
  [ "$mode" = interpreted ] && flags="-Xint"
  log=$WORK/bench-$mode.log
  (cd "$WORK" && "$JAVA_HOME/bin/java" $flags -Xss8m "-agentpath:$AGENT=label=$mode,bench=1,interval_us=300" \
    -cp "$WORK/classes" Workload bench10+bench50+bench200 "$SECS") >"$log" 2>&1
  grep -E '^WALK # figure: bench=' "$log" | sed 's/^WALK # figure: //'
  grep -E '^WALK # figure: workload=' "$log" | sed 's/^WALK # figure: /  (/; s/$/)/'
done
