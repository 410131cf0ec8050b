#!/usr/bin/env bash
# soak.sh BUILD_DIR [MINUTES] - the demo profiler for a long time (default 60 minutes) at a
# 100 us interval on the walk workload in every mode at once (class loading and unloading,
# deoptimization, thread churn, allocation and GC, exceptions, method handles, deep
# recursion), in segments that go round every profiler mode: cpu and wall, walked in the
# signal handler, from the sampler thread and through queues, and the fd tracepoints; each
# segment on the next JDK (the default one and every one tests/jdks/list.sh lists).
# Not part of `./build.sh test`; run as `./build.sh soak [MINUTES]`.
#
# Per segment: the JVM must finish the workload and exit 0 within the segment plus 2
# minutes (else: hang), with no hs_err file; printed: samples, walks made and the share
# that gave a trace, walk requests dropped as late (walk=thread) and stale queue elements
# (walk=queue), lost and throttled samples, the longest walk, the workload's operations,
# and the JVM's resident memory at a quarter of the segment, at its end and at most. The
# demo profiler keeps every sample in its append-only buffer (up to 1 GiB) until it writes
# its output, so resident memory grows with the samples taken (110-490 bytes a sample in
# the hour measured here, more for deeper traces); a leak shows as growth beyond that.
# TAP lines per segment; the last line totals them. Logs stay in BUILD_DIR/soak/.
set -u
BUILD=$(cd "${1:?build dir}" && pwd)
MINUTES=${2:-60}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/java-17-openjdk-amd64}
AGENT=$BUILD/lib/libasgstprof.so
JNILIB=$BUILD/tests/jvm/libwalk_jni.so
WORK=$BUILD/soak
MODES="mix+deep+lambda+mh+exc+deopt+alloc+classload+threads"
# The profiler modes, one per segment, round robin.
PROFILES=(
  "event=cpu,interval=100us"
  "event=wall,interval=100us"
  "event=cpu,interval=100us,walk=thread"
  "event=cpu,interval=100us,walk=queue"
  "event=wall,interval=100us,walk=queue"
  "event=fds,event=cpu,interval=100us"
)
# For a soak of some modes only: SOAK_PROFILES="profile|profile..." replaces the list, and
# SOAK_SEGMENTS sets how many segments the minutes are cut into.
if [ -n "${SOAK_PROFILES:-}" ]; then IFS='|' read -r -a PROFILES <<<"$SOAK_PROFILES"; fi
n=0 failed=0

tap() {
  n=$((n + 1))
  echo "$1 $n - $2"
  [ "$1" = "not ok" ] && failed=$((failed + 1))
  return 0
}

# Resident memory of PID in MB (0 once it has gone).
rss_mb() {
  awk '/^VmRSS:/ {printf "%d", $2 / 1024}' "/proc/$1/status" 2>/dev/null || echo 0
}

# The JDKs, "label home" per line.
jdks() {
  echo "default $JAVA_HOME"
  bash "$ROOT/tests/jdks/list.sh" | awk '$2 != "SKIP" && $2 != "FAIL"'
}

