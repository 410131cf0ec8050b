# test_attach.sh BUILD_DIR - asgst-attach: a JVM started without the agent is attached,
# profiled, dumped and stopped and keeps running; clear errors for a dead pid, a non-Java
# pid, a JVM that never opens its attach socket (with a stale socket of an earlier process
# of its pid in the way), and a user mismatch; root attaching to
# another user's JVM. No profile is lost: a relative file= lands in asgst-attach's working
# directory, the summary comes back to its output, an output directory removed before
# the stop sends the profile to the JVM's temp directory (and stop,file=NEW then writes
# it), and /proc targets are refused at start. walk=queue at an attach keeps the samples
# of the threads already running (they have no queue: walked in the handler).
source "$(dirname "$0")/lib.sh" "$1"
echo "1..26"
compile || { echo "Bail out! javac failed"; exit 1; }
chmod 755 "$WORK"
# The cases of uid 65534 use a copy of asgst-attach and the agent in $WORK: the clone may
# lie in a directory only its owner can enter (mktemp -d makes one), which neither that
# user's asgst-attach nor its JVM could read the agent from.
mkdir -p "$WORK/stage/bin" "$WORK/stage/lib"
cp "$ATTACH" "$WORK/stage/bin/" && cp "$AGENT" "$WORK/stage/lib/" && chmod -R a+rX "$WORK/stage"
STAGED=$WORK/stage/bin/asgst-attach
PIDS=()
trap 'for p in "${PIDS[@]}"; do kill -9 "$p" 2>/dev/null; wait "$p" 2>/dev/null; done; rm -rf "$WORK"' EXIT

wait_jvm() { # wait until the JVM has libjvm mapped and its main class started
  for _ in $(seq 50); do grep -q libjvm.so "/proc/$1/maps" 2>/dev/null && sleep 0.5 && return 0; sleep 0.1; done
  return 1
}

# Chunks of a streamed .jfr every 300 ms (stream.c), so that one is written before its
# directory goes below.
ASGST_JFR_CHUNK_MS=300 "$JAVA" -cp "$CLASSES" LongRunner 30 >/dev/null 2>"$WORK/jvm.err" &
JVM=$!; PIDS+=($JVM)
wait_jvm $JVM
# cpu_ms PID: the process's CPU time so far (user + system), in ms.
cpu_ms() { awk -v hz="$(getconf CLK_TCK)" '{print int(($14 + $15) * 1000 / hz)}' "/proc/$1/stat"; }
OUTF=$WORK/attach.collapsed
cpu0=$(cpu_ms $JVM)
"$ATTACH" $JVM "start,event=cpu,interval=1ms,file=$OUTF,file=$WORK/attach.html,file=$WORK/attach.txt" >"$WORK/a1" 2>&1
check "asgst-attach start succeeds" [ $? = 0 ]
diag <"$WORK/a1"
check "start reports the agent's answer" grep -q 'profiling started' "$WORK/a1"
sleep 2
"$ATTACH" $JVM dump >"$WORK/a2" 2>&1; rc=$?
check "dump succeeds and writes the output while profiling" bash -c "[ $rc = 0 ] && [ -s '$OUTF' ]"
# The dump's summary counts the kernel's events of the threads still running.
kline=$(grep -m1 'kernel counted' "$WORK/attach.txt")
figure "dump summary: ${kline# *}"
check "the dump's summary has the kernel's count of the running threads (> 0 s of CPU)" \
  bash -c "echo '$kline' | grep -qE 'kernel counted [0-9.]*[1-9][0-9.]* s of CPU'"
sleep 0.5
"$ATTACH" $JVM stop >"$WORK/a3" 2>"$WORK/a3.err"
check "stop succeeds" [ $? = 0 ]
cpu=$(($(cpu_ms $JVM) - cpu0))
diag <"$WORK/a3"
n=$(samples_total "$OUTF")
figure "attach: $n cpu samples in ~2.5 s at 1 ms, the JVM used $cpu ms of CPU meanwhile"
# One sample a CPU millisecond: 2500 on a quiet machine. A loaded one gives the JVM less
# CPU, so the samples are held against the CPU time the JVM got (attach and JIT threads
# included, hence half).
check "the output holds samples (>= 200 and >= half the JVM's CPU ms, $cpu)" \
  [ "$n" -ge 200 -a "$n" -ge $((cpu / 2)) ]
