#!/usr/bin/env bash
# fuzz.sh BUILD_DIR [SECONDS] - the live-JVM fuzzer (issue 14): the walk workload runs
# every mode at once (deoptimization, allocation and GC, class loading and unloading,
# thread churn, exceptions, method handles, lambdas, deep recursion, virtual threads on
# 21+) under the fuzz agent (tests/jvm/agents/fuzz_agent.c), which walks the sampled
# threads from perturbed and random starts in its SIGPROF handler and walks random Java
# threads and bogus tids out of thread, all the time.
#
# SECONDS (default 60) is split across the JDKs: the default one (JAVA_HOME, JDK 17) and
# every one tests/jdks/list.sh lists, each with another garbage collector and with
# diagnostic flags that deoptimize and safepoint more often.
# Per JDK it checks: the JVM exits 0 after the workload's "done" line, no hs_err file and
# no core, the agent's invariant checks, documented error codes only, and at least
# FUZZ_MIN_WALKS_PER_S walks per second (default 2000). Output: "# figure: ..." lines (walks,
# walks/s, outcome histograms by ASGST_ErrorName, faults caught) and TAP lines; exit 1 if
# any check failed. Logs, hs_err files and cores of failed runs stay in BUILD_DIR/fuzz/LABEL.
# Environment: FUZZ_JDKS=default (only JAVA_HOME) or all (default); FUZZ_AGENT_OPTS
# (extra agent options, e.g. walks=32,burst=8); FUZZ_KEEP=1 keeps the logs of passing runs.
set -u
BUILD=$(cd "${1:?build dir}" && pwd)
TOTAL=${2:-60}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/java-17-openjdk-amd64}
AGENT=$BUILD/tests/jvm/libfuzz_agent.so
JNILIB=$BUILD/tests/jvm/libwalk_jni.so
WORK=$BUILD/fuzz
. "$ROOT/tests/jvm/javac_once.sh"
MIN_RATE=${FUZZ_MIN_WALKS_PER_S:-2000}
n=0
failed=0
total_walks=0

tap() {
  n=$((n + 1))
  echo "$1 $n - $2"
  [ "$1" = "not ok" ] && failed=$((failed + 1))
  return 0
}

# The JDKs to fuzz, "label home" per line.
jdks() {
  echo "jdk$(major "$JAVA_HOME") $JAVA_HOME"
  [ "${FUZZ_JDKS:-all}" = default ] && return
  # A JDK newer than the newest tested (27; an early-access build) is not fuzzed: the
  # library accepts it only with an opt-in (tests/run_all.sh runs its walk and info suites).
  bash "$ROOT/tests/jdks/list.sh" | awk '$2 != "SKIP" && $2 != "FAIL" { v = $1; sub(/^jdk/, "", v); sub(/-.*/, "", v)
    if (v + 0 > 27) print "# " $1 ": newer than the newest tested JDK (27): not fuzzed" > "/dev/stderr"; else print }'
}

