#!/usr/bin/env bash
# two_agents.sh BUILD_DIR - the demo profiler and async-profiler sampling cpu in one JVM.
# Needs ASPROF_HOME, a build of async-profiler from its public source
# ($ASPROF_HOME/lib/libasyncProfiler.so); without it, it says so and exits 1.
#
# Per JDK (the default one, JAVA_HOME, JDK 17, then one build of each other feature
# version tests/jdks/list.sh offers, up to the newest tested), the fuzzer's workload
# (tests/jvm/java/walk/Workload.java: deoptimization, allocation and GC, class loading and
# unloading, thread churn, exceptions, method handles...) runs in five JVMs, each with a
# JFR recording (-XX:StartFlightRecording):
#   alone       the demo (-agentpath) sampling cpu every 100 us
#   ap-first    async-profiler's -agentpath (event=cpu, interval=100us) before the demo's
#   demo-first  the demo's before async-profiler's
#   alone-late  the demo attached late (asgst-attach start ... stop)
#   ap+late     async-profiler from the start, the demo attached late
# Checks per run: the JVM exits 0 after the workload's "done" line within its time limit,
# no hs_err file; the demo's profile and (beside it) async-profiler's are written and hold
# samples; the demo's share of samples with Java frames (its summary: samples minus
# "without Java frames") is within TWO_AGENTS_POINTS (default 1) percentage points of the
# same start without async-profiler (ap-first, demo-first against alone; ap+late against
# alone-late). Prints one "ok - ..." or "not ok - ..." line per check (budget.sh), then a
# table; exits 1 if any check failed.
# TWO_AGENTS_SECONDS: the workload's length per JVM (default 10). TWO_AGENTS_JDKS=default
# runs JAVA_HOME only. Outputs stay in BUILD_DIR/two-agents/LABEL/RUN.
set -u
BUILD=$(cd "${1:?build dir}" && pwd)
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
. "$ROOT/tests/bench/budget.sh"
. "$ROOT/tests/jvm/javac_once.sh"
JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/java-17-openjdk-amd64}
SECS=${TWO_AGENTS_SECONDS:-10}
POINTS=${TWO_AGENTS_POINTS:-1}
DEMO=$BUILD/lib/libasgstprof.so
ATTACH=$BUILD/bin/asgst-attach
JNILIB=$BUILD/tests/jvm/libwalk_jni.so
WORK=$BUILD/two-agents
INTERVAL=100us

if [ -z "${ASPROF_HOME:-}" ] || [ ! -f "${ASPROF_HOME:-}/lib/libasyncProfiler.so" ]; then
  echo "not ok - two agents: ASPROF_HOME must name a build of async-profiler" \
    "(\$ASPROF_HOME/lib/libasyncProfiler.so; ASPROF_HOME='${ASPROF_HOME:-}'): not run"
  exit 1
fi
ASPROF=$ASPROF_HOME/lib/libasyncProfiler.so

n=0
failed=0
TABLE=$(mktemp)
trap 'rm -f "$TABLE"' EXIT
# tap VERDICT WHAT: one check, as a budget line ("ok - WHAT"; run_bench.sh tallies them).
tap() {
  n=$((n + 1))
  budget "$([ "$1" = ok ] && echo 1)" "$2"
  [ "$1" = "not ok" ] && failed=$((failed + 1))
  return 0
}

# The JDKs: "label home" per line, one per feature version, none newer than the newest
# tested (the demo refuses those without untested_jdk).
jdks() {
  echo "jdk$(jdk_major "$JAVA_HOME") $JAVA_HOME"
  [ "${TWO_AGENTS_JDKS:-all}" = default ] && return
  local seen label home v
  seen=" $(jdk_major "$JAVA_HOME") "
  while read -r label home; do
    case "$home" in SKIP*) continue ;; esac
    v=$(jdk_major "$home")
    case "$seen" in *" $v "*) continue ;; esac
    seen="$seen$v "
    jdk_untested "$home" && { echo "# $label: newer than the newest tested JDK: not run" >&2; continue; }
    echo "$label $home"
  done < <(JAVA_HOME=$JAVA_HOME bash "$ROOT/tests/jdks/list.sh")
}

# The workload's modes, virtual threads too where the JDK has them (as the fuzzer).
modes() {
  local m="mix+deep+lambda+mh+exc+deopt+alloc+classload+threads"
  [ "$(jdk_major "$1")" -ge 21 ] && m="$m+vthreads"
  echo "$m"
}

# The JFR option where the JDK takes it (an old JDK 8 build has no JFR).
jfr_flag() {
  "$1/bin/java" "-XX:StartFlightRecording=filename=$2" -version >/dev/null 2>&1 &&
    echo "-XX:StartFlightRecording=filename=$2"
}

