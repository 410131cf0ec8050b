#!/usr/bin/env bash
# javac_bench.sh BUILD_DIR [JAVA_HOME...] - the walker on cold, deep, mixed-tier code: javac
# compiles about 300 generated classes (gen_javac_sources.sh) under the walk test agent,
# which samples every millisecond (bench=1: both walks timed in the same SIGPROF handler).
# Prints per JDK: samples, the error share of ASGST by error code and of AsyncGetCallTrace
# by its codes (over samples of threads with Java frames; ASGCT's -3, "not Java", is a
# thread without Java frames and counts as no error), and the walk time median/p90/p99/max
# of both (the agent's times= line).
# javac runs JAVAC_RUNS times per JDK (default 3). Budgets (docs/budgets.md), one "ok -" or
# "not ok -" line each per JDK (budget.sh):
#   - ASGST's walk p99 <= 0.5 x AsyncGetCallTrace's p99, same handler, same run: the median
#     of the runs' ratios;
#   - ASGST's walk p99.9 <= AsyncGetCallTrace's p99.9: the median of the runs' p99.9 of
#     each (the max, one sample that a machine stall decides, is printed as a figure);
#   - ASGST's error share (the median of the runs') no higher than async-profiler's own
#     walker on the same workload when ASPROF_HOME is set (javac_asprof.sh runs it right
#     after), else <= 1%.
# The time percentiles should count only walks that succeeded (ASGCT: num_frames > 0; ASGST:
# no error), each walker's own. When the agent's times= line says how many walks it kept
# (asgst_walks=, asgct_walks=) they do; without those fields it kept every sample, failed
# walks included, and the budget lines say so.
# Timing on these shared 2-core machines is noisy, so the budgets are ratios to ASGCT in the
# same run rather than absolute times. Before the runs, stall_probe measures how often the
# machine takes the CPU away for over 20 us; after each, the share of walks that absorbed
# such a stall is printed (stall_share).
# The agent runs with slow=1: ASGST walks first in every sample (the cold position; ASGCT
# then runs second), and each walk's thread CPU time is read too, so the figures also give
# the walker's time without the machine's: CPU time percentiles and the wall time of the
# walks that were not descheduled (a walk the scheduler interrupts keeps its wall time).
# Without JAVA_HOME arguments: $JAVA_HOME (default JDK 17). JAVAC_CLASSES sets the class
# count (default 300), JAVAC_AGENT_OPTS adds walk agent options (e.g. diag=1). A JDK newer
# than the newest tested runs with the agents' opt-in only when ASGST_TEST_UNTESTED_JDK=1,
# its budget lines marked "(untested JDK, not budgeted)" (budget.sh).
set -u
BUILD=$(cd "${1:?build dir}" && pwd)
shift
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
. "$ROOT/tests/bench/budget.sh"
. "$ROOT/tests/bench/javac_run.sh"
AGENT=$BUILD/tests/jvm/libwalk_agent.so
WORK=$BUILD/bench/javac
N=${JAVAC_CLASSES:-300}
RUNS=${JAVAC_RUNS:-3}
[ $# -gt 0 ] || set -- "${JAVA_HOME:-/usr/lib/jvm/java-17-openjdk-amd64}"
[ -f "$AGENT" ] || { echo "javac bench: no walk agent at $AGENT"; exit 1; }
mkdir -p "$WORK"
# The generated sources, written again when N or the generator changed.
STAMP="$N $(cksum <"$ROOT/tests/bench/gen_javac_sources.sh")"
[ "$(cat "$WORK/gen/.stamp" 2>/dev/null)" = "$STAMP" ] ||
  { bash "$ROOT/tests/bench/gen_javac_sources.sh" "$WORK" "$N" && echo "$STAMP" >"$WORK/gen/.stamp"; }

# javac_jdk JAVA_HOME: RUNS javac runs under the agent; prints their figures and the budget
# lines.
javac_jdk() {
  local home=$1 v major log logs="" r
  v=$(sed -n 's/^JAVA_VERSION="\([^"]*\)".*/\1/p' "$home/release" 2>/dev/null)
  major=$(jdk_major "$home")
  echo "== javac ($N classes, $RUNS runs) on JDK ${v:-?} ($home)"
  local BENCH_UNTESTED=0
  if jdk_untested "$home"; then
    [ "${ASGST_TEST_UNTESTED_JDK:-}" = 1 ] ||
      { echo "# JDK $major: not run (newer than the newest tested, $NEWEST_TESTED; ASGST_TEST_UNTESTED_JDK=1 runs it, not budgeted)"; return; }
    # shellcheck disable=SC2034 # read by budget()
    BENCH_UNTESTED=1
  fi
  local why="" shares=""
  for r in $(seq "$RUNS"); do
    log=$WORK/javac-${v:-unknown}-$r.log
    rm -rf "$WORK/out" && mkdir -p "$WORK/out"
    local t0=$SECONDS
    (cd "$WORK" && javac_run "$home" \
      "-agentpath:$AGENT=label=javac,bench=1,slow=1,interval_us=1000${JAVAC_AGENT_OPTS:+,$JAVAC_AGENT_OPTS}" \
      -d out gen/*.java) >"$log" 2>&1
    local rc=$?
    why=$(sed -n 's/^WALK not ok - ASGST_Initialize: /ASGST_Initialize failed: /p' "$log" | head -1)
    if [ $rc != 0 ]; then
      echo "javac exit status $rc (log: $log)"; tail -3 "$log"
      why=${why:-javac exit status $rc}
      break
    fi
    echo "# run $r: javac took $((SECONDS - t0)) s"
    grep -E '^WALK # (figure: (workload|errors|times|cputimes|slow)=|signals=)' "$log" | sed 's/^WALK # /# /; s/ disagreements:.*//'
    stall_share "$log" "${v:-?}"
    logs="$logs $log"
    shares="$shares $(asgst_error_share "$log")"
  done
  javac_budgets "$major" "$why" $logs
  local e
  e=$(median_of $shares)
  [ "$e" = none ] && e=""
  [ -z "$why" ] && echo "# figure: javac on JDK $major, ASGST error share per run:$shares; median ${e:-none}%"
  [ -z "$why" ] && [ -n "${ASPROF_HOME:-}" ] && asprof_budget "$e" "$home" "$major"
  [ -z "$why" ] && [ -z "${ASPROF_HOME:-}" ] && error_budget_alone "$e" "$major"
  local peer="<= 1%"
  [ -n "${ASPROF_HOME:-}" ] && peer="<= async-profiler's"
  [ -n "$why" ] && budget 0 "JDK $major: javac, ASGST error share $peer" "no figure: $why"
  return 0
}


# median_of VALUES...: the middle value (the lower middle of an even count), "none" if none.
median_of() {
  printf '%s\n' "$@" | grep . | sort -n | awk '{v[NR] = $1} END {print NR ? v[int((NR + 1) / 2)] : "none"}'
}

# javac_budgets MAJOR WHY LOGS...: from the agent's times= lines of the runs, the p99
# budget (median of the runs' ASGST/ASGCT p99 ratios <= 0.5) and the p99.9 budget (median
# of the runs' ASGST p99.9 <= median of ASGCT's); the max is a figure (one sample).
javac_budgets() {
  local major=$1 why=$2 log line r99="" a999="" g999="" am="" gm="" which=""
  shift 2
  local w99="JDK $major: javac, ASGST walk p99 <= 0.5 x ASGCT's p99 (median of $RUNS runs)"
  local w999="JDK $major: javac, ASGST walk p99.9 <= ASGCT's p99.9 (medians of $RUNS runs)"
  for log in "$@"; do
    line=$(grep -E '^WALK # figure: times=' "$log" | head -1)
    local ap gp
    ap=$(field asgst_p99_ns "$line") gp=$(field asgct_p99_ns "$line")
    [ -n "$ap" ] && [ -n "$gp" ] && [ "$gp" != 0 ] && r99="$r99 $(awk -v a="$ap" -v g="$gp" 'BEGIN { printf "%.2f", a / g }')"
    a999="$a999 $(field asgst_p999_ns "$line")" g999="$g999 $(field asgct_p999_ns "$line")"
    am="$am $(field asgst_max_ns "$line")" gm="$gm $(field asgct_max_ns "$line")"
    [ -z "$which" ] && [ -n "$(field asgst_walks "$line")" ] && which="walks that succeeded, each walker's own"
  done
  which=${which:-every sample, failed walks included: the agent does not separate them yet}
  local m99 ma mg
  m99=$(median_of $r99) ma=$(median_of $a999) mg=$(median_of $g999)
  if [ "$m99" = none ]; then
    budget 0 "$w99" "no figure: ${why:-no times= line in the logs}"
  else
    budget "$(le "$m99" 0.5 && echo 1)" "$w99" "$m99 vs <= 0.50, per run:$r99; $which"
  fi
  if [ "$ma" = none ] || [ "$mg" = none ]; then
    budget 0 "$w999" "no figure: ${why:-no p999 field in the times= lines (an old walk agent?)}"
  else
    budget "$(le "$ma" "$mg" && echo 1)" "$w999" \
      "$(us "$ma") us vs <= ASGCT's $(us "$mg") us; ASGST per run:$(for x in $a999; do printf ' %s' "$(us "$x")"; done) us, ASGCT:$(for x in $g999; do printf ' %s' "$(us "$x")"; done) us"
  fi
  [ -n "${am// /}" ] && echo "# figure: javac on JDK $major, walk max (one sample, not budgeted): ASGST$(for x in $am; do printf ' %s' "$(us "$x")"; done) us, ASGCT$(for x in $gm; do printf ' %s' "$(us "$x")"; done) us per run"
  return 0
}
us() { awk -v n="$1" 'BEGIN { printf "%.1f", n / 1000 }'; }

# asgst_error_share LOG: ASGST's error share (percent of samples with Java frames).
asgst_error_share() {
  sed -n 's/^WALK # figure: errors=.* asgst_errors=[0-9]* (\([0-9.]*\)%.*/\1/p' "$1" | head -1
}

# error_budget_alone SHARE MAJOR: without async-profiler, ASGST's error share <= 1%.
error_budget_alone() {
  local e=$1
  if [ -z "$e" ]; then budget 0 "JDK $2: javac, ASGST error share <= 1%" "no figure: no errors= line"; return; fi
  budget "$(le "$e" 1 && echo 1)" "JDK $2: javac, ASGST error share <= 1%" \
    "$e% vs <= 1%; async-profiler not run: set ASPROF_HOME to a build of it"
}

# asprof_budget SHARE JAVA_HOME MAJOR: async-profiler's walker on the same workload
# (javac_asprof.sh); ASGST's error share (the median of the runs') no higher than its.
asprof_budget() {
  local e=$1 out p
  out=$(bash "$ROOT/tests/bench/javac_asprof.sh" "$BUILD" "$ASPROF_HOME" "$2")
  echo "$out"
  p=$(sed -n 's/.*asprof: samples=.* errors=[0-9]* (\([0-9.]*\)% of with_java).*/\1/p' <<<"$out" | head -1)
  if [ -z "$e" ] || [ -z "$p" ]; then
    budget 0 "JDK $3: javac, ASGST error share <= async-profiler's" \
      "no figure: ASGST ${e:-none}%, async-profiler ${p:-none: $(tail -1 <<<"$out")}"
    return
  fi
  budget "$(le "$e" "$p" && echo 1)" "JDK $3: javac, ASGST error share <= async-profiler's" "$e% vs <= $p%"
}

# stall_share LOG VERSION: the machine's stalls (stall_probe, just before the run) against
# the mean ASGST walk time of the run: the share of walks that absorbed a stall of over
# 20 us, 1 - exp(-rate * mean). Over 1%, more than 1% of the walks last over 20 us, so at
# that mean walk time the p99 cannot be under 20 us on this machine (see stall_probe.c).
stall_share() {
  local mean
  mean=$(sed -n 's/^WALK # figure: times=.* asgst_mean_ns=\([0-9]*\).*/\1/p' "$1")
  [ -n "$mean" ] && [ -n "$STALLS" ] || return 0
  awk -v rate="$STALLS" -v mean="$mean" -v v="$2" 'BEGIN {
    p = 100 * (1 - exp(-rate * mean / 1e9))
    printf "# figure: javac on JDK %s: machine stalls over 20 us %d per second x mean walk %.1f us: %.2f%% of walks absorb one%s\n",
      v, rate, mean / 1e3, p, (p >= 1 ? " (at this mean walk time, the p99 cannot be under 20 us on this machine)" : "")
  }'
}

# The machine's stall rate, measured once before the runs (stall_probe.c).
PROBE=$BUILD/tests/bench/stall_probe
STALLS=""
# (An arm64 build's probe does not run on the x86_64 host: no figure then.)
if [ -x "$PROBE" ] && line=$("$PROBE" 3 2>/dev/null); then
  echo "# figure: machine stalls (a spinning thread's clock reads over 20 us apart): $line"
  STALLS=$(sed -n 's/^stalls_per_s=\([0-9]*\).*/\1/p' <<<"$line")
fi

for home in "$@"; do javac_jdk "$home"; done
