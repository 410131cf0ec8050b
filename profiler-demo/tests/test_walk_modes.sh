# test_walk_modes.sh BUILD_DIR - walk=signal|thread|queue: bad values stop the JVM naming
# the option; walk=thread takes samples with Java stacks for cpu and wall events (the
# walker thread / the wall timer thread walk out of thread); walk=queue registers a queue
# per thread and enqueues (handling happens at the library's safe points).
source "$(dirname "$0")/lib.sh" "$1"
echo "1..10"
compile || { echo "Bail out! javac failed"; exit 1; }
for c in "walk=bogus|walk=bogus" "walk=thread,compare,walk=signal|compare"; do
  opts=${c%%|*} bad=${c#*|}
  jvm -agentpath:"$AGENT=event=cpu,$opts" -cp "$CLASSES" LongRunner 0.1 >"$WORK/out" 2>&1
  rc=$?
  check "'$opts': JVM does not start (rc $rc) and the message names '$bad'" \
    bash -c "[ $rc != 0 ] && grep -qF -- '$bad' '$WORK/out'"
done
stat() { stats_field "$WORK/stderr" "$1"; }

# The walk modes are about Java threads (the others are walked in the handler in every
# mode, test_all_threads.sh): cputhreads=java keeps the shares below theirs.
run_agent "event=cpu,interval=2ms,walk=thread,compare,verbose,cputhreads=java,threads,file=$WORK/t.collapsed" Ratio 2 >/dev/null
check "walk=thread with cpu: JVM exits 0" [ $? = 0 ]
n=$(samples_with "$WORK/t.collapsed" 'Ratio\.(threeParts|onePart)')
# main's walks in Ratio.main (the root "[main tid=N]", its space written as _), less those
# in its setup (ManagementFactory.getThreadMXBean: seconds of interpreting under qemu-user).
in_main=$(samples_with "$WORK/t.collapsed" '^\[main.tid=.*;Ratio\.main')
setup=$(samples_with "$WORK/t.collapsed" '^\[main.tid=.*;Ratio\.main[^;]*;[^;]*ManagementFactory')
in_main=$((in_main - setup))
figure "walk=thread cpu: $n samples in Ratio's parts of main's $in_main in Ratio.main past its setup ($setup in it; $(stat ok) walks succeeded); $(grep -E 'compare|event to walk|cost per' "$WORK/stderr" | tr -s ' ' | tr '\n' ';')"
# How many samples there are depends on the machine: on a loaded one each out-of-thread walk
# waits for the target to be scheduled, and the overload throttle then lengthens the period
# (53 samples in one such run instead of about 260). What must hold: the walks of main
# while it runs Ratio.main's loop find it in Ratio's two parts (80% of them at least) and
# there are enough to say so. Not a share of all the
# walks: the JVM's start and its compiler threads (Java threads too) take a share that
# grows with the machine's load (under qemu-user beside another emulated JVM, Ratio had
# 56-58% of all the walks on JDK 25, 68% alone).
in_ratio=80
check "walk=thread with cpu: the summary names the mode, >= 30 samples in Ratio's parts, >= $in_ratio% of main's ${in_main:-?} walks in Ratio.main" \
  bash -c "grep -q '^walk mode: thread' '$WORK/stderr' && [ '$n' -ge 30 ] && [ '${in_main:-0}' -ge '$n' ] && [ \$(( $n * 100 )) -ge \$(( ${in_main:-0} * $in_ratio )) ]"

run_agent "event=wall,interval=10ms,walk=thread,verbose,file=$WORK/w.collapsed" Ratio 2 >/dev/null
check "walk=thread with wall (the timer thread walks): JVM exits 0" [ $? = 0 ]
n=$(samples_with "$WORK/w.collapsed" 'Ratio\.main')
figure "walk=thread wall: $n samples in Ratio.main"
# Few on a loaded machine: each out-of-thread walk waits for the target to be scheduled.
check "walk=thread with wall: >= 3 samples in Ratio.main" [ "$n" -ge 3 ]

run_agent "event=cpu,interval=2ms,walk=queue,compare,verbose,cputhreads=java,file=$WORK/q.collapsed" Ratio 1 >/dev/null
check "walk=queue with cpu: JVM exits 0" [ $? = 0 ]
figure "walk=queue: $(grep -E '^  enqueued|^  compare' "$WORK/stderr" | tr -s ' ' | tr '\n' ';')"
check "walk=queue: the summary names the mode and elements were enqueued" \
  bash -c "grep -q '^walk mode: queue' '$WORK/stderr' && [ '$(stat enqueued)' -gt 0 ]"
# Each handled element's stack equals the in-handler walk of its sample, an interpreted
# top frame's bci included; and the samples the queue itself lost (a Java frame to
# enqueue, but no queue on the thread or an enqueue that failed) are few: the library's and
# the profiler's threads (asgst-...) and the JVM's own (their JDK 26+ short names included)
# are not profiled, main has a queue. Samples with no Java frame at all are lost to every
# mode alike (the in-handler walk finds none either): a figure, not a loss of the queue.
compared=$(stat compared) same=$(stat same) events=$(stat events)
failed=$(( $(stat enqueue_failed) + $(stat no_queue) ))
figure "walk=queue: of ${events:-?} events, ${failed:-?} lost by the queue, $(stat no_java) with no Java frame to enqueue, $(stat walked_here) walked in the handler for want of a queue"
same_pct=99
check "walk=queue with compare: >= $same_pct% of the ${compared:-?} compared stacks identical (${same:-?})" \
  bash -c "[ '${compared:-0}' -ge 50 ] && [ \$(( ${same:-0} * 100 )) -ge \$(( ${compared:-0} * $same_pct )) ]"
check "walk=queue: at most 2% of the ${events:-?} events not enqueued though they had a Java frame (${failed:-?})" \
  bash -c "[ \$(( ${failed:-1000000} * 50 )) -le '${events:-0}' ]"
