#!/usr/bin/env bash
# overhead.sh BUILD_DIR - the profiler's overhead on a CPU-bound Java workload (Bench.java:
# a fixed amount of work after a warm-up), on $JAVA_HOME (default JDK 17). Variants:
#   none    no agent
#   agent   the demo profiler, event=cpu,interval=1ms
#   jfr     JFR's default settings with jdk.ExecutionSample at 1 ms (a copy of the JDK's
#           default.jfc; the #period=1ms option form is JDK 17+ only)
#   asprof  async-profiler, event=cpu,interval=1ms (only when ASPROF_HOME is set: a build of
#           it, ASPROF_HOME/lib/libasyncProfiler.so)
# Whole-process times on this shared machine vary by +-10% from run to run, so the variants
# alternate (none agent jfr [asprof], none agent jfr [asprof], ...) for OVERHEAD_RUNS rounds
# (default 3) and each is reported as min/median/max of: the work's elapsed time, the
# working thread's CPU time (signal handlers included), and the whole JVM's CPU time
# (user+sys, start-up included). The agent's handler CPU time per sample is the steady
# figure. ROUNDS sets the work per run (default 250 rounds of Bench, about 5 s).
# Budget (docs/budgets.md), one "ok -" or "not ok -" line (tests/bench/budget.sh): the
# agent's overhead on the working thread's CPU time (median over the rounds, as a ratio to
# the median run without an agent) below JFR's and, when ASPROF_HOME is set,
# async-profiler's. That figure, not the elapsed time: here the elapsed time of the same
# work varies by 10% and more between runs while its thread CPU time varies by a few
# percent; it holds the signal handlers of the demo profiler and async-profiler whole, and
# leaves out JFR's sampler thread, so it can only make JFR look cheaper.
set -uo pipefail
BUILD=$(cd "${1:?usage: overhead.sh BUILD_DIR}" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/../../tests/bench/budget.sh"
JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/java-17-openjdk-amd64}
JAVA=$JAVA_HOME/bin/java
ROUNDS=${ROUNDS:-250}
RUNS=${OVERHEAD_RUNS:-3}
MAJOR=$(jdk_major "$JAVA_HOME")
WHAT="JDK $MAJOR: demo profiler overhead at 1 ms cpu sampling below JFR's"
[ -n "${ASPROF_HOME:-}" ] && WHAT="$WHAT and async-profiler's"
BENCH_UNTESTED=0 # read by budget()
AGENT_OPTS="event=cpu,interval=1ms,verbose"
if jdk_untested "$JAVA_HOME"; then
  [ "${ASGST_TEST_UNTESTED_JDK:-}" = 1 ] ||
    { echo "# JDK $MAJOR: overhead not run (newer than the newest tested, $NEWEST_TESTED; ASGST_TEST_UNTESTED_JDK=1 runs it, not budgeted)"; exit 0; }
  # shellcheck disable=SC2034 # read by budget()
  BENCH_UNTESTED=1
  AGENT_OPTS="$AGENT_OPTS,untested_jdk"
