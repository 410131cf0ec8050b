#!/usr/bin/env bash
# javac_bench.sh BUILD_DIR [JAVA_HOME...] - the walker on cold, deep, mixed-tier code: javac
# compiles about 300 generated classes (gen_javac_sources.sh) under the walk test agent,
# which samples every millisecond (bench=1: both walks timed in the same SIGPROF handler).
# Prints per JDK: samples, the error share of ASGST by error code and of AsyncGetCallTrace
# by its codes (over samples of threads with Java frames; ASGCT's -3, "not Java", is a
# thread without Java frames and counts as no error), and the walk time median/p90/p99/max
# of both (the agent's times= line).
# Budgets (docs/budgets.md), one "ok -" or "not ok -" line each per JDK (budget.sh):
#   - ASGST's walk p99 <= 0.5 x AsyncGetCallTrace's p99, same handler, same run;
#   - ASGST's max <= AsyncGetCallTrace's max, same run;
#   - ASGST's error share no higher than async-profiler's own walker on the same workload
#     when ASPROF_HOME is set (javac_asprof.sh runs it right after), else <= 1%.
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
AGENT=$BUILD/tests/jvm/libwalk_agent.so
WORK=$BUILD/bench/javac
N=${JAVAC_CLASSES:-300}
[ $# -gt 0 ] || set -- "${JAVA_HOME:-/usr/lib/jvm/java-17-openjdk-amd64}"
[ -f "$AGENT" ] || { echo "javac bench: no walk agent at $AGENT"; exit 1; }
mkdir -p "$WORK"
# The generated sources, written again when N or the generator changed.
STAMP="$N $(cksum <"$ROOT/tests/bench/gen_javac_sources.sh")"
[ "$(cat "$WORK/gen/.stamp" 2>/dev/null)" = "$STAMP" ] ||
  { bash "$ROOT/tests/bench/gen_javac_sources.sh" "$WORK" "$N" && echo "$STAMP" >"$WORK/gen/.stamp"; }

# javac_jdk JAVA_HOME: one javac run under the agent; prints its figures and budget lines.
javac_jdk() {
  local home=$1 v major log
  v=$(sed -n 's/^JAVA_VERSION="\([^"]*\)".*/\1/p' "$home/release" 2>/dev/null)
  major=$(jdk_major "$home")
  log=$WORK/javac-${v:-unknown}.log
  rm -rf "$WORK/out" && mkdir -p "$WORK/out"
  echo "== javac ($N classes) on JDK ${v:-?} ($home)"
  local BENCH_UNTESTED=0
  if jdk_untested "$home"; then
    [ "${ASGST_TEST_UNTESTED_JDK:-}" = 1 ] ||
      { echo "# JDK $major: not run (newer than the newest tested, $NEWEST_TESTED; ASGST_TEST_UNTESTED_JDK=1 runs it, not budgeted)"; return; }
    # shellcheck disable=SC2034 # read by budget()
    BENCH_UNTESTED=1
  fi
  local t0=$SECONDS
  (cd "$WORK" && "$home/bin/javac" \
    "-J-agentpath:$AGENT=label=javac,bench=1,slow=1,interval_us=1000${JAVAC_AGENT_OPTS:+,$JAVAC_AGENT_OPTS}" \
    -d out gen/*.java) >"$log" 2>&1
  local rc=$? why=""
  why=$(sed -n 's/^WALK not ok - ASGST_Initialize: /ASGST_Initialize failed: /p' "$log" | head -1)
  if [ $rc != 0 ]; then
    echo "javac exit status $rc (log: $log)"; tail -3 "$log"
    why=${why:-javac exit status $rc}
  else
    echo "javac took $((SECONDS - t0)) s"
    grep -E '^WALK # (figure: (workload|errors|times|cputimes|slow)=|signals=)' "$log" | sed 's/^WALK # /# /; s/ disagreements:.*//'
    stall_share "$log" "${v:-?}"
  fi
  javac_budgets "$log" "$major" "$why"
  [ -z "$why" ] && [ -n "${ASPROF_HOME:-}" ] && asprof_budget "$log" "$home" "$major"
  [ -z "$why" ] && [ -z "${ASPROF_HOME:-}" ] && error_budget_alone "$log" "$major"
  local peer="<= 1%"
  [ -n "${ASPROF_HOME:-}" ] && peer="<= async-profiler's"
  [ -n "$why" ] && budget 0 "JDK $major: javac, ASGST error share $peer" "no figure: $why"
  return 0
}

# javac_budgets LOG MAJOR WHY: the p99 and max budget lines from the agent's times= line.
javac_budgets() {
  local line ap gp am gm which
  line=$(grep -E '^WALK # figure: times=' "$1" | head -1)
  ap=$(field asgst_p99_ns "$line") gp=$(field asgct_p99_ns "$line")
  am=$(field asgst_max_ns "$line") gm=$(field asgct_max_ns "$line")
  which="every sample, failed walks included: the agent does not separate them yet"
  [ -n "$(field asgst_walks "$line")" ] &&
    which="$(field asgst_walks "$line") ASGST and $(field asgct_walks "$line") ASGCT walks that succeeded"
  if [ -z "$ap" ] || [ -z "$gp" ] || [ "${gp:-0}" = 0 ]; then
    local why=${3:-no times= line in ${1#$BUILD/}}
    budget 0 "JDK $2: javac, ASGST walk p99 <= 0.5 x ASGCT's p99" "no figure: $why"
    budget 0 "JDK $2: javac, ASGST walk max <= ASGCT's max" "no figure: $why"
    return
  fi
  local r
  r=$(awk -v a="$ap" -v g="$gp" 'BEGIN { printf "%.2f", a / g }')
  budget "$(le "$r" 0.5 && echo 1)" "JDK $2: javac, ASGST walk p99 <= 0.5 x ASGCT's p99" \
    "$(us "$ap") us = $r x ASGCT's $(us "$gp") us vs <= 0.50; $which"
  r=$(awk -v a="$am" -v g="$gm" 'BEGIN { printf "%.2f", a / g }')
  budget "$(le "$am" "$gm" && echo 1)" "JDK $2: javac, ASGST walk max <= ASGCT's max" \
    "$(us "$am") us = $r x ASGCT's $(us "$gm") us vs <= 1.00; $which"
}
us() { awk -v n="$1" 'BEGIN { printf "%.1f", n / 1000 }'; }

# asgst_error_share LOG: ASGST's error share (percent of samples with Java frames).
asgst_error_share() {
  sed -n 's/^WALK # figure: errors=.* asgst_errors=[0-9]* (\([0-9.]*\)%.*/\1/p' "$1" | head -1
}

# error_budget_alone LOG MAJOR: without async-profiler, ASGST's error share <= 1%.
error_budget_alone() {
  local e
  e=$(asgst_error_share "$1")
  if [ -z "$e" ]; then budget 0 "JDK $2: javac, ASGST error share <= 1%" "no figure: no errors= line"; return; fi
  budget "$(le "$e" 1 && echo 1)" "JDK $2: javac, ASGST error share <= 1%" \
    "$e% vs <= 1%; async-profiler not run: set ASPROF_HOME to a build of it"
}

# asprof_budget LOG JAVA_HOME MAJOR: async-profiler's walker on the same workload
# (javac_asprof.sh); ASGST's error share no higher than its.
asprof_budget() {
  local e out p
  e=$(asgst_error_share "$1")
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
if [ -x "$PROBE" ]; then
  line=$("$PROBE" 3)
  echo "# figure: machine stalls (a spinning thread's clock reads over 20 us apart): $line"
  STALLS=$(sed -n 's/^stalls_per_s=\([0-9]*\).*/\1/p' <<<"$line")
fi

for home in "$@"; do javac_jdk "$home"; done