# segment INDEX LABEL HOME PROFILE SECONDS
segment() {
  local i=$1 label=$2 home=$3 prof=$4 secs=$5 dir=$WORK/seg$1
  rm -rf "$dir" && mkdir -p "$dir"
  # The workload compiled by each JDK's own javac: 8 and 11 cannot load newer class files.
  local classes=$WORK/classes-$label
  [ -d "$classes" ] || { mkdir -p "$classes" && "$home/bin/javac" -d "$classes" "$ROOT/tests/jvm/java/walk/Workload.java"; }
  local opts="$prof,verbose,file=$dir/profile.collapsed"
  case "$prof" in *event=fds*) opts="$opts,fds=$dir/fds.txt" ;; esac
  (cd "$dir" && exec "$home/bin/java" -Xms256m -Xmx256m -Xss4m "-agentpath:$AGENT=$opts" \
    -Dwalk.jni="$JNILIB" -cp "$classes" Workload "$MODES" "$secs") >"$dir/run.log" 2>&1 &
  local pid=$! t=0 limit=$((secs + 120)) rss_q=0 rss_max=0 rss_end=0 r
  while kill -0 "$pid" 2>/dev/null && [ $t -lt $limit ]; do
    sleep 5
    t=$((t + 5))
    r=$(rss_mb "$pid")
    [ "${r:-0}" -gt 0 ] && rss_end=$r
    [ "${r:-0}" -gt "$rss_max" ] && rss_max=$r
    [ $t -le $((secs / 4)) ] && rss_q=$rss_end
  done
  local hung=0
  if kill -0 "$pid" 2>/dev/null; then
    hung=1
    kill -QUIT "$pid" 2>/dev/null; sleep 2; kill -KILL "$pid" 2>/dev/null
  fi
  wait "$pid"
  local rc=$?
  local log=$dir/run.log crash
  crash=$(cd "$dir" && ls hs_err_*.log core* 2>/dev/null | head -3 | tr '\n' ' ')
  local ops samples walkmax throttled lost
  ops=$(sed -n 's/^workload .* done .* ops=\([0-9]*\).*/\1/p' "$log" | tail -1)
  samples=$(sed -n 's/^stats: .* events=\([0-9]*\) .*/\1/p' "$log" | tail -1)
  walkmax=$(sed -n 's/^walk time: .* max \([0-9.]*\) us.*/\1/p' "$log" | tail -1)
  throttled=$(grep -Eo 'throttled [0-9]+ samples' "$log" | awk '{s += $2} END {print s + 0}')
  lost=$(sed -n 's/^lost: \([0-9]*\) signals.*/\1/p' "$log" | tail -1)
  # Of the walks made (the summary's "walk results"), the share that gave a trace; walk
  # requests dropped as late (walk=thread) and stale queue elements (walk=queue) apart.
  local walks traced late stale share="-"
  read -r walks traced < <(awk '/^walk results:/ {on = 1; next}
    on && /^  ASGST_/ {n += $2; if ($1 ~ /_TRACE$/) t += $2; next}
    on {exit} END {print n + 0, t + 0}' "$log")
  [ "${walks:-0}" -gt 0 ] && share=$(awk -v t="$traced" -v n="$walks" 'BEGIN {printf "%.2f%%", 100 * t / n}')
  late=$(sed -n 's/^stats: .* request_late=\([0-9]*\) .*/\1/p' "$log" | tail -1)
  stale=$(sed -n 's/^stats: .* stale=\([0-9]*\) .*/\1/p' "$log" | tail -1)
  echo "# figure: soak seg=$i jdk=$label profile=$prof seconds=$secs exit=$rc ops=${ops:-?}" \
    "samples=${samples:-?} walks=${walks:-?} traced=$share late_dropped=${late:-?} stale=${stale:-?}" \
    "lost=${lost:-?} throttled=$throttled" \
    "walk_max_us=${walkmax:-?} rss_mb_quarter=$rss_q rss_mb_end=$rss_end rss_mb_max=$rss_max"
  local what="seg $i ($label, $prof, $secs s)"
  if [ $hung = 1 ]; then
    tap "not ok" "$what: hang: no exit within $limit s (log: ${log#"$BUILD"/})"
  elif [ $rc != 0 ] || [ -z "$ops" ] || [ -n "$crash" ]; then
    tap "not ok" "$what: exit status $rc${crash:+, crash files: $crash} (log: ${log#"$BUILD"/})"
    tail -5 "$log" | sed 's/^/# /'
  else
    tap "ok" "$what: the JVM finished its work under the profiler"
  fi
  [ -n "$samples" ] && [ "$samples" -gt 0 ] && tap "ok" "$what: samples taken" || tap "not ok" "$what: samples taken"
  rm -f "$dir/profile.collapsed"
}

[ -f "$AGENT" ] || { echo "soak: no demo profiler at $AGENT (run ./build.sh build)"; exit 1; }
rm -rf "$WORK"/classes*
mapfile -t list < <(jdks)
nseg=$(( MINUTES >= 30 ? MINUTES / 5 : ${#PROFILES[@]} ))
[ "$nseg" -lt "${#PROFILES[@]}" ] && nseg=${#PROFILES[@]}
[ -n "${SOAK_SEGMENTS:-}" ] && nseg=$SOAK_SEGMENTS
secs=$(( MINUTES * 60 / nseg ))
[ "$secs" -lt 10 ] && secs=10
echo "# soak: $MINUTES min as $nseg segments of $secs s, JDKs: ${#list[@]}"
for ((i = 0; i < nseg; i++)); do
  entry=${list[$((i % ${#list[@]}))]}
  segment "$i" "${entry%% *}" "${entry#* }" "${PROFILES[$((i % ${#PROFILES[@]}))]}" "$secs"
done
echo "# soak: $n checks, $failed failed"
[ "$failed" = 0 ]