check "the HTML output exists" [ -s "$WORK/attach.html" ]
check "most samples are attributed to LongRunner.busyWork" [ "$(samples_with "$OUTF" 'LongRunner\.busyWork')" -gt $((n / 2)) ]
check "the JVM keeps running after stop" kill -0 $JVM
"$ATTACH" $JVM stop >"$WORK/a4" 2>"$WORK/a4.err"; rc=$?
diag <"$WORK/a4.err"
check "a second stop reports 'not profiling' with a non-zero status" \
  bash -c "[ $rc != 0 ] && grep -q 'not profiling' '$WORK/a4.err'"
check "an attach error is one line on stderr and nothing on stdout" \
  bash -c "[ \$(wc -l <'$WORK/a4.err') = 1 ] && [ ! -s '$WORK/a4' ]"

# No profile lost. A relative path is the one asgst-attach was given in its own directory.
mkdir -p "$WORK/here" "$WORK/gone"
(cd "$WORK/here" && "$ATTACH" $JVM "start,event=cpu,file=rel.collapsed,file=$WORK/gone/p.collapsed,file=$WORK/gone/p.jfr" \
  >"$WORK/r1" 2>&1)
diag <"$WORK/r1"
sleep 1
rm -rf "$WORK/gone"
(cd "$WORK/here" && "$ATTACH" $JVM stop >"$WORK/r2" 2>"$WORK/r2.err"); rc=$?
diag <"$WORK/r2.err"
check "a relative file= is written in asgst-attach's directory" [ -s "$WORK/here/rel.collapsed" ]
check "the stop's summary comes back on asgst-attach's stdout" \
  grep -q '=== asgst-prof summary' "$WORK/a3"
fb=$(grep -o "written to [^ ]*p\.collapsed" "$WORK/r2.err" | sed 's/written to //')
figure "fallback of the removed directory's file: ${fb:-none}"
check "a removed output directory: the stop fails, and its message names the fallback file" \
  bash -c "[ $rc != 0 ] && [ -n '$fb' ] && [ -s '$fb' ]"
jfb=${fb%.collapsed}.jfr
chunks=$(grep -a -o 'FLR' "$jfb" 2>/dev/null | wc -l)
figure "the removed directory's streamed .jfr in the fallback: $chunks chunks"
check "a streamed .jfr keeps the chunks written before its directory went ($chunks >= 2)" \
  [ "$chunks" -ge 2 ]
rm -f "$fb" "$jfb"
"$ATTACH" $JVM "stop,file=$WORK/new.collapsed" >"$WORK/r3" 2>&1; rc=$?
diag <"$WORK/r3"
check "stop,file=NEW then writes the kept profile" \
  [ $rc = 0 -a "$(samples_total "$WORK/new.collapsed")" -gt 0 ]
"$ATTACH" $JVM stop >"$WORK/r4" 2>&1; rc=$?
check "once written, the profile is no longer kept ('not profiling')" \
  bash -c "[ $rc != 0 ] && grep -q 'not profiling' '$WORK/r4'"
"$ATTACH" $JVM "start,event=cpu,file=/proc/self/status" >"$WORK/r5" 2>&1; rc=$?
diag <"$WORK/r5"
check "file=/proc/self/status is refused at start, naming the option" \
  bash -c "[ $rc != 0 ] && grep -q 'file=/proc/self/status: in /proc' '$WORK/r5'"
