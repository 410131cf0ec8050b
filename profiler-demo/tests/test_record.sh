# test_record.sh BUILD_DIR - record=: the demo profiler records walks into one file, and
# asgst-replay walks each again without the JVM to the same frames; bad record options stop
# the agent with a message naming them.
source "$(dirname "$0")/lib.sh" "$1"
echo "1..6"
compile || { echo "Bail out! javac failed"; exit 1; }
REC=$WORK/walks.asgstrec
run_agent "event=cpu,interval=1ms,file=$WORK/out.collapsed,record=$REC,record_walks=all,record_n=12" LongRunner 2
check "JVM with record= exits 0" [ $? = 0 ]
diag <"$WORK/stderr"
check "the agent says 12 walks were recorded" grep -q "12 walks recorded into $REC" "$WORK/stderr"
out=$("$BUILD/bin/asgst-replay" --check "$REC" 2>&1)
echo "$out" | tail -1 | diag
check "the 12 recordings in the file replay to the live frames" grep -q "^replayed 12: 12 identical" <<<"$out"
figure "record=: $(stat -c %s "$REC") bytes for 12 walks"
# Only errors by default: a healthy run records few or none, and says how many.
run_agent "event=cpu,interval=1ms,record=$WORK/errors.asgstrec" LongRunner 1
check "record= alone records only walks that ended in an error" grep -q "recorded into $WORK/errors.asgstrec (walks that ended in an error" "$WORK/stderr"
run_agent "event=cpu,record=$REC,record_n=0" LongRunner 1
check "record_n=0 stops the agent, naming the option" grep -q "record_n=0" "$WORK/stderr"
run_agent "event=cpu,record=$REC,record_walks=some" LongRunner 1
check "record_walks=some stops the agent, naming the option" grep -q "record_walks=some" "$WORK/stderr"
