#!/usr/bin/env bash
# run_bench.sh BUILD_DIR - the benchmarks, on every release: the default JDK ($JAVA_HOME,
# JDK 17) and one build of each other feature version the tests use (tests/jdks/list.sh).
# A JDK newer than the newest tested (budget.sh, NEWEST_TESTED) runs only with
# ASGST_TEST_UNTESTED_JDK=1, the test agents' opt-in, and its budget lines are marked
# "(untested JDK, not budgeted)". Per release:
#   - ASGST_Initialize in that JDK (the walk test agent in a JVM running -version); when it
#     fails, one "not ok - JDK N: ASGST_Initialize failed: <reason>" line and the next JDK;
#   - full-walk time of ASGST and of AsyncGetCallTrace, measured in the same SIGPROF handler
#     of the same run (the walk test agent with bench=1; the order of the two walks
#     alternates per sample), for stacks of about 10, 50 and 200 frames, compiled and
#     interpreted (-Xint), one JVM per stack depth so that the sampled thread runs alone.
#     The medians count the samples where both walks succeeded with the same frame count
#     (walk_compare.c), so neither side's fast error returns enter them. Both walkers write
#     their frames to the same kind of buffer: one per thread, reused for every sample, as a
#     profiler keeps it. Budget: ASGST/ASGCT median ratio <= 0.30 at 50 compiled frames, as
#     the median of BENCH50_RUNS JVMs (default 3);
#   - ASGST_Initialize with 1k, 10k and 50k classes loaded (attach_bench.sh; <= 10 ms at 50k,
#     its CPU time flat in the class count);
#   - queue processing (the queue test agent): stale elements (< 5%) and the median time
#     from suspending a queue's owner to resuming it (a figure, not budgeted);
#   - the javac workload (javac_bench.sh: error shares and walk time percentiles of both
#     walkers on cold, deep, mixed-tier code; ASGST p99 <= 0.5 x ASGCT's, max <= ASGCT's,
#     error share <= async-profiler's with ASPROF_HOME set, else <= 1%);
#   - ASGST_GetMethodInfo time (method_info_bench.sh; < 200 ns);
#   - the demo profiler's overhead at 1 ms cpu sampling against JFR's (and async-profiler's
#     with ASPROF_HOME set) in alternating runs (profiler-demo/bench/overhead.sh);
#   - async-profiler's converter (jfrconv, ASPROF_HOME) reading the demo's .jfr, its top-10
#     self methods within 1 point of ours (test_jfr.sh's check; without ASPROF_HOME a line
#     says it was not run).
# Then, once for all releases 17+: queues with and without the opt-in real-time scheduling,
# quiet and beside a busy loop (queue_sched.sh: stale share and owner's cost, a table).
# And once over the JDKs: the demo profiler and async-profiler sampling cpu in one JVM
# (two_agents.sh: both load orders and a late attach; needs ASPROF_HOME and fails without).
# Every budget prints one "ok - ..." or "not ok - ..." line per release besides its
# "# figure:" lines (budget.sh); the last line is "bench budgets: N ok, N not ok". The bench
# is not a test: it exits 0 unless a JVM crashed (an hs_err file) or a script failed.
# BENCH_SECONDS sets the length of each walk run (default 6). ASPROF_HOME: a build of
# async-profiler from its public source (javac_asprof.sh).
set -u
BUILD=$(cd "${1:?build dir}" && pwd)
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
. "$ROOT/tests/bench/budget.sh"
JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/java-17-openjdk-amd64}
AGENT=$BUILD/tests/jvm/libwalk_agent.so
SECS=${BENCH_SECONDS:-6}
RUNS50=${BENCH50_RUNS:-3} # JVMs for the 50-frame compiled case
WORK=$BUILD/bench
mkdir -p "$WORK"
# The bucket of stack depths each workload's samples fall in (see walk_report.c).
declare -A BUCKET=([bench10]="5-20" [bench50]="35-75" [bench200]="150-320")
BENCH_UNTESTED=0

# median_of VALUES...: the middle value (the lower middle of an even count), "none" if none.
median_of() {
  printf '%s\n' "$@" | grep . | sort -n | awk '{v[NR] = $1} END {print NR ? v[int((NR + 1) / 2)] : "none"}'
}

