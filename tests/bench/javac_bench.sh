#!/usr/bin/env bash
# javac_bench.sh BUILD_DIR [JAVA_HOME...] - the walker on cold, deep, mixed-tier code: javac
# compiles about 300 generated classes (gen_javac_sources.sh) under the walk test agent,
# which samples every millisecond (bench=1: both walks timed in the same SIGPROF handler,
# order alternating). Prints per JDK: samples, the error share of ASGST by error code and of
# AsyncGetCallTrace by its codes (over samples of threads with Java frames; ASGCT's -3,
# "not Java", is a thread without Java frames and counts as no error), and the walk time
# median/p90/p99/max of both over every sample, failed walks included.
# Budget (DESIGN.md section 7): error share no higher than async-profiler's own walker
# (else <= 1%), p99 <= 20 us and max <= 200 us. Timing on these shared 2-core machines is
# noisy: compare the two walkers of the same run, and repeat before believing a max. Before
# the runs, stall_probe measures how often the machine takes the CPU away for over 20 us;
# after each, the share of walks that absorbed such a stall is printed (stall_share).
# The agent runs with slow=1: ASGST walks first in every sample (the cold position; ASGCT
# then runs second), and each walk's thread CPU time is read too, so the figures also give
# the walker's time without the machine's: CPU time percentiles and the wall time of the
# walks that were not descheduled (a walk the scheduler interrupts keeps its wall time).
# Without JAVA_HOME arguments: $JAVA_HOME (default JDK 17). JAVAC_CLASSES sets the class
# count (default 300), JAVAC_AGENT_OPTS adds walk agent options (e.g. diag=1).
set -u
BUILD=$(cd "${1:?build dir}" && pwd)
shift
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
AGENT=$BUILD/tests/jvm/libwalk_agent.so
WORK=$BUILD/bench/javac
N=${JAVAC_CLASSES:-300}
[ $# -gt 0 ] || set -- "${JAVA_HOME:-/usr/lib/jvm/java-17-openjdk-amd64}"
[ -f "$AGENT" ] || { echo "javac bench: no walk agent at $AGENT"; exit 1; }
mkdir -p "$WORK"
[ -f "$WORK/gen/Gen$((N - 1)).java" ] && [ ! -f "$WORK/gen/Gen$N.java" ] || bash "$ROOT/tests/bench/gen_javac_sources.sh" "$WORK" "$N"

# javac_jdk JAVA_HOME: one javac run under the agent; prints its figures.
javac_jdk() {
  local home=$1 v log
  v=$(sed -n 's/^JAVA_VERSION="\([^"]*\)".*/\1/p' "$home/release" 2>/dev/null)
  log=$WORK/javac-${v:-unknown}.log
  rm -rf "$WORK/out" && mkdir -p "$WORK/out"
  echo "== javac ($N classes) on JDK ${v:-?} ($home)"
  local t0=$SECONDS
  (cd "$WORK" && "$home/bin/javac" \
    "-J-agentpath:$AGENT=label=javac,bench=1,slow=1,interval_us=1000${JAVAC_AGENT_OPTS:+,$JAVAC_AGENT_OPTS}" \
    -d out gen/*.java) >"$log" 2>&1
  local rc=$?
  [ $rc = 0 ] || { echo "javac exit status $rc (log: $log)"; tail -3 "$log"; return; }
  echo "javac took $((SECONDS - t0)) s"
  grep -E '^WALK # (figure: (workload|errors|times|cputimes|slow)=|signals=)' "$log" | sed 's/^WALK # //; s/ disagreements:.*//'
  stall_share "$log" "${v:-?}"
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