# demo_opts DIR: the demo's options for a run's outputs.
# cstack: a sample's C frames too, to tell the samples without Java frames that stopped at
# a signal frame (__restore_rt: taken inside another handler, the walker does not yet walk
# through it) from the rest.
demo_opts() { echo "event=cpu,interval=$INTERVAL,cstack,file=$1/demo.collapsed,file=$1/demo.txt"; }

# late_attach PID DIR: waits for the workload, attaches the demo, stops it a second before
# the workload ends; the attach tool's output goes to DIR/attach.log.
late_attach() {
  local pid=$1 dir=$2
  for _ in $(seq 100); do grep -q libjvm.so "/proc/$pid/maps" 2>/dev/null && break; sleep 0.1; done
  sleep 2
  "$ATTACH" "$pid" "start,$(demo_opts "$dir")" >>"$dir/attach.log" 2>&1
  sleep $((SECS - 3))
  "$ATTACH" "$pid" stop >>"$dir/attach.log" 2>&1
}

# run_one LABEL HOME RUN: one JVM; appends a row to the table (RUN rc signal samples share
# asprof-samples jfr-bytes) and prints the checks that need nothing else.
run_one() {
  local label=$1 home=$2 run=$3 dir=$WORK/$1/$3 ap demo jfr pre=() rc pid crash
  rm -rf "$dir" && mkdir -p "$dir"
  ap="-agentpath:$ASPROF=start,event=cpu,interval=$INTERVAL,file=$dir/asprof.collapsed"
  demo="-agentpath:$DEMO=$(demo_opts "$dir")"
  jfr=$(jfr_flag "$home" "$dir/rec.jfr")
  case $run in
    alone) pre=("$demo") ;;
    ap-first) pre=("$ap" "$demo") ;;
    demo-first) pre=("$demo" "$ap") ;;
    alone-late) pre=() ;;
    ap+late) pre=("$ap") ;;
  esac
  # shellcheck disable=SC2086 # $jfr is empty or one option
  (cd "$dir" && exec timeout -k 5 $((SECS + 60)) "$home/bin/java" -Xmx256m -Xss4m "${pre[@]}" $jfr \
    -Dwalk.jni="$JNILIB" -cp "$WORK/$label/classes" Workload "$(modes "$home")" "$SECS") \
    >"$dir/run.log" 2>&1 &
  pid=$!
  # The JVM is timeout's child; the attach tool needs the JVM's pid.
  case $run in *late)
    local jvm=""
    for _ in $(seq 50); do jvm=$(pgrep -P "$pid" -x java 2>/dev/null | head -1); [ -n "$jvm" ] && break; sleep 0.1; done
    [ -n "$jvm" ] && late_attach "$jvm" "$dir" ;;
  esac
  wait "$pid"
  rc=$?
  crash=$(cd "$dir" && ls hs_err_*.log core* 2>/dev/null | head -3 | tr '\n' ' ')
  local what="$label $run"
  if [ $rc = 0 ] && grep -q "^workload .* done" "$dir/run.log" && [ -z "$crash" ]; then
    tap "ok" "$what: the JVM finished its work and exited cleanly"
  else
    local why="exit status $rc"
    [ $rc = 124 ] && why="hang: no exit within $((SECS + 60)) s"
    [ -n "$crash" ] && why="$why, crash files: $crash"
    tap "not ok" "$what: $why (${dir#"$BUILD"/}/run.log)"
    grep -v '^\s*$' "$dir/run.log" | tail -4 | sed 's/^/# /'
  fi
  # The demo's summary: "cpu  samples N (..., without Java frames M)".
  local line samples nojava share="-" sig apn="-" jfrb="-"
  line=$(grep -m1 -E '^ +cpu +samples [0-9]+' "$dir/demo.txt" 2>/dev/null)
  samples=$(sed -n 's/.* samples \([0-9]*\) .*/\1/p' <<<"$line")
  nojava=$(sed -n 's/.*without Java frames \([0-9]*\).*/\1/p' <<<"$line")
  if [ -s "$dir/demo.collapsed" ] && [ "${samples:-0}" -gt 0 ] && [ -n "$nojava" ]; then
    share=$(awk -v s="$samples" -v m="$nojava" 'BEGIN { printf "%.1f", 100 * (s - m) / s }')
    tap "ok" "$what: the demo's profile is written ($samples samples)"
  else
    tap "not ok" "$what: the demo's profile is written and holds samples"
    [ -f "$dir/attach.log" ] && sed 's/^/# attach: /' "$dir/attach.log" | head -4
  fi
  sig=$(sed -n 's/.*signals: cpu \([0-9]*\),.*/\1/p' "$dir/run.log" "$dir/attach.log" 2>/dev/null | head -1)
  # The share of samples without Java frames whose walk ended at a signal frame.
  local insig
  insig=$(awk '!/_\[[01ji]\]/ && /__restore_rt/ { s += $NF } { t += $NF }
               END { if (t) printf "%.1f", 100 * s / t; else print "-" }' "$dir/demo.collapsed" 2>/dev/null)
  case $run in ap*|demo-first)
    apn=$(awk '{ s += $NF } END { print s + 0 }' "$dir/asprof.collapsed" 2>/dev/null)
    if [ "${apn:-0}" -gt 0 ]; then tap "ok" "$what: async-profiler's profile is written ($apn samples)"
    else tap "not ok" "$what: async-profiler's profile is written and holds samples"; apn=${apn:-0}; fi ;;
  esac
  [ -n "$jfr" ] && jfrb=$(stat -c %s "$dir/rec.jfr" 2>/dev/null || echo 0)
  echo "$label $run $rc ${sig:--} ${samples:-0} $share $apn $jfrb ${insig:--}" >>"$TABLE"
}

