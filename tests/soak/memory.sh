#!/usr/bin/env bash
# memory.sh BUILD_DIR [MINUTES] [cpu|jfr|fds|dlopen|all] - the demo profiler left on for a long time
# (default 60 minutes each run, every run):
#   cpu: eight busy threads with varied but finite stacks (BusyThreads), cpu at 1 ms, the
#     .collapsed, .txt and .pb.gz outputs. Its resident memory, read every 30 s, must stay
#     under 100 MB above the same workload's without the agent (run first, 90 s, its
#     highest reading), and the counts must be exact: the profiler's total is the .txt's,
#     the .pb.gz's, and the .collapsed's sum plus the samples without frames.
#   jfr: the same workload as long with a .jfr output (streamed in chunks: every sample is
#     an event, yet memory must not grow with the samples): its resident memory may grow at
#     most 8 MB after its first 10 s, and the JDK's jfr counts every sample in it.
#   fds: event=fds on a thread opening and closing a file and a socket as fast as it can
#     (FdChurn, a fixed pre-touched heap), the report rewritten every 10 s. Its resident
#     memory must grow at most 8 MB from the first minute to the end, no fd call may be
#     lost, and the report's histories must count every file FdChurn opened.
#   dlopen: DlChurn loads a small library (one of four copies), runs its C code 300 ms and
#     unloads it, once a second, beside a Java thread, under cpu at 1 ms with cstack (C
#     frames walked with the tables that every load and unload rebuilds). Its resident
#     memory must grow at most 8 MB from the first minute to the end (retired tables and
#     snapshots are freed), and every load and unload must succeed.
# Not part of `./build.sh test`; run as `./build.sh memsoak [MINUTES] [cpu|jfr|fds|dlopen]`. TAP
# lines; logs stay in BUILD_DIR/memsoak/.
set -u
BUILD=$(cd "${1:?build dir}" && pwd)
MINUTES=${2:-60}
RUNS=${3:-all}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
source "$ROOT/profiler-demo/tests/lib.sh" "$BUILD"
source "$TESTS/pprof_lib.sh"
LOGS=$BUILD/memsoak
rm -rf "$LOGS" && mkdir -p "$LOGS"
case $RUNS in cpu|fds) echo "1..4" ;; jfr|dlopen) echo "1..3" ;; *) echo "1..14" ;; esac
compile || { echo "Bail out! javac failed"; exit 1; }
SECS=$((MINUTES * 60))
# rss_track PID LOG: VmRSS (kB) every 30 s (every 5 s in the first minute) while PID runs.
rss_track() {
  local t=0
  while kill -0 "$1" 2>/dev/null; do
    awk -v t=$t '/^VmRSS:/ {print t, $2}' "/proc/$1/status" 2>/dev/null >>"$2"
    local step=$((t < 60 ? 5 : 30))
    sleep $step
    t=$((t + step))
  done
}
cpu_run() {
  "$JAVA" -cp "$CLASSES" BusyThreads 90 8 >/dev/null 2>&1 &
  rss_track $! "$LOGS/rss-without.log"
  base=$(awk '{if ($2 > m) m = $2} END {print m + 0}' "$LOGS/rss-without.log")
  D=$LOGS/out
  mkdir -p "$D"
  "$JAVA" -agentpath:"$AGENT=event=cpu,interval=1ms,verbose,file=$D/p.collapsed,file=$D/p.txt,file=$D/p.pb.gz" \
    -cp "$CLASSES" BusyThreads "$SECS" 8 >/dev/null 2>"$LOGS/stderr" &
  JVM=$!
  rss_track $JVM "$LOGS/rss-with.log"
  wait $JVM
  check "JVM with the agent, 8 busy threads, cpu 1 ms, $MINUTES min, exits 0" [ $? = 0 ]
  top=$(awk '{if ($2 > m) m = $2} END {print m + 0}' "$LOGS/rss-with.log")
  at10=$(awk '$1 >= 600 {print $2; exit}' "$LOGS/rss-with.log")
  last=$(tail -1 "$LOGS/rss-with.log" | awk '{print $2}')
  figure "VmRSS without the agent at most ${base} kB; with it ${at10:-?} kB at 10 min, ${last} kB at the end, at most ${top} kB"
  check "resident memory stays under 100 MB above the JVM without the agent ($(( (top - base) / 1024 )) MB)" \
    [ "$base" -gt 0 -a $((top - base)) -lt $((100 * 1024)) ]
  own=$(sed -n 's/^  cpu  *samples \([0-9]*\).*/\1/p' "$LOGS/stderr" | tail -1)
  t=$(sed -n 's/^hottest frames (self samples of \([0-9]*\).*/\1/p' "$D/p.txt")
  c=$(samples_total "$D/p.collapsed")
  figure "samples: profiler ${own:-none}, .txt ${t:-none}, .collapsed $c; $(grep -E '^call-trace store:|lost' "$LOGS/stderr" | tr -s ' ' | tr '\n' ';')"
  check "the .txt counts the profiler's total (${own:-none}), exactly" bash -c "[ -n '$own' ] && [ '$t' = '$own' ]"
  n=$(pprof_total "$D/p.pb.gz" samples)
  nf=$(pprof -top -nodecount=1000 -nodefraction=0 -sample_index=samples "$D/p.pb.gz" | awk '/ \[no frames\]$/ {print $1}')
  check "the .pb.gz (${n:-none}) and the .collapsed ($c + ${nf:-0} without frames) count the same" \
    bash -c "[ '$n' = '$own' ] && [ '$((c + ${nf:-0}))' = '$own' ]"
}