# sub SCRIPT ARGS...: another benchmark script; a non-zero exit status is a failure of the
# bench itself (its budgets print their own lines).
sub() {
  bash "$@"
  local rc=$?
  [ $rc = 0 ] || echo "# $(basename "$1") exited with status $rc"
}

# walk_runs MAJOR HOME: the walk time runs of one JDK and the 50-frame ratio budget.
walk_runs() {
  local major=$1 home=$2 mode w flags log line what out
  what="JDK $major: 50 compiled frames, ASGST/ASGCT median walk time ratio <= 0.30"
  echo "== walk time on JDK $major ($home)"
  mkdir -p "$WORK/classes-$major"
  if ! out=$("$home/bin/javac" -d "$WORK/classes-$major" "$ROOT/tests/jvm/java/walk/Workload.java" 2>&1); then
    echo "$out" | head -5
    budget 0 "$what" "no figure: Workload.java does not compile: $(grep -m1 error <<<"$out")"
    return 1
  fi
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
        log=$WORK/bench-$major-$mode-$w-$r.log
        (cd "$WORK" && "$home/bin/java" $flags -Xss8m \
          "-agentpath:$AGENT=label=$mode,bench=1,interval_us=200" \
          -cp "$WORK/classes-$major" Workload "$w" "$SECS") >"$log" 2>&1
        # The time line (samples=...), then the instruction and cycle counts where the
        # machine has counters.
        line=$(grep -E "^WALK # figure: bench=$mode frames=${BUCKET[$w]} samples=" "$log" | sed 's/^WALK # figure: //')
        echo "# figure: ${line:-bench=$mode workload=$w: no samples (log: ${log#$BUILD/})}"
        grep -E "^WALK # figure: bench=$mode frames=${BUCKET[$w]} asgst_median_instructions=" "$log" | sed 's/^WALK //'
        ratios="$ratios $(field ratio "$line")"
      done
      [ "$runs" -gt 1 ] && echo "# figure: ratio at 50 compiled frames on JDK $major, $runs JVMs:$ratios; median $(median_of $ratios) (budget <= 0.30)"
      if [ "$mode" = compiled ] && [ "$w" = bench50 ]; then
        local m
        m=$(median_of $ratios)
        if [ "$m" = none ]; then budget 0 "$what" "no figure: no samples at 50 frames (logs: bench/bench-$major-compiled-bench50-*.log)"
        elif [ "$runs" = 1 ]; then budget "$(le "$m" 0.30 && echo 1)" "$what" "$m vs <= 0.30, one JVM"
        else budget "$(le "$m" 0.30 && echo 1)" "$what" "$m vs <= 0.30, median of $runs JVMs:$ratios"
        fi
      fi
    done
  done
}

# queue_run MAJOR HOME: queue processing, stale elements (budget < 5%) and the median time
# from suspending a queue's owner to resuming it (reported).
queue_run() {
  local major=$1 home=$2 q stale med what
  what="JDK $major: queue, stale elements < 5%"
  q=$(cd "$WORK" && "$home/bin/java" -Xss4m "-agentpath:$BUILD/tests/jvm/libqueue_agent.so=interval_us=1000" \
    -cp "$WORK/classes-$major" Workload tiers "$SECS" 2>&1)
  echo "# figure: queue on JDK $major: $(grep -E "^QUEUE # figure: (processing|stale)" <<<"$q" | sed 's/^QUEUE # figure: //' | paste -sd ';' | sed 's/;/; /g')"
  stale=$(sed -n 's/^QUEUE # figure: stale rate \([0-9.]*\)%.*/\1/p' <<<"$q" | head -1)
  med=$(sed -n 's/^QUEUE # figure: processing .* suspend_to_resume_median_us=\([0-9.]*\).*/\1/p' <<<"$q" | head -1)
  if [ -z "$stale" ]; then
    budget 0 "$what" "no figure: $(grep -m1 'not ok' <<<"$q" || tail -1 <<<"$q")"
  else
    budget "$(lt "$stale" 5 && echo 1)" "$what" "$stale% vs < 5%; suspend-to-resume median ${med:-?} us, reported, not budgeted"
  fi
}