fi
WORK=$(mktemp -d "${TMPDIR:-/tmp}/asgstprof-bench.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
echo "== profiler overhead on $JAVA_HOME"
if ! "$JAVA_HOME/bin/javac" -d "$WORK" "$HERE/Bench.java" >"$WORK/javac.out" 2>&1; then
  cat "$WORK/javac.out"; budget 0 "$WHAT" "no figure: Bench.java does not compile"; exit 0
fi

# JFR's default settings with the execution sampler at 1 ms.
JFC=$JAVA_HOME/lib/jfr/default.jfc
[ -f "$JFC" ] || JFC=$JAVA_HOME/jre/lib/jfr/default.jfc
awk '/<event name="jdk.ExecutionSample">/ {e = 1}
     e && /name="period"/ {sub(/>[^<]*</, ">1 ms<")}
     /<\/event>/ {e = 0} {print}' "$JFC" >"$WORK/sample1ms.jfc" 2>/dev/null

VARIANTS=(none agent jfr)
[ -n "${ASPROF_HOME:-}" ] && VARIANTS+=(asprof)
declare -A ARGS=(
  [none]=""
  [agent]="-agentpath:$BUILD/lib/libasgstprof.so=$AGENT_OPTS,file=$WORK/p.collapsed"
  [jfr]="-XX:StartFlightRecording=settings=$WORK/sample1ms.jfc,filename=$WORK/r.jfr"
  [asprof]="-agentpath:${ASPROF_HOME:-}/lib/libasyncProfiler.so=start,event=cpu,interval=1ms,file=$WORK/a.collapsed,collapsed"
)
declare -A NAME=(
  [none]="no agent"
  [agent]="asgst-prof event=cpu,interval=1ms"
  [jfr]="JFR jdk.ExecutionSample 1 ms"
  [asprof]="async-profiler cpu interval=1ms"
)

# measure VARIANT ROUND: one run; appends "elapsed_ms thread_cpu_ms process_cpu_ms" to
# $WORK/VARIANT.times (nothing when the run printed no work time: its stderr is kept).
measure() {
  local v=$1 r=$2 t
  TIMEFORMAT='%U %S'
  # shellcheck disable=SC2086
  t=$( { time "$JAVA" ${ARGS[$v]} -cp "$WORK" Bench "$ROUNDS" >"$WORK/$v.$r.out" 2>"$WORK/$v.$r.err"; } 2>&1)
  local w
  w=$(awk '/^work_ms/ {print $2, $4}' "$WORK/$v.$r.out")
  [ -n "$w" ] || return 0
  echo "$w $(awk -v u="${t% *}" -v s="${t#* }" 'BEGIN { printf "%.0f", (u + s) * 1000 }')" >>"$WORK/$v.times"
}

for r in $(seq "$RUNS"); do
  for v in "${VARIANTS[@]}"; do measure "$v" "$r"; done
done

# stat VARIANT COLUMN: "min median max" of a column of VARIANT's times, empty if no runs.
stat() {
  [ -s "$WORK/$1.times" ] || return 0
  awk -v c="$2" '{print $c}' "$WORK/$1.times" | sort -n |
    awk '{v[NR] = $1} END {print v[1], v[int((NR + 1) / 2)], v[NR]}'
}
med() { local s; s=$(stat "$1" "$2"); set -- $s; echo "${2:-}"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a != "" && b > 0) printf "%.3f", a / b; else print "n/a" }'; }

echo "workload: $ROUNDS rounds of Bench (hash, sieve, matrix, sort) after a warm-up; $RUNS alternating rounds of ${VARIANTS[*]}"
echo "min/median/max ms of: the work's elapsed time, the working thread's CPU time, the whole JVM's CPU time (x: median / no agent's median)"
for v in "${VARIANTS[@]}"; do
  n=0
  [ -s "$WORK/$v.times" ] && n=$(wc -l <"$WORK/$v.times")
  printf '  %-34s %s runs  elapsed %-17s x%s  thread cpu %-17s x%s  process cpu %-17s x%s\n' "${NAME[$v]}" "$n" \
    "$(stat "$v" 1 | tr ' ' /)" "$(ratio "$(med "$v" 1)" "$(med none 1)")" \
    "$(stat "$v" 2 | tr ' ' /)" "$(ratio "$(med "$v" 2)" "$(med none 2)")" \
    "$(stat "$v" 3 | tr ' ' /)" "$(ratio "$(med "$v" 3)" "$(med none 3)")"
done
# The agent's steady figures, from its summaries (stderr): samples, walk time, handler time.
samples=$(cat "$WORK"/agent.*.err 2>/dev/null | sed -n 's/^  cpu  *samples \([0-9]*\).*/\1/p' | sort -n | paste -sd ' ')
handler=$(cat "$WORK"/agent.*.err 2>/dev/null | sed -n 's/^stats: .* handler_us=\([0-9.]*\).*/\1/p' | sort -n | paste -sd ' ')
walk=$(cat "$WORK"/agent.*.err 2>/dev/null | sed -n 's/^walk time: median \([0-9.]*\) us.*/\1/p' | sort -n | paste -sd ' ')
echo "# figure: overhead on JDK $MAJOR, agent per run: samples ${samples:-none}; walk median us ${walk:-none}; handler CPU time per sample us ${handler:-none}"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
figs=""
for v in "${VARIANTS[@]}"; do
  [ "$v" = none ] && continue
  figs="$figs ${v}/no-agent $(ratio "$(med "$v" 2)" "$(med none 2)"),"
done
echo "# figure: overhead at 1 ms cpu sampling on JDK $MAJOR (working thread's CPU time, medians of $RUNS alternating runs):${figs%,}"
# The samples each profiler took in its last run, to see that they sampled alike.
taken="asgst-prof $(sed -n 's/^  cpu  *samples \([0-9]*\).*/\1/p' "$WORK/agent.$RUNS.err" 2>/dev/null)"
if [ -x "$JAVA_HOME/bin/jfr" ] && [ -s "$WORK/r.jfr" ]; then
  taken="$taken, JFR $("$JAVA_HOME/bin/jfr" summary "$WORK/r.jfr" 2>/dev/null | awk '$1 == "jdk.ExecutionSample" {print $2}')"
fi
[ -s "$WORK/a.collapsed" ] && taken="$taken, async-profiler $(awk '{s += $NF} END {print s + 0}' "$WORK/a.collapsed")"
echo "# figure: samples in the last run of each profiler: $taken"

# The verdict.
fail=$(grep -h -m1 'ASGST_Initialize failed' "$WORK"/agent.*.err 2>/dev/null | head -1)
[ -n "$fail" ] && { budget 0 "$WHAT" "no figure: $fail"; exit 0; }
base=$(med none 2) mine=$(med agent 2)
for v in none agent; do
  [ -n "$(med "$v" 1)" ] ||
    { budget 0 "$WHAT" "no figure: no work time from the ${NAME[$v]} runs ($(tail -1 "$WORK/$v.1.err"))"; exit 0; }
done
ok=1 figure="asgst-prof x$(ratio "$mine" "$base")"
for v in "${VARIANTS[@]}"; do
  case $v in none | agent) continue ;; esac
  theirs=$(med "$v" 2)
  if [ -z "$theirs" ]; then
    ok=0 figure="$figure vs ${NAME[$v]}: no work time ($(grep -hv '^\[' "$WORK/$v.1.err" | tail -1))"
    continue
  fi
  lt "$mine" "$theirs" || ok=0
  figure="$figure vs $v x$(ratio "$theirs" "$base")"
done
# The no-agent runs' own spread, for judging a difference between medians.
spread=$(stat none 2 | awk '{ if ($2 > 0) printf "%.1f", 100 * ($3 - $1) / $2 }')
budget "$ok" "$WHAT" "$figure; working thread's CPU time, medians of $RUNS alternating runs over the no-agent median; no-agent runs spread ${spread}%"
