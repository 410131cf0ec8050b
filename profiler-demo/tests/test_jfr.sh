# test_jfr.sh BUILD_DIR - file=X.jfr is a JFR recording the JDK's own `jfr` tool reads
# without a complaint: one event per sample (counts exact against the profiler's own), at
# times within the run, frames with lines, bcis and types, classes with their packages, the
# hottest methods' shares from the events' top frames within 1 point of the .txt's (same
# run), threads named; syscall tracepoints' samples are asgst.Tracepoint /
# asgst.FileDescriptor events with their stacks; wall samples with C frames (cstack) are
# jdk.NativeMethodSample / jdk.ExecutionSample events that jfr prints. Read with this JDK's
# jfr (JDK 17's if it has none). Threads carry their Java thread id and group; every chunk
# has jdk.ActiveRecording, jdk.ActiveSetting, jdk.JVMInformation and jdk.OSInformation.
# A file streamed in many small chunks (ASGST_JFR_CHUNK_MS) is read whole by jfr, and by
# async-profiler's converter (ASPROF_HOME: its build, with bin/jfrconv or the converter
# jar), whose collapsed output's ten hottest self methods have our .collapsed's shares
# within 1 point.
source "$(dirname "$0")/lib.sh" "$1"
echo "1..19"
compile || { echo "Bail out! javac failed"; exit 1; }
JFR=$(host_jfr)
[ "$JFR" = "$JAVA_HOME/bin/jfr" ] || echo "# $JAVA_HOME has no bin/jfr: reading with $JFR"

# samples_of TXT EVENT: the profiler's own sample count of EVENT in a .txt summary.
samples_of() { sed -n "s/^  $2 \+samples \([0-9]*\) .*/\1/p" "$1" | head -1; }
# events_of SUMMARY TYPE: the count `jfr summary` gives TYPE (0 if absent).
events_of() { awk -v t="$2" '$1 == t {print $2; f = 1} END {if (!f) print 0}' "$1"; }

J=$WORK/p.jfr T=$WORK/p.txt
t0=$(date +%s.%N)
run_agent "event=cpu,interval=1ms,file=$J,file=$T" DemoApp 1.5 >/dev/null
check "JVM exits 0" [ $? = 0 ]
t1=$(date +%s.%N)
"$JFR" summary "$J" >"$WORK/summary" 2>&1
rc=$?
diag <"$WORK/summary"
check "jfr summary exits 0 and says no warning, error or exception" \
  bash -c "[ $rc = 0 ] && ! grep -qiE 'warn|error|exception' '$WORK/summary'"
"$JFR" print --events jdk.ExecutionSample "$J" >"$WORK/print" 2>"$WORK/print.err"
rc=$?
head -5 "$WORK/print.err" | diag
check "jfr print --events jdk.ExecutionSample exits 0, nothing on stderr" \
  bash -c "[ $rc = 0 ] && [ ! -s '$WORK/print.err' ]"
own=$(samples_of "$T" cpu)
in_summary=$(events_of "$WORK/summary" jdk.ExecutionSample)
printed=$(grep -c '^jdk.ExecutionSample' "$WORK/print")
figure "cpu samples: profiler $own, jfr summary $in_summary, jfr print $printed"
check "jdk.ExecutionSample events == the profiler's cpu samples, exactly" \
  bash -c "[ -n '$own' ] && [ '$own' -gt 0 ] && [ '$in_summary' = '$own' ] && [ '$printed' = '$own' ]"
# A .jfr keeps each sample as a record, not as a count of the call-trace store: the
# summaries must still give the hottest methods, and the .txt's store line must say where
# the samples are rather than "0 distinct traces" alone.
store=$(grep -m1 '^call-trace store:' "$T")
hot=$(sed -n '/^cpu: /,/^[^ ]/{/^  hottest methods/{n;p;q}}' "$WORK/stderr" | awk '{print $3}')
figure "with a .jfr: stderr's hottest method ${hot:-none}; .txt: $store"
check "with a .jfr output the stderr summary names the hottest methods (DemoApp.hashLoop first) and the store line counts the samples kept one by one" \
  bash -c "[ '$hot' = DemoApp.hashLoop ] && echo '$store' | grep -Eq '^call-trace store: [1-9]|samples kept one by one'"

