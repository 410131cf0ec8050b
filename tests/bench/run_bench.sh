#!/usr/bin/env bash
# run_bench.sh BUILD_DIR - full-walk time of ASGST and of AsyncGetCallTrace, measured in the
# same SIGPROF handler of the same run (the walk test agent with bench=1; the order of the
# two walks alternates per sample), for stacks of about 10, 50 and 200 frames, compiled and
# interpreted (-Xint), one JVM per stack depth so that the sampled thread runs alone.
# Both walkers write their frames to the same kind of buffer: one per thread, reused for
# every sample, as a profiler keeps it (the agent copies it into its sample ring after the
# timed spans).
# On the default JDK and on each other JDK the tests use (tests/jdks/list.sh).
# After each JDK's stack-depth runs: the javac workload (javac_bench.sh: error shares, walk
# time median/p90/p99/max of both walkers on cold, deep, mixed-tier code).
# Prints medians, their ratio (budget: <= 0.3 at 50 frames; that case runs in BENCH50_RUNS
# JVMs, default 3, and their median ratio is the figure), the median time of a walk that
# stops at the first Java frame (the fixed part) and the median ASGST_GetMethodInfo time
# (budget: < 200 ns), and the ASGST_Initialize time with 1k, 10k and 50k classes loaded
# (attach_bench.sh; budget < 100 ms at 50k). BENCH_SECONDS sets the length of each run (default 6).
# ASPROF_HOME (a build of async-profiler from its public source) adds its walker's error
# share on the javac workload (javac_asprof.sh).
set -u
BUILD=$(cd "${1:?build dir}" && pwd)
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/java-17-openjdk-amd64}
AGENT=$BUILD/tests/jvm/libwalk_agent.so
SECS=${BENCH_SECONDS:-6}
RUNS50=${BENCH50_RUNS:-3} # JVMs for the 50-frame compiled case
WORK=$BUILD/bench
mkdir -p "$WORK/classes"
# The bucket of stack depths each workload's samples fall in (see walk_report.c).
declare -A BUCKET=([bench10]="5-20" [bench50]="35-75" [bench200]="150-320")

# median_of VALUES...: the middle value (the lower middle of an even count), "none" if none.
median_of() {
  printf '%s\n' "$@" | grep . | sort -n | awk '{v[NR] = $1} END {print NR ? v[int((NR + 1) / 2)] : "none"}'
}

# bench_jdk LABEL JAVA_HOME: the walk benchmark on one JDK.
bench_jdk() {
  local label=$1 home=$2 mode w flags log line
  echo "== walk time on $label ($home)"
  "$home/bin/javac" -d "$WORK/classes" "$ROOT/tests/jvm/java/walk/Workload.java" || return
  for mode in compiled interpreted; do
    flags=""
    [ "$mode" = interpreted ] && flags="-Xint"
    for w in bench10 bench50 bench200; do
      # The budgeted case gets several JVMs: with the same build and JDK, one JVM's median
      # lands in one of two modes up to a third apart (not the JIT's code, the frame cache
      # or 4K aliasing; the same with address randomization off), so one says little.
      local runs=1 r ratios=""
      [ "$mode" = compiled ] && [ "$w" = bench50 ] && runs=$RUNS50
      for r in $(seq "$runs"); do
        log=$WORK/bench-$label-$mode-$w-$r.log
        (cd "$WORK" && "$home/bin/java" $flags -Xss8m \
          "-agentpath:$AGENT=label=$mode,bench=1,interval_us=200" \
          -cp "$WORK/classes" Workload "$w" "$SECS") >"$log" 2>&1
        line=$(grep -E "^WALK # figure: bench=$mode frames=${BUCKET[$w]} " "$log" | sed 's/^WALK # figure: //')
        echo "${line:-bench=$mode workload=$w: no samples (log: ${log#$BUILD/})}"
        ratios="$ratios $(sed -n 's/.* ratio=\([0-9.]*\).*/\1/p' <<<"$line")"
      done
      [ "$runs" -gt 1 ] && echo "# figure: ratio at 50 compiled frames on $label, $runs JVMs:$ratios; median $(median_of $ratios) (budget <= 0.30)"
    done
  done
  bash "$ROOT/tests/bench/attach_bench.sh" "$BUILD" "$home"
  # Queue processing: suspend to resume per owner (budget: median < 10 us).
  local q
  q=$(cd "$WORK" && "$home/bin/java" -Xss4m "-agentpath:$BUILD/tests/jvm/libqueue_agent.so=interval_us=1000" \
    -cp "$WORK/classes" Workload tiers "$SECS" 2>&1 | grep -E "^QUEUE # figure: (processing|stale)" | sed 's/^QUEUE # figure: //')
  echo "# figure: queue on $label: ${q//$'\n'/; }"
}

# The javac workload (cold, deep, mixed tiers) on one JDK: error shares and walk time
# percentiles of both walkers (tests/bench/javac_bench.sh); with ASPROF_HOME set (a build
# of async-profiler), the error share of async-profiler's walker on the same workload.
javac_jdk() {
  echo
  bash "$ROOT/tests/bench/javac_bench.sh" "$BUILD" "$1"
  if [ -n "${ASPROF_HOME:-}" ]; then bash "$ROOT/tests/bench/javac_asprof.sh" "$BUILD" "$ASPROF_HOME" "$1"
  else echo "# javac under async-profiler: not run (set ASPROF_HOME to a build of it)"; fi
}

# The default JDK, then one build of every other feature version the tests use.
bench_jdk default "$JAVA_HOME"
javac_jdk "$JAVA_HOME"
seen=" $(sed -n -e 's/^JAVA_VERSION="1\.\([0-9]*\).*/\1/p;t' -e 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$JAVA_HOME/release" 2>/dev/null | head -1) "
while read -r label home; do
  v=${label#jdk}; v=${v%%-*}
  case "$home" in SKIP*) continue ;; esac
  case "$seen" in *" $v "*) continue ;; esac
  seen="$seen$v "
  echo
  bench_jdk "$label" "$home"
  javac_jdk "$home"
done < <(JAVA_HOME=$JAVA_HOME "$ROOT/tests/jdks/list.sh")
echo

# The other benchmarks of the project: method info accessor cost, demo profiler overhead.
for extra in "$ROOT/tests/bench/method_info_bench.sh" "$ROOT/profiler-demo/bench/overhead.sh"; do
  [ -f "$extra" ] && { echo; bash "$extra" "$BUILD"; }
done