# compare LABEL RUN BASE: the run's share of samples with Java frames against the base's.
compare() {
  local a b d sg
  a=$(awk -v l="$1" -v r="$2" '$1 == l && $2 == r { print $6 }' "$TABLE")
  b=$(awk -v l="$1" -v r="$3" '$1 == l && $2 == r { print $6 }' "$TABLE")
  if [ "$a" = - ] || [ "$b" = - ] || [ -z "$a" ] || [ -z "$b" ]; then
    tap "not ok" "$1 $2: share of samples with Java frames within $POINTS point of $3 (no figure)"
    return
  fi
  d=$(awk -v a="$a" -v b="$b" 'BEGIN { d = a - b; printf "%+.1f", d }')
  sg=$(awk -v l="$1" -v r="$2" '$1 == l && $2 == r { print $9 }' "$TABLE")
  if awk -v d="$d" -v p="$POINTS" 'BEGIN { exit !(d >= -p && d <= p) }'; then
    tap "ok" "$1 $2: share of samples with Java frames $a% vs $b% $3 ($d points, within $POINTS)"
  else
    tap "not ok" "$1 $2: share of samples with Java frames $a% vs $b% $3 ($d points, not within $POINTS; $sg% stopped at a signal frame)"
  fi
}

# jdk LABEL HOME: the five runs of one JDK.
jdk() {
  local label=$1 home=$2 run
  echo "# $label: $home, $SECS s per JVM"
  mkdir -p "$WORK/$label"
  if ! JAVA_HOME=$home javac_once "$WORK/$label/classes" "$ROOT/tests/jvm/java/walk/Workload.java" \
    >"$WORK/$label/javac.log" 2>&1; then
    tap "not ok" "$label: compile Workload.java"; return
  fi
  for run in alone ap-first demo-first alone-late ap+late; do run_one "$label" "$home" "$run"; done
  compare "$label" ap-first alone
  compare "$label" demo-first alone
  compare "$label" ap+late alone-late
}

# The table: one row per run; "with-Java" is the demo's share of samples with Java frames,
# "vs-alone" its difference in points from the same start without async-profiler,
# "in-sig-frame" the share of samples without Java frames whose walk stopped at a signal
# frame (our signal taken inside another handler: async-profiler's, often at the exit of
# the ioctl that re-arms its perf event).
table() {
  echo "# JDK     run         exit  cpu-sig  demo-samples  with-Java  vs-alone  in-sig-frame  asprof-samples  jfr-bytes"
  awk '{ key[$1 " " $2] = $6; row[NR] = $0 }
       END { for (i = 1; i <= NR; i++) { split(row[i], f, " ")
               d = "-"; if (f[2] == "ap-first" || f[2] == "demo-first") b = key[f[1] " alone"]
               else if (f[2] == "ap+late") b = key[f[1] " alone-late"]; else b = "-"
               if (b != "-" && b != "" && f[6] != "-") d = sprintf("%+.1f", f[6] - b)
               printf "# %-7s %-11s %4s  %7s  %12s  %8s%%  %8s  %11s%%  %14s  %9s\n", f[1], f[2], f[3], f[4], f[5], f[6], d, f[9], f[7], f[8] } }' "$TABLE"
}

mkdir -p "$WORK"
echo "# async-profiler: $ASPROF ($("$ASPROF_HOME/bin/asprof" --version 2>/dev/null | head -1))"
while read -r label home; do
  case "$label" in "#"*) continue ;; esac
  jdk "$label" "$home"
done < <(jdks)
table
echo "# two agents: $((n - failed)) ok, $failed not ok"
[ "$failed" = 0 ]
