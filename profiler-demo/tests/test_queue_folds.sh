# test_queue_folds.sh BUILD_DIR - walk=queue's compression and its accounting: with cpu
# and wall events at 1 ms on threads whose top frame repeats (sleeping, parked) beside
# spinning ones, samples of the same frame and event as the youngest queued element are
# folded into it (> 0 of them), and every sample is accounted for exactly: samples taken =
# handled + folded into handled + dropped at deregistration (+ folded into those) + queue
# full + no queue + no Java frame + other + walked in the handler (threads without a queue,
# threads that are not Java threads), nothing left waiting after the stop; a thread without
# a queue keeps its Java frames; the outputs carry the folded samples too: the .collapsed
# file's total and the .jfr file's sample events equal the profiler's samples kept, and
# those plus the lost ones equal handled + folded + the in-handler walks.
source "$(dirname "$0")/lib.sh" "$1"
echo "1..7"
compile || { echo "Bail out! javac failed"; exit 1; }
JFR=$(host_jfr)
[ "$JFR" = "$JAVA_HOME/bin/jfr" ] || echo "# $JAVA_HOME has no bin/jfr: reading with $JFR"

# stat KEY: a figure of the summary's stats line.
stat() { stats_field "$WORK/stderr" "$1"; }
# per_event WHAT: the sum over the events' summary lines of "WHAT N" (not the cpu threads
# block's line of what the samples stand for).
per_event() {
  sed -n '/^events:/,/^walk results:/p' "$WORK/stderr" | grep -v 'stand for' |
    sed -n "s/.*[ (]$1 \([0-9]*\).*/\1/p" | awk '{s += $1} END {print s + 0}'
}

C=$WORK/q.collapsed J=$WORK/q.jfr
# overhead=50: the sleeping threads' handlers wait for their suspension, which the default
# 10% throttle would answer by sampling them far less often (fewer repeats to fold).
run_agent "event=cpu,interval=1ms,event=wall,interval=1ms,overhead=50,walk=queue,verbose,file=$C,file=$J" \
  RepeatedFrames 4 4 >/dev/null
check "walk=queue, cpu and wall at 1 ms: JVM exits 0" [ $? = 0 ]
grep -E '^  (enqueued|folded|accounting|cost per)' "$WORK/stderr" | tr -s ' ' | diag
folded=$(stat folded)
check "samples were folded into queued elements (${folded:-none})" \
  bash -c "grep -q '^walk mode: queue' '$WORK/stderr' && [ '${folded:-0}' -gt 0 ]"

samples=$(stat samples) handled=$(stat handled) fh=$(stat folded_handled)
dropped=$(stat dropped) df=$(stat dropped_folds) full=$(stat full) nq=$(stat no_queue)
nj=$(stat no_java) other=$(stat enqueue_failed) enq=$(stat enqueued) ot=$(stat other_threads)
wh=$(stat walked_here)
# Threads that are not Java threads (JIT, GC: cputhreads=all) are walked in the handler, and
# so are Java threads without a queue (the JDK's own started before VMInit).
sum=$((handled + fh + dropped + df + full + nq + nj + other + wh + ot))
figure "samples $samples = handled $handled + folded $fh + dropped $dropped (+$df folded) + full $full + no queue $nq + no Java frame $nj + other $other + in-handler walks for want of a queue $wh + other threads' in-handler walks $ot = $sum"
check "accounting exact: samples taken = handled + folded + dropped (+ folds) + full + no queue + no Java frame + other + walks for want of a queue + other threads' walks" \
  bash -c "[ '${samples:-0}' -gt 0 ] && [ '$samples' = '$sum' ] && [ '$folded' = \$(( $fh + $df )) ] &&
           [ '$enq' = \$(( $handled + $dropped )) ] && grep -q 'accounting: .*: exact (off by 0)' '$WORK/stderr'"

# The JDK's Reference Handler thread starts before VMInit, so it has no queue: its wall
# samples are walked in the handler and keep their Java frames, not lost as "no queue".
refs=$(samples_with "$C" 'Reference\$ReferenceHandler\.run')
check "Java threads without a queue walked in the handler (${wh:-0} samples), the Reference Handler's Java frames among them (${refs:-0})" \
  bash -c "[ '${wh:-0}' -gt 0 ] && [ '${refs:-0}' -gt 0 ]"

kept=$(per_event samples) lost=$(( $(per_event "lost to full buffer") + $(per_event "lost to full call-trace store") ))
figure "kept $kept, lost $lost, handled + folded $((handled + fh)), walked for want of a queue $wh, other threads $ot"
check "samples kept + lost = handled + folded-handled + walks for want of a queue + other threads' walks" [ $((kept + lost)) = $((handled + fh + wh + ot)) ]

total=$(samples_total "$C")
check ".collapsed total ($total) = samples kept ($kept) = the stats' records ($(stat records))" \
  bash -c "[ '$total' = '$kept' ] && [ '$total' = '$(stat records)' ]"

"$JFR" summary "$J" >"$WORK/summary" 2>&1
events=$(awk '$1 == "jdk.ExecutionSample" || $1 == "jdk.NativeMethodSample" {s += $2} END {print s + 0}' "$WORK/summary")
check ".jfr sample events ($events) = samples kept ($kept)" [ "$events" = "$kept" ]