# jfr_run: the cpu run's workload with a .jfr output: every sample an event of the file,
# streamed in chunks while the run goes.
jfr_run() {
  D=$LOGS/jfr
  mkdir -p "$D"
  "$JAVA" -agentpath:"$AGENT=event=cpu,interval=1ms,verbose,file=$D/p.jfr,file=$D/p.txt" \
    -cp "$CLASSES" BusyThreads "$SECS" 8 >/dev/null 2>"$LOGS/stderr-jfr" &
  JVM=$!
  rss_track $JVM "$LOGS/rss-jfr.log"
  wait $JVM
  check "JVM with the agent and a .jfr output, 8 busy threads, cpu 1 ms, $MINUTES min, exits 0" [ $? = 0 ]
  at10=$(awk '$1 >= 10 {print $2; exit}' "$LOGS/rss-jfr.log")
  top=$(awk '$1 >= 10 && $2 > m {m = $2} END {print m + 0}' "$LOGS/rss-jfr.log")
  last=$(tail -1 "$LOGS/rss-jfr.log" | awk '{print $2}')
  figure "VmRSS with a .jfr output: ${at10:-?} kB at 10 s, ${last} kB at the end, at most ${top} kB after 10 s"
  check "with a .jfr output resident memory grows at most 8 MB after the first 10 s ($(( (top - ${at10:-0}) / 1024 )) MB)" \
    [ -n "$at10" -a $((top - ${at10:-0})) -le $((8 * 1024)) ]
  JFR=$JAVA_HOME/bin/jfr
  [ -x "$JFR" ] || JFR=$("$ROOT/tests/jdks/list.sh" | awk '$1 == "jdk17" {print $2}')/bin/jfr
  own=$(sed -n 's/^  cpu  *samples \([0-9]*\).*/\1/p' "$LOGS/stderr-jfr" | tail -1)
  "$JFR" summary "$D/p.jfr" >"$LOGS/jfr-summary" 2>&1
  events=$(awk '$1 == "jdk.ExecutionSample" {print $2}' "$LOGS/jfr-summary")
  chunks=$(awk '$1 == "Chunks:" {print $2}' "$LOGS/jfr-summary")
  figure "samples: profiler ${own:-none}, jdk.ExecutionSample ${events:-none} in ${chunks:-?} chunks"
  check "the .jfr holds every sample (${own:-none}) as an event, exactly" \
    bash -c "[ -n '$own' ] && [ '$events' = '$own' ]"
}