# The flags of the i-th JDK's run: one collector per JDK, so that every run covers another
# one (ZGC and Shenandoah arm nmethod entry barriers, which DeoptimizeNMethodBarriersALot
# then trips at random), and diagnostic flags that make deoptimization, safepoints and
# handshakes frequent and C2's code shapes random. Generational ZGC (the only ZGC from
# JDK 23) is left out: ASGST_Initialize refuses it (its JNI handles hold colored pointers).
jvm_flags() {
  local i=$1 home=$2 gcs=("-XX:+UseG1GC" "-XX:+UseZGC" "-XX:+UseParallelGC" "-XX:+UseShenandoahGC" "-XX:+UseSerialGC")
  local gc=${gcs[$((i % ${#gcs[@]}))]}
  [ "$gc" = -XX:+UseZGC ] && [ "$(major "$home")" -ge 23 ] && gc=-XX:+UseParallelGC
  "$home/bin/java" "$gc" -version >/dev/null 2>&1 || gc=-XX:+UseSerialGC
  # Each diagnostic flag only where the JDK knows it (JDK 8 and 11 lack several).
  local f flags="$gc -Xmx256m -Xss4m -XX:+UnlockDiagnosticVMOptions"
  for f in -XX:+DeoptimizeNMethodBarriersALot -XX:+SafepointALot -XX:GuaranteedSafepointInterval=50 \
    -XX:+HandshakeALot -XX:+StressGCM -XX:+StressLCM -XX:+StressIGVN -XX:MaxInlineLevel=20; do
    "$home/bin/java" -XX:+UnlockDiagnosticVMOptions "$f" -version >/dev/null 2>&1 && flags="$flags $f"
  done
  echo "$flags"
}

# The feature version of the JDK in $1 (0 if unknown).
major() {
  local v
  v=$("$ROOT/tests/jdks/feature.sh" "$1")
  echo "${v:-0}"
}

# The workload's modes: all of them, virtual threads too where the JDK has them.
modes() {
  local m="mix+deep+lambda+mh+exc+deopt+alloc+classload+threads"
  [ "$(major "$1")" -ge 21 ] && m="$m+vthreads"
  echo "$m"
}

# Prints the agent's lines as figures and TAP; adds the walks to the total.
agent_results() {
  local label=$1 secs=$2 log=$3 line walks
  while IFS= read -r line; do
    case "$line" in
      "FUZZ ok - "*) tap "ok" "$label: ${line#FUZZ ok - }" ;;
      "FUZZ not ok - "*) tap "not ok" "$label: ${line#FUZZ not ok - }" ;;
      "FUZZ # "*) echo "${line#FUZZ }" ;;
    esac
  done < <(grep '^FUZZ ' "$log")
  walks=$(sed -n 's/^FUZZ # figure: fuzz=[^ ]* seconds=[^ ]* walks=\([0-9]*\).*/\1/p' "$log" | head -1)
  walks=${walks:-0}
  total_walks=$((total_walks + walks))
  if [ "$walks" -ge $((MIN_RATE * secs)) ]; then
    tap "ok" "$label: at least $((MIN_RATE * secs)) walks ($walks)"
  else
    tap "not ok" "$label: at least $((MIN_RATE * secs)) walks ($walks)"
  fi
}

# fuzz_jdk INDEX LABEL HOME SECONDS
fuzz_jdk() {
  local i=$1 label=$2 home=$3 secs=$4 dir=$WORK/$2 flags rc failed_before=$failed
  rm -rf "$dir" && mkdir -p "$dir"
  flags=$(jvm_flags "$i" "$home")
  echo "# $label: $home, $secs s, $flags"
  # Each JDK compiles the workload itself: a class file of 17 does not load on 8 or 11.
  if ! JAVA_HOME=$home javac_once "$dir/classes" "$ROOT/tests/jvm/java/walk/Workload.java" >"$dir/javac.log" 2>&1; then
    tap "not ok" "$label: compile Workload.java"; sed 's/^/# /' "$dir/javac.log" | head -5; return
  fi
  # Cores and hs_err files land in the working directory; a core of a JVM is big, and one
  # is enough to find a crash again: allow it.
  # shellcheck disable=SC2086 # $flags is a list of JVM options
  (cd "$dir" && ulimit -c unlimited 2>/dev/null
   timeout -k 5 $((secs + 90)) "$home/bin/java" $flags \
     "-agentpath:$AGENT=label=$label${FUZZ_AGENT_OPTS:+,$FUZZ_AGENT_OPTS}" \
     -Dwalk.jni="$JNILIB" -cp "$dir/classes" Workload "$(modes "$home")" "$secs") \
    >"$dir/run.log" 2>&1
  rc=$?
  local crash
  crash=$(cd "$dir" && ls hs_err_*.log core* 2>/dev/null | head -3 | tr '\n' ' ')
  if [ $rc = 0 ] && grep -q "^workload .* done" "$dir/run.log" && [ -z "$crash" ]; then
    tap "ok" "$label: the JVM finished its work and exited cleanly under fuzzing"
  else
    local why="exit status $rc"
    [ $rc = 124 ] && why="hang: no exit within $((secs + 90)) s"
    [ -n "$crash" ] && why="$why, crash files: $crash"
    tap "not ok" "$label: $why (log: ${dir#"$BUILD"/}/run.log)"
    tail -5 "$dir/run.log" | sed 's/^/# /'
  fi
  if grep -q '^FUZZ ' "$dir/run.log"; then
    agent_results "$label" "$secs" "$dir/run.log"
  else
    tap "not ok" "$label: the agent printed no results"
  fi
  # The log of a passing run is megabytes of nothing; a failed run's is kept.
  [ "${FUZZ_KEEP:-0}" = 1 ] || [ "$failed" != "$failed_before" ] || rm -f "$dir/run.log"
}

if [ ! -f "$AGENT" ] || [ ! -x "$JAVA_HOME/bin/java" ]; then
  tap "not ok" "fuzz: no JDK at $JAVA_HOME or the agent is not built (./build.sh build)"
  exit 0
fi
mkdir -p "$WORK"
mapfile -t list < <(jdks)
per=$((TOTAL / ${#list[@]}))
[ "$per" -lt 5 ] && per=5
i=0
for entry in "${list[@]}"; do
  fuzz_jdk "$i" "${entry%% *}" "${entry#* }" "$per"
  i=$((i + 1))
done
echo "# figure: fuzz_walks_total=$total_walks jdks=${#list[@]} seconds_each=$per"
echo "# fuzz: $n checks, $failed failed"
[ "$failed" = 0 ]
