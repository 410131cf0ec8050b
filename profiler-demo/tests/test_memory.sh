# test_memory.sh BUILD_DIR - the profiler's memory stays bounded: four busy threads with
# varied but finite stacks (BusyThreads), event=cpu,interval=1ms for ~20 s; the JVM's
# resident memory grows by less than 8 MB between ~5 s and ~18 s (MEMORY_TEST_SECONDS sets
# the run's length, default 20; the window is from a quarter of it to 2 s before its end;
# the quick tier runs 12 s: docs/testing.md) (samples of a known
# stack are counted in the call-trace store, not kept each), and by less than half of what
# the window's samples would take kept one by one (the peer figure, from this run: samples
# in the window times a record's bytes, skipped if too small to tell from the JVM's own
# growth); the store holds far fewer traces than samples; and the counts are exact: the
# profiler's total equals the .txt's, the .pb.gz's, and the .collapsed's sum plus the
# samples without frames (which the .collapsed leaves out).
source "$(dirname "$0")/lib.sh" "$1"
source "$TESTS/pprof_lib.sh"
echo "1..7"
compile || { echo "Bail out! javac failed"; exit 1; }
D=$WORK/mem
SECS=${MEMORY_TEST_SECONDS:-20}
FROM=$((SECS / 4)) TO=$((SECS - 2)) # the window, in seconds from the start
mkdir -p "$D"
# Started directly (not through jvm/run_agent): its pid is the JVM's, to read its memory.
"$JAVA" -agentpath:"$AGENT=event=cpu,interval=1ms,verbose,file=$D/p.collapsed,file=$D/p.txt,file=$D/p.pb.gz" \
  -cp "$CLASSES" BusyThreads "$SECS" 4 >/dev/null 2>"$WORK/stderr" &
JVM=$!
trap 'kill -9 $JVM 2>/dev/null; wait $JVM 2>/dev/null; rm -rf "$WORK"' EXIT
rss_kb() { awk '/^VmRSS:/ {print $2}' "/proc/$JVM/status" 2>/dev/null; }
sleep "$FROM"
early=$(rss_kb)
sleep $((TO - FROM))
late=$(rss_kb)
wait $JVM
check "JVM with event=cpu,interval=1ms exits 0" [ $? = 0 ]
check "VmRSS read at ~$FROM s (${early:-none} kB) and ~$TO s (${late:-none} kB)" \
  bash -c "[ -n '$early' ] && [ -n '$late' ]"
growth=$(( (${late:-0} - ${early:-0}) / 1024 ))
figure "VmRSS ${early} kB at $FROM s, ${late} kB at $TO s: grew ${growth} MB"
check "resident memory grew by less than 8 MB between $FROM s and $TO s (${growth} MB)" \
  bash -c "[ -n '$early' ] && [ -n '$late' ] && [ $((${late:-0} - ${early:-0})) -lt $((8 * 1024)) ]"

own=$(sed -n 's/^  cpu  *samples \([0-9]*\).*/\1/p' "$WORK/stderr" | tail -1)
t=$(sed -n 's/^hottest frames (self samples of \([0-9]*\).*/\1/p' "$D/p.txt")
c=$(samples_total "$D/p.collapsed")
store=$(grep -E '^call-trace store:|lost to full' "$WORK/stderr" | tr -s ' ' | tr '\n' ';')
figure "samples: profiler ${own:-none}, .txt ${t:-none}, .collapsed $c; $store"
check "the .txt counts the profiler's total (${own:-none}, > 1000), exactly" \
  bash -c "[ -n '$own' ] && [ '$own' -gt 1000 ] && [ '$t' = '$own' ]"
# The peer: the window's share of the samples (13 of ~20 s by default; the first seconds
# are the JVM's start) as records of 56 bytes plus their frames (mean from the store's figures).
traces=$(sed -n 's/^call-trace store: \([0-9]*\) distinct.*/\1/p' "$WORK/stderr")
bytes=$(sed -n 's/^call-trace store: .* frames \([0-9]*\) bytes.*/\1/p' "$WORK/stderr")
check "the call-trace store holds fewer than a tenth as many traces (${traces:-none}) as samples" \
  bash -c "[ -n '$traces' ] && [ -n '$own' ] && [ $((${traces:-0} * 10)) -lt ${own:-0} ]"
if [ -n "$traces" ] && [ "$traces" -gt 0 ] && [ -n "$own" ]; then
  record=$((56 + bytes / traces))
  peer_kb=$((own * (TO - FROM) / SECS * record / 1024))
  figure "the window's samples as records: ~${peer_kb} kB ($record bytes each); grew $((late - early)) kB"
  if [ "$peer_kb" -ge 4096 ]; then
    check "grew by less than half of what the window's samples take as records (${peer_kb} kB)" \
      [ $((late - early)) -lt $((peer_kb / 2)) ]
  else
    skip "grew by less than half of what the samples take as records" \
      "too few samples here (${peer_kb} kB as records) to tell from the JVM's own growth"
  fi
else
  not_ok "grew by less than half of what the samples take as records: no store figures"
fi
if have_pprof; then
  n=$(pprof_total "$D/p.pb.gz" samples)
  nf=$(pprof -top -nodecount=1000 -nodefraction=0 -sample_index=samples "$D/p.pb.gz" |
    awk '/ \[no frames\]$/ {print $1}')
  figure "pprof ${n:-none}, of which without frames ${nf:-0}"
  check "the .pb.gz and the .collapsed (+ ${nf:-0} without frames) count the same ($own)" \
    bash -c "[ '$n' = '$own' ] && [ '$((c + ${nf:-0}))' = '$own' ]"
else
  skip "the .pb.gz and the .collapsed count the same" "$NO_PPROF"
fi