# Event times as jfr gives them (ticks through the chunk header's start and rate), in
# seconds since the epoch: all within the run, spanning at least 1 s of its 1.5 s of CPU.
"$JFR" print --json --events jdk.ExecutionSample "$J" >"$WORK/json"
sed -n 's/.*"startTime": "\(.*\)".*/\1/p' "$WORK/json" >"$WORK/times"
date -f "$WORK/times" +%s.%N 2>/dev/null | sort -n >"$WORK/epoch"
first=$(head -1 "$WORK/epoch") last=$(tail -1 "$WORK/epoch")
figure "event times: run $t0 .. $t1, events ${first:-none} .. ${last:-none}"
check "event times lie within the run and span at least 1 s" \
  awk -v a="$t0" -v b="$t1" -v f="${first:-0}" -v l="${last:-0}" \
  'BEGIN {exit !(f >= a && l <= b && l - f >= 1)}'

# Frames as the JDK's types have them: line, bci, frame type; a class with its package
# (the class name up to its last dot, a hidden class's ".0x..." or ".123" suffix left
# out), for every class of the recording.
packages=$(awk '/"package": \{/ {cls = prev; getline; sub(/.*"name": "/, ""); sub(/".*/, "")
                  c = cls; sub(/.*"name": "/, "", c); sub(/".*/, "", c)
                  want = c; sub(/\.(0x[0-9a-f]+|[0-9]+)$/, "", want)
                  if (!sub(/\.[^.]*$/, "", want)) want = ""
                  if (want == $0) ok++; else bad++ }
                {prev = $0} END {print ok + 0, bad + 0}' "$WORK/json")
lines=$(grep -cE '"lineNumber": [1-9]' "$WORK/json")
bcis=$(grep -cE '"bytecodeIndex": [1-9]' "$WORK/json")
interp=$(grep -c '"type": "Interpreted"' "$WORK/json")
jit=$(grep -c '"type": "JIT compiled"' "$WORK/json")
figure "frames with a line $lines, a bci $bcis, Interpreted $interp, JIT compiled $jit;" \
  "classes with their package right, wrong: $packages"
check "frames carry line numbers, bcis, types Interpreted and JIT compiled; classes packages" \
  bash -c "[ $lines -gt 0 ] && [ $bcis -gt 0 ] && [ $interp -gt 0 ] && [ $jit -gt 0 ] && [ ${packages% *} -gt 0 ] && [ ${packages#* } = 0 ]"

