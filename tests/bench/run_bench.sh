#!/usr/bin/env bash
# run_bench.sh BUILD_DIR - the benchmarks, on every release: the default JDK ($JAVA_HOME,
# JDK 17) and one build of each other feature version the tests use (tests/jdks/list.sh).
# A JDK newer than the newest tested (budget.sh, NEWEST_TESTED) runs only with
# ASGST_TEST_UNTESTED_JDK=1, the test agents' opt-in, and its budget lines are marked
# "(untested JDK, not budgeted)". Per release:
#   - ASGST_Initialize in that JDK (the walk test agent in a JVM running -version); when it
#     fails, one "not ok - JDK N: ASGST_Initialize failed: <reason>" line and the next JDK;
#   - full-walk time of the shipped libasgst.so and of AsyncGetCallTrace, measured in the
#     same SIGPROF handler of the same run, at about 10, 50 and 200 frames, compiled and
#     interpreted (-Xint), and a walk with 21 C frames against the Java-only walk
#     (walk_bench.sh: the agent built from the public header against an install, as the
#     README tells; medians of 3 JVMs; the static test build's figures beside, marked; the
#     stall probe's rate printed with each release's block);
#   - ASGST_Initialize with 1k, 10k and 50k classes loaded (attach_bench.sh; <= 10 ms at 50k,
#     its CPU time flat in the class count);
#   - queue processing (the queue test agent): stale elements (< 5%) and the median time
#     from suspending a queue's owner to resuming it (a figure, not budgeted);
#   - the javac workload (javac_bench.sh: error shares and walk time percentiles of both
#     walkers on cold, deep, mixed-tier code, 3 runs; ASGST p99 <= 0.5 x ASGCT's and
#     p99.9 <= ASGCT's, medians of the runs, the max a figure; error share <=
#     async-profiler's with ASPROF_HOME set, else <= 1%);
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
# Words after BUILD_DIR: `walk` runs the walk block only (walk_bench.sh, every release:
# about 1 min a release); `busy` runs everything beside one `while :; do :; done` per core
# (started before the first JVM, ended with the bench; every budget line then says
# "beside busy loops"); `jdk=N` (repeatable) or BENCH_JDKS="8 17 25" picks releases.
# BENCH_SECONDS sets the length of the queue run (default 6); walk_bench.sh's knobs:
# BENCH_WALK_SECONDS, BENCH_RUNS, BENCH_WARMUP, BENCH_STATIC_RUNS. ASPROF_HOME: a
# build of async-profiler from its public source (javac_asprof.sh).
set -u
BUILD=$(cd "${1:?build dir}" && pwd)
shift
ONLY_WALK=0 BUSY=0
for w in "$@"; do
  case "$w" in
    walk) ONLY_WALK=1 ;;
    busy) BUSY=1 ;;
    jdk=*) BENCH_JDKS="${BENCH_JDKS:+$BENCH_JDKS }${w#jdk=}" ;;
    *) echo "run_bench.sh: unknown word '$w' (walk, busy, jdk=N)" >&2; exit 2 ;;
  esac
done
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
. "$ROOT/tests/bench/budget.sh"
JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/java-17-openjdk-amd64}
AGENT=$BUILD/tests/jvm/libwalk_agent.so
SECS=${BENCH_SECONDS:-6}
WORK=$BUILD/bench
mkdir -p "$WORK"
BENCH_UNTESTED=0

# sub SCRIPT ARGS...: another benchmark script; a non-zero exit status is a failure of the
# bench itself (its budgets print their own lines).
sub() {
  bash "$@"
  local rc=$?
  [ $rc = 0 ] || echo "# $(basename "$1") exited with status $rc"
}

# walk_runs MAJOR HOME: the walk time budgets on the shipped library (walk_bench.sh), then
# Workload.java compiled for the queue run.
walk_runs() {
  local major=$1 home=$2 out
  sub "$ROOT/tests/bench/walk_bench.sh" "$BUILD" "$home"
  mkdir -p "$WORK/classes-$major"
  if ! out=$("$home/bin/javac" -d "$WORK/classes-$major" "$ROOT/tests/jvm/java/walk/Workload.java" 2>&1); then
    echo "$out" | head -5
    return 1
  fi
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
  if [ "$ONLY_WALK" = 1 ]; then
    sub "$ROOT/tests/bench/walk_bench.sh" "$BUILD" "$home"
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

# wanted MAJOR: true if BENCH_JDKS is unset or lists MAJOR.
wanted() {
  [ -z "${BENCH_JDKS:-}" ] && return 0
  case " $BENCH_JDKS " in *" $1 "*) return 0 ;; esac
  return 1
}

# The default JDK, then one build of every other feature version the tests use (those of
# BENCH_JDKS only, when set).
all_releases() {
  local seen label home v
  v=$(jdk_major "$JAVA_HOME")
  wanted "$v" && release default "$JAVA_HOME"
  seen=" $v "
  while read -r label home; do
    v=${label#jdk}; v=${v%%-*}
    case "$home" in SKIP* | FAIL*) continue ;; esac
    case "$seen" in *" $v "*) continue ;; esac
    seen="$seen$v "
    wanted "$v" && release "$label" "$home"
  done < <(JAVA_HOME=$JAVA_HOME "$ROOT/tests/jdks/list.sh")
}

# busy_start: one `while :; do :; done` per core for the whole run (`busy`); busy_stop ends
# them (by their process ids).
BUSY_PIDS=()
busy_start() {
  local i
  for i in $(seq "$(nproc)"); do
    bash -c 'while :; do :; done' </dev/null >/dev/null 2>&1 &
    BUSY_PIDS+=($!)
  done
  BUSY_LINE="# beside busy loops: $(nproc) x 'while :; do :; done' (one per core) run for the whole bench, pids ${BUSY_PIDS[*]}"
}
busy_stop() {
  [ ${#BUSY_PIDS[@]} -gt 0 ] && kill "${BUSY_PIDS[@]}" 2>/dev/null
  BUSY_PIDS=()
}

# JVMs run in $WORK (or below it), so their crash files land there.
START=$WORK/.bench-start
touch "$START"
cd "$WORK" || exit 1
BUSY_LINE=""
if [ "$BUSY" = 1 ]; then
  trap busy_stop EXIT
  trap 'busy_stop; exit 130' INT TERM
  export BENCH_BUSY_NOTE="beside busy loops"
  busy_start
fi
T0=$SECONDS
{
  [ -n "$BUSY_LINE" ] && echo "$BUSY_LINE"
  all_releases
  if [ "$ONLY_WALK" = 1 ]; then
    echo "# walk bench took $((SECONDS - T0)) s"
    exit 0
  fi
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
