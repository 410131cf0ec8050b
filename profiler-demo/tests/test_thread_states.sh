# test_thread_states.sh BUILD_DIR - every wall sample carries its thread's state
# (ASGST_ThreadState in the handler). ThreadStates holds one named thread in each state
# for the run: sleeping (Thread.sleep, and the holder of a monitor, also asleep), waiting
# and waiting_timed (Object.wait), blocked (entering the held monitor), parked and
# parked_timed (LockSupport), running (a Java loop) and native (a blocking read of a
# pipe). Oracle: each thread's samples are in its state in >= 95% of them, in the
# collapsed output's "[state=...]" frames (option states) and in the .jfr's state field
# (the JDK's ThreadState names, read with the JDK's jfr); the .html has the frames too,
# pprof a "state" label, the .txt summary the states' shares; and without the option
# the collapsed stacks have none (the default output unchanged).
source "$(dirname "$0")/lib.sh" "$1"
echo "1..23"
compile || { echo "Bail out! javac failed"; exit 1; }
JFR=$(host_jfr)
[ "$JFR" = "$JAVA_HOME/bin/jfr" ] || echo "# $JAVA_HOME has no bin/jfr: reading with $JFR"
C=$WORK/s.collapsed J=$WORK/s.jfr H=$WORK/s.html P=$WORK/s.pb.gz T=$WORK/s.txt
# Under qemu-user 3 s instead of 1.5: the emulated threads start late and the timer thread
# falls behind its ticks, and 1.5 s gave a thread as few as 18 samples.
SECONDS_RUN=1.5
[ "${ASGST_TEST_QEMU:-0}" = 1 ] && SECONDS_RUN=3
run_agent "event=wall,interval=10ms,threads,states,file=$C,file=$J,file=$H,file=$P,file=$T" \
  ThreadStates $SECONDS_RUN
check "JVM with event=wall and states exits 0" [ $? = 0 ]

# counts FILE THREAD WORD: "IN ALL": the samples of THREAD (its root frame "[THREAD tid=N]",
# the space written as _) whose top frame is [state=WORD], and all of them.
counts() {
  awk -v th="^\\[$2.tid=" -v st="[state=$3]" '
    $0 ~ th { n = $NF; line = $0; sub(/ [0-9]+$/, "", line)
                         k = split(line, f, ";"); all += n; if (f[k] == st) in_state += n }
    END { print in_state + 0, all + 0 }' "$1"
}
# share_ok IN ALL: ALL >= FLOOR and IN >= 95% of ALL. FLOOR: half of the 1.5 s at 10 ms,
# 50; under qemu-user (ASGST_TEST_QEMU=1) 20 of the 3 s run: the emulated threads start late
# and the timer thread falls behind its ticks (18-41 a thread in 1.5 s on arm64 JDK 25).
# Under qemu-user the few samples a thread takes before it reaches its state (its start,
# emulated) weigh more in its 20-40: up to 2 of them may be elsewhere (2 of 28 seen for
# st-parked on arm64 JDK 25, where 95% allowed 1).
FLOOR=50 START=0
[ "${ASGST_TEST_QEMU:-0}" = 1 ] && FLOOR=20 START=2
share_ok() { [ "$2" -ge $FLOOR ] && { [ $(($1 * 100)) -ge $(($2 * 95)) ] || [ $(($2 - $1)) -le $START ]; }; }

"$JFR" print --events jdk.ExecutionSample,jdk.NativeMethodSample "$J" 2>/dev/null |
  awk '/sampledThread = / { t = $3 } /state = / { print t, $3 }' >"$WORK/jfr_states"
# jfr_counts THREAD STATE: samples of THREAD in the .jfr with STATE, and in all.
jfr_counts() {
  awk -v t="\"$1\"" -v s="\"$2\"" '$1 == t { all++; if ($2 == s) n++ }
                                    END { print n + 0, all + 0 }' "$WORK/jfr_states"
}

while read -r thread word jfr_state; do
  read -r n all < <(counts "$C" "$thread" "$word")
  figure "$thread: $n of $all samples [state=$word] ($(awk -v a="$n" -v b="$all" 'BEGIN { printf "%.1f", b ? 100 * a / b : 0 }')%)"
  check "$thread: >= 95% of its samples are [state=$word] ($n of $all)" share_ok "$n" "$all"
  read -r n all < <(jfr_counts "$thread" "$jfr_state")
  check "$thread: >= 95% of its .jfr samples are $jfr_state ($n of $all)" share_ok "$n" "$all"
done <<'EOF'
st-sleeping sleeping STATE_SLEEPING
st-holder sleeping STATE_SLEEPING
st-waiting waiting STATE_IN_OBJECT_WAIT
st-waiting-timed waiting_timed STATE_IN_OBJECT_WAIT_TIMED
st-blocked blocked STATE_BLOCKED_ON_MONITOR_ENTER
st-parked parked STATE_PARKED
st-parked-timed parked_timed STATE_PARKED_TIMED
st-running running STATE_RUNNABLE
st-native native STATE_IN_NATIVE
EOF

check "the .html has the state frames" grep -q 'state=parked_timed' "$H"
line=$(grep -m1 'thread states:' "$T")
figure "summary:${line#*:}"
check "the .txt summary gives the wall samples' states" eval 'echo "$line" | grep -q "parked_timed [0-9.]*%"'
# pprof: a "state" label beside the "thread" label; the parked_timed samples are the
# st-parked-timed thread's.
source "$TESTS/pprof_lib.sh"
if have_pprof; then
  tags=$(pprof -tags -tagfocus=state=parked_timed -sample_index=wall_samples "$P")
  echo "$tags" | grep -E 'state|st-parked' | diag
  check "pprof: the parked_timed samples carry the state label and are st-parked-timed's" \
    eval 'echo "$tags" | grep -q "parked_timed" && echo "$tags" | grep -q "st-parked-timed tid" && ! echo "$tags" | grep -q "st-sleeping tid"'
else
  skip "pprof: the state label" "$NO_PPROF"
fi
run_agent "event=wall,interval=10ms,file=$WORK/plain.collapsed" ThreadStates 0.3
check "without states the collapsed output has no state frames" \
  eval '[ -s "$WORK/plain.collapsed" ] && ! grep -q "\[state=" "$WORK/plain.collapsed"'