# Shares of the top frames' methods among all events, as the .txt's hot list counts them.
# A C frame is a method of the pseudo-class "[native]" in the recording ("[native].SpinPause",
# jfr_pools.c) and its bare name in the .txt: compared by the bare name (a loaded machine
# puts the GC threads' SpinPause among the hottest).
awk '/^jdk.ExecutionSample/ {n++; want = 1; next}
     want && /stackTrace = \[/ {
       getline l
       if (l !~ /^ *\]/) { sub(/^ +/, "", l); sub(/\(.*/, "", l); sub(/^\[native\]\./, "", l); c[l]++ }
       want = 0 }
     END {for (k in c) printf "%s %.2f\n", k, 100 * c[k] / n}' "$WORK/print" \
  | sort -k2,2nr >"$WORK/jfr_shares"
# Java methods only: a kernel frame (`_[k]`, context switches on a loaded machine) can be
# among the hottest, and `jfr print` names it without the suffix.
sed -n '/^hottest frames/,$p' "$T" | sed 1d \
  | awk '$3 !~ /_\[k\]$/ {sub(/%/, "", $2); print $3, $2}' | head -3 >"$WORK/txt_shares"
far=0
while read -r name share; do
  other=$(awk -v m="$name" '$1 == m {print $2}' "$WORK/jfr_shares")
  figure "$name: .txt ${share}%, .jfr ${other:-none}%"
  awk -v a="$share" -v b="${other:--100}" 'BEGIN {d = a - b; exit !(d <= 1 && d >= -1)}' \
    || far=$((far + 1))
done <"$WORK/txt_shares"
check "the 3 hottest methods' shares agree within 1 point (.txt and .jfr top frames)" \
  bash -c "[ -s '$WORK/txt_shares' ] && [ $far = 0 ]"
grep -q DemoApp.hashLoop "$WORK/jfr_shares"
check "DemoApp.hashLoop is a top frame in the recording" [ $? = 0 ]

# The thread type as the JDK's: main with its Java thread id (1 on 8-21, 3 on 25 and 27 here)
# and group "main".
main_thread=$(grep -A6 '"sampledThread": {' "$WORK/json" | grep -A3 '"javaName": "main"' | head -4 | tr -d ' \n')
figure "main thread: $main_thread"
check "threads carry javaThreadId and group (main: a Java thread id, \"main\")" \
  bash -c "echo '$main_thread' | grep -q '\"javaThreadId\":[1-9][0-9]*,\"group\":{' && grep -q '\"name\": \"main\"' '$WORK/json'"
info=""
for e in jdk.ActiveRecording jdk.ActiveSetting jdk.JVMInformation jdk.OSInformation; do
  info="$info $e=$(events_of "$WORK/summary" $e)"
done
figure "metadata events:$info"
check "jdk.ActiveRecording, jdk.ActiveSetting, jdk.JVMInformation, jdk.OSInformation present" \
  bash -c "! echo '$info' | grep -q '=0'"

names=$(sed -n 's/^  sampledThread = "\(.*\)" (.*\(osThreadId\|javaThreadId\) = [0-9]*.*/\1/p' "$WORK/print" | sort -u)
echo "$names" | diag
check "threads are named (the main thread by its Java name, none by 'tid N')" \
  bash -c "echo '$names' | grep -qxE 'main|DestroyJavaVM' && ! echo '$names' | grep -q '^tid '"

# Streamed in chunks of 0.2 s: jfr reads every chunk (events == the profiler's samples),
# stack traces and all.
J=$WORK/c.jfr T=$WORK/c.txt C=$WORK/c.collapsed
ASGST_JFR_CHUNK_MS=200 run_agent "event=cpu,interval=1ms,file=$J,file=$T,file=$C" DemoApp 1.5 \
  >/dev/null
"$JFR" summary "$J" >"$WORK/summary" 2>&1
rc=$?
"$JFR" print --events jdk.ExecutionSample "$J" >"$WORK/print" 2>"$WORK/print.err"
chunks=$(awk '$1 == "Chunks:" {print $2}' "$WORK/summary")
own=$(samples_of "$T" cpu)
in_summary=$(events_of "$WORK/summary" jdk.ExecutionSample)
printed=$(grep -c '^jdk.ExecutionSample' "$WORK/print")
framed=$(grep -c 'line: [0-9]' "$WORK/print")
figure "chunked: $chunks chunks, profiler $own samples, jfr summary $in_summary, jfr print $printed, frame lines $framed"
check "a file of many chunks: jfr reads every one (events == the profiler's samples, with stacks)" \
  bash -c "[ $rc = 0 ] && [ '${chunks:-0}' -ge 3 ] && [ -n '$own' ] && [ '$in_summary' = '$own' ] && [ '$printed' = '$own' ] && [ '$framed' -gt 0 ] && [ ! -s '$WORK/print.err' ]"

# async-profiler's converter on the same file: its ten hottest self methods (frame-type
# suffixes dropped) within 1 point of ours.
# top_self COLLAPSED N: "method share%" of the N methods with the most self samples.
top_self() {
  awk '{n = $NF; l = $0; sub(/ [0-9]+$/, "", l); k = split(l, a, ";"); m = a[k]
        sub(/_\[[01jik]\]$/, "", m); c[m] += n; t += n}
       END {for (m in c) printf "%s %.2f\n", m, 100 * c[m] / t}' "$1" | sort -k2,2nr | head -"$2"
}
converter=""
if [ -n "${ASPROF_HOME:-}" ]; then
  for jar in "$ASPROF_HOME"/lib/converter.jar "$ASPROF_HOME"/jar/jfr-converter.jar; do
    [ -f "$jar" ] && converter=$jar
  done
  [ -x "$ASPROF_HOME/bin/jfrconv" ] && [ -z "$converter" ] && converter=$ASPROF_HOME/bin/jfrconv
fi
if [ -z "${ASPROF_HOME:-}" ]; then
  skip "async-profiler's converter reads it; top-10 self methods within 1 point of ours" \
    "ASPROF_HOME not set: jfrconv not run"
elif [ -z "$converter" ]; then
  not_ok "async-profiler's converter reads it: no converter under ASPROF_HOME=$ASPROF_HOME"