# fds_run: FdChurn under event=fds for MINUTES (3 files left open), then the live report.
fds_run() {
  local D=$LOGS/fds
  mkdir -p "$D"
  "$JAVA" -Xms32m -Xmx32m -XX:+AlwaysPreTouch -XX:+UseSerialGC \
    -agentpath:"$AGENT=event=fds,verbose,fds=$D/fds.txt,fds_interval=10s" -cp "$CLASSES" FdChurn "$D" "$SECS" 3 \
    >"$D/out" 2>"$LOGS/fds-stderr" &
  local jvm=$! t=0
  while kill -0 $jvm 2>/dev/null && [ ! -e "$D/done" ]; do
    awk -v t=$t '/^VmRSS:/ {print t, $2}' "/proc/$jvm/status" 2>/dev/null >>"$LOGS/rss-fds.log"
    local step=$((t < 60 ? 5 : 30))
    sleep $step
    t=$((t + step))
  done
  check "FdChurn under event=fds ran its $MINUTES min" [ -e "$D/done" ]
  "$ATTACH" $jvm fds >"$D/live" 2>&1
  touch "$D/exit"
  wait $jvm
  local at1 last top files sockets fh lost
  at1=$(awk '$1 >= 60 {print $2; exit}' "$LOGS/rss-fds.log")
  last=$(tail -1 "$LOGS/rss-fds.log" | awk '{print $2}')
  top=$(awk '{if ($2 > m) m = $2} END {print m + 0}' "$LOGS/rss-fds.log")
  read -r files sockets < <(sed -n 's/^files=\([0-9]*\) sockets=\([0-9]*\)$/\1 \2/p' "$D/out")
  figure "event=fds: VmRSS ${at1:-?} kB at 1 min, ${last:-?} kB at the end, at most $top kB; FdChurn ${files:-?} files and ${sockets:-?} sockets ($(( (${files:-0} + ${sockets:-0}) / SECS )) a second)"
  check "event=fds: resident memory grows at most 8 MB from 1 min to the end ($(( ${top:-0} - ${at1:-0} )) kB)" \
    [ -n "$at1" -a $(( ${top:-0} - ${at1:-0} )) -le $((8 * 1024)) ]
  fh=$(awk '/^--- closed, counted/ { on = 1; next } on && /^[0-9]+ x / { n = $3 == "openat()" ? $1 : 0; next }
    on && index($0, "  at java.io.FileInputStream.open0 ") == 1 && index($0 " ", "*FdChurn$Churn.openFile ") { s += n }
    END { print s + 0 }' "$D/live")
  check "event=fds: the histories count FdChurn's ${files:-?} files ($fh)" [ -n "$files" -a "$fh" = "${files:-x}" ]
  lost=$(sed -n 's/.*fd calls lost \([0-9]*\).*/\1/p' "$LOGS/fds-stderr")
  figure "$(grep -E '^fd table:' "$LOGS/fds-stderr")"
  check "event=fds: no fd call lost (${lost:-none})" [ "$lost" = 0 ]
}

# dlopen_run: DlChurn (a load and an unload a second) under cpu 1 ms with cstack.
dlopen_run() {
  local D=$LOGS/dlopen
  mkdir -p "$D"
  local cc=${CC:-cc}
  "$cc" -O2 -fPIC -shared -fno-omit-frame-pointer -o "$D/spin0.so" "$ROOT/tests/soak/dlchurn/spin.c" &&
    "$cc" -O2 -fPIC -shared -I"$JAVA_HOME/include" -I"$JAVA_HOME/include/linux" \
      -o "$D/libdlchurn.so" "$ROOT/tests/soak/dlchurn/dlchurn_jni.c" -ldl ||
    { echo "Bail out! cannot build the dlopen run's libraries"; exit 1; }
  for i in 1 2 3; do cp "$D/spin0.so" "$D/spin$i.so"; done
  "$JAVA" -agentpath:"$AGENT=event=cpu,interval=1ms,cstack,verbose,file=$D/p.collapsed" \
    -cp "$CLASSES" DlChurn "$D" "$SECS" 1000 300 >"$D/out" 2>"$LOGS/dlopen-stderr" &
  local jvm=$!
  rss_track $jvm "$LOGS/rss-dlopen.log"
  wait $jvm
  check "DlChurn under cpu 1 ms with cstack, $MINUTES min, exits 0" [ $? = 0 ]
  local at1 last top cycles failed spun whole
  at1=$(awk '$1 >= 60 {print $2; exit}' "$LOGS/rss-dlopen.log")
  last=$(tail -1 "$LOGS/rss-dlopen.log" | awk '{print $2}')
  top=$(awk '$1 >= 60 && $2 > m {m = $2} END {print m + 0}' "$LOGS/rss-dlopen.log")
  read -r cycles failed < <(sed -n 's/^cycles=\([0-9]*\) failed=\([0-9]*\)$/\1 \2/p' "$D/out")
  # Samples in the loaded library's code (named by address: it is gone when the profile is
  # written), and how many of them the walk took down to the thread's start.
  spun=$(awk '/Java_DlChurn_cycle;\[0x/ {s += $NF} END {print s + 0}' "$D/p.collapsed" 2>/dev/null)
  whole=$(awk '/^(clone3|clone|start_thread);.*Java_DlChurn_cycle;\[0x/ {s += $NF} END {print s + 0}' "$D/p.collapsed" 2>/dev/null)
  figure "dlopen: VmRSS ${at1:-?} kB at 1 min, ${last:-?} kB at the end, at most $top kB after 1 min; ${cycles:-?} loads and unloads; $spun samples in the loaded library's code, $whole of them walked to the thread's start"
  check "dlopen: every load and unload succeeded (${cycles:-?}, ${failed:-?} failed)" \
    [ -n "$cycles" -a "${failed:-1}" = 0 -a "${cycles:-0}" -gt 0 ]
  check "dlopen: resident memory grows at most 8 MB from 1 min to the end ($(( ${top:-0} - ${at1:-0} )) kB)" \
    [ -n "$at1" -a $(( ${top:-0} - ${at1:-0} )) -le $((8 * 1024)) ]
}

case $RUNS in
  cpu) cpu_run ;;
  jfr) jfr_run ;;
  fds) fds_run ;;
  dlopen) dlopen_run ;;
  *) cpu_run; jfr_run; fds_run; dlopen_run ;;
esac