# jfrconv_run MAJOR HOME: test_jfr.sh's converter check as a budget line.
jfrconv_run() {
  local what="JDK $1: async-profiler's jfrconv reads the demo's .jfr, top-10 self methods within 1 point"
  if [ -z "${ASPROF_HOME:-}" ]; then
    echo "# $what: not run (ASPROF_HOME not set)"
    return
  fi
  local line
  line=$(JAVA_HOME=$2 bash "$ROOT/profiler-demo/tests/test_jfr.sh" "$BUILD" 2>&1 | grep -E "^(not )?ok [0-9]+ - async-profiler's converter")
  case "$line" in
    "ok "*"# SKIP"*) echo "# $what: not run (${line#*# SKIP })" ;;
    "ok "*) budget 1 "$what" "${line#*- }" ;;
    *) budget 0 "$what" "${line:-no figure: test_jfr.sh printed no converter line}" ;;
  esac
}

# release LABEL HOME: every benchmark on one JDK.
release() {
  local label=$1 home=$2 major why
  major=$(jdk_major "$home")
  echo
  echo "=== JDK ${major:-?} ($label, $home)"
  BENCH_UNTESTED=0
  if jdk_untested "$home"; then
    if [ "${ASGST_TEST_UNTESTED_JDK:-}" != 1 ]; then
      echo "# JDK $major: not run (newer than the newest tested, $NEWEST_TESTED; ASGST_TEST_UNTESTED_JDK=1 runs it, not budgeted)"
      return
    fi
    # shellcheck disable=SC2034 # read by budget()
    BENCH_UNTESTED=1
  fi
  why=$(init_failure "$home" "$AGENT")
  if [ -n "$why" ]; then
    budget 0 "JDK $major: ASGST_Initialize failed: $why"
    return
  fi
  if walk_runs "$major" "$home"; then queue_run "$major" "$home"
  else budget 0 "JDK $major: queue, stale elements < 5%" "no figure: Workload.java does not compile"
  fi
  sub "$ROOT/tests/bench/attach_bench.sh" "$BUILD" "$home"
  echo
  sub "$ROOT/tests/bench/javac_bench.sh" "$BUILD" "$home"
  echo
  sub "$ROOT/tests/bench/method_info_bench.sh" "$BUILD" "$home"
  echo
  JAVA_HOME=$home sub "$ROOT/profiler-demo/bench/overhead.sh" "$BUILD"
  jfrconv_run "$major" "$home"
}

# The default JDK, then one build of every other feature version the tests use.
all_releases() {
  release default "$JAVA_HOME"
  local seen label home v
  seen=" $(jdk_major "$JAVA_HOME") "
  while read -r label home; do
    v=${label#jdk}; v=${v%%-*}
    case "$home" in SKIP* | FAIL*) continue ;; esac
    case "$seen" in *" $v "*) continue ;; esac
    seen="$seen$v "
    release "$label" "$home"
  done < <(JAVA_HOME=$JAVA_HOME "$ROOT/tests/jdks/list.sh")
}

# JVMs run in $WORK (or below it), so their crash files land there.
START=$WORK/.bench-start
touch "$START"
cd "$WORK" || exit 1
{
  all_releases
  echo
  echo "=== Queues with and without the opt-in real-time scheduling (queue_sched.sh)"
  sub "$ROOT/tests/bench/queue_sched.sh" "$BUILD"
  echo
  echo "=== two agents"
  sub "$ROOT/tests/bench/two_agents.sh" "$BUILD"
} 2>&1 | tee "$WORK/bench.out"
echo
crashes=$(find "$WORK" -name 'hs_err_pid*.log' -newer "$START" 2>/dev/null)
[ -n "$crashes" ] && echo "# JVM crashes during the bench: $(echo $crashes)"
echo "bench budgets: $(grep -c '^ok - ' "$WORK/bench.out") ok, $(grep -c '^not ok - ' "$WORK/bench.out") not ok"
[ -z "$crashes" ] && ! grep -q '^# [a-z_]*\.sh exited with status' "$WORK/bench.out"