else
  # The converter wants Java 11 or later: the JDK whose jfr reads the file.
  conv_java=$(dirname "$(dirname "$JFR")")/bin/java
  case "$converter" in
    *.jar) "$conv_java" -cp "$converter" one.convert.Main -o collapsed "$J" "$WORK/conv.collapsed" ;;
    *) JAVA_HOME=$(dirname "$(dirname "$JFR")") "$converter" -o collapsed "$J" "$WORK/conv.collapsed" ;;
  esac >"$WORK/conv.out" 2>&1
  rc=$?
  head -5 "$WORK/conv.out" | diag
  top_self "$C" 10 >"$WORK/ours_top"
  top_self "$WORK/conv.collapsed" 100000 >"$WORK/conv_top" 2>/dev/null
  far=0
  while read -r name share; do
    other=$(awk -v m="$name" '$1 == m {print $2}' "$WORK/conv_top")
    figure "self $name: ours ${share}%, converter's ${other:-none}%"
    awk -v a="$share" -v b="${other:-0}" 'BEGIN {d = a - b; exit !(d <= 1 && d >= -1)}' \
      || far=$((far + 1))
  done <"$WORK/ours_top"
  check "async-profiler's converter reads it; top-10 self methods within 1 point of ours" \
    bash -c "[ $rc = 0 ] && [ -s '$WORK/conv.collapsed' ] && [ -s '$WORK/ours_top' ] && [ $far = 0 ]"
fi

# Syscall tracepoints: socket's samples (their fds caught) are asgst.FileDescriptor events,
# getsockname's (no fd caught) asgst.Tracepoint events, both with their stacks.
J=$WORK/t.jfr T=$WORK/t.txt
run_agent "event=syscalls:sys_enter_socket,event=syscalls:sys_enter_getsockname,file=$J,file=$T" \
  DemoApp 0.2 >/dev/null
check "JVM with the tracepoints exits 0" [ $? = 0 ]
"$JFR" summary "$J" >"$WORK/summary" 2>&1
rc=$?
sockets=$(samples_of "$T" syscalls:sys_enter_socket)
names=$(samples_of "$T" syscalls:sys_enter_getsockname)
fd=$(events_of "$WORK/summary" asgst.FileDescriptor)
tp=$(events_of "$WORK/summary" asgst.Tracepoint)
figure "socket: $sockets samples, $fd asgst.FileDescriptor; getsockname: $names samples, $tp asgst.Tracepoint"
check "jfr summary clean; asgst.FileDescriptor == socket samples > 0, asgst.Tracepoint == getsockname samples > 0" \
  bash -c "[ $rc = 0 ] && ! grep -qiE 'warn|error|exception' '$WORK/summary' && [ '${sockets:-0}' -gt 0 ] && [ '$fd' = '$sockets' ] && [ '${names:-0}' -gt 0 ] && [ '$tp' = '$names' ]"
"$JFR" print --stack-depth 64 --events asgst.Tracepoint,asgst.FileDescriptor "$J" \
  >"$WORK/print" 2>"$WORK/print.err"
rc=$?
check "their events name the tracepoint and the call, and carry DemoApp.openServer's stack" \
  bash -c "[ $rc = 0 ] && [ ! -s '$WORK/print.err' ] && grep -q 'name = \"syscalls:sys_enter_getsockname\"' '$WORK/print' && grep -q 'call = \"socket\"' '$WORK/print' && grep -q 'DemoApp.openServer' '$WORK/print'"

# Wall-clock samples with C frames: a thread in a native method is a jdk.NativeMethodSample
# (as the JDK's JFR has it), any other a jdk.ExecutionSample; C frames print as methods.
J=$WORK/w.jfr T=$WORK/w.txt
run_agent "event=wall,interval=5ms,cstack,file=$J,file=$T" WallThreads 1 >/dev/null
"$JFR" summary "$J" >"$WORK/summary" 2>&1
own=$(samples_of "$T" wall)
native=$(events_of "$WORK/summary" jdk.NativeMethodSample)
java=$(events_of "$WORK/summary" jdk.ExecutionSample)
figure "wall: $own samples; $native jdk.NativeMethodSample, $java jdk.ExecutionSample"
check "wall samples == jdk.NativeMethodSample + jdk.ExecutionSample, both > 0" \
  bash -c "[ '${own:-0}' -gt 0 ] && [ '$native' -gt 0 ] && [ '$java' -gt 0 ] && [ \$(($native + $java)) = '$own' ]"
"$JFR" print --events jdk.NativeMethodSample,jdk.ExecutionSample "$J" >"$WORK/print" \
  2>"$WORK/print.err"
rc=$?
head -5 "$WORK/print.err" | diag
check "jfr print of them exits 0, nothing on stderr, C frames as [native].name()" \
  bash -c "[ $rc = 0 ] && [ ! -s '$WORK/print.err' ] && grep -q '^    \[native\]\.[^ ]*()' '$WORK/print'"