mkfifo "$WORK/fifo.txt"
"$ATTACH" $JVM "start,event=cpu,file=$WORK/fifo.txt" >"$WORK/r6" 2>&1; rc=$?
check "a FIFO target is refused at start" bash -c "[ $rc != 0 ] && grep -q 'a FIFO' '$WORK/r6'"
# walk=queue at an attach: every thread was running before it, so none has a queue (a queue
# is registered on its own thread, at ThreadStart); their samples are walked in the handler
# and keep their Java frames instead of being lost.
"$ATTACH" $JVM "start,event=cpu,interval=1ms,walk=queue,verbose,file=$WORK/q.collapsed" >"$WORK/q1" 2>&1
sleep 1.5
"$ATTACH" $JVM stop >"$WORK/q2" 2>&1; rc=$?
qn=$(samples_total "$WORK/q.collapsed") qb=$(samples_with "$WORK/q.collapsed" 'LongRunner\.busyWork')
qh=$(stats_field "$WORK/q2" walked_here)
figure "attach with walk=queue: $qn samples, $qb in LongRunner.busyWork, ${qh:-?} walked in the handler for want of a queue"
check "walk=queue at an attach: main (no queue) keeps its samples, most in LongRunner.busyWork" \
  bash -c "[ $rc = 0 ] && [ '${qh:-0}' -gt 0 ] && [ '$qn' -ge 100 ] && [ \$(( $qb * 2 )) -gt '$qn' ]"

# Errors.
true & DEAD=$!; wait $DEAD
"$ATTACH" $DEAD start >"$WORK/e1" 2>&1; rc=$?
check "dead pid: clear error" bash -c "[ $rc != 0 ] && grep -q 'no process with pid $DEAD' '$WORK/e1'"
sleep 30 & SLEEPER=$!; PIDS+=($SLEEPER)
"$ATTACH" $SLEEPER start >"$WORK/e2" 2>&1; rc=$?
check "non-Java pid: clear error, and the process is not signalled" \
  bash -c "[ $rc != 0 ] && grep -q 'not a Java process' '$WORK/e2' && kill -0 $SLEEPER"
"$JAVA" -XX:+DisableAttachMechanism -cp "$CLASSES" LongRunner 30 >/dev/null 2>&1 &
NOATT=$!; PIDS+=($NOATT)
wait_jvm $NOATT
# A socket left at the JVM's path by an earlier process with its pid (pids are reused; a
# killed JVM leaves its socket behind) is not this JVM's: the connect would be refused.
stale_socket() {
  python3 -c "import socket,sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])" "$1" &&
    touch -h -d '1 hour ago' "$1" && chown "$2" "$1"
}
stale_socket /tmp/.java_pid$NOATT 0
"$ATTACH" $NOATT start --timeout 2 >"$WORK/e3" 2>&1; rc=$?
rm -f /tmp/.java_pid$NOATT
check "JVM that never opens its socket: timeout error" \
  bash -c "[ $rc != 0 ] && grep -q 'timeout' '$WORK/e3'"
diag <"$WORK/e3"
setpriv --reuid=65534 --regid=65534 --clear-groups "$STAGED" $JVM start >"$WORK/e4" 2>&1; rc=$?
check "user mismatch: clear error" bash -c "[ $rc != 0 ] && grep -q 'user mismatch' '$WORK/e4'"
diag <"$WORK/e4"
# Root attaching to another user's JVM takes that user's identity for the handshake.
setpriv --reuid=65534 --regid=65534 --clear-groups "$JAVA" -cp "$CLASSES" LongRunner 30 \
  >/dev/null 2>"$WORK/nobody.err" &
NB=$!; PIDS+=($NB)
wait_jvm $NB
stale_socket /tmp/.java_pid$NB 65534:65534
mkdir -p "$WORK/nb" && chmod 777 "$WORK/nb"
"$STAGED" $NB "start,event=cpu,file=$WORK/nb/p.collapsed" >"$WORK/e5" 2>&1 && sleep 1 &&
  "$STAGED" $NB stop >>"$WORK/e5" 2>&1
check "root attaches to a JVM of another user (uid 65534)" [ -s "$WORK/nb/p.collapsed" ]
check "a stale socket at the JVM's path (left by an earlier pid) is passed over" \
  bash -c "! grep -q 'cannot connect' '$WORK/e5'"
diag <"$WORK/e5"
