# test_pprof.sh BUILD_DIR - file=X.pb.gz is a pprof profile `go tool pprof` reads: one run
# writes .pb.gz and .txt, and pprof's flat shares of the hottest methods are the .txt's
# (within 1 point), its sample count the profiler's own, exactly; Java frames carry source
# lines; wall and a tracepoint event are sample types of their own, the tracepoint's with
# its own exact count.
source "$(dirname "$0")/lib.sh" "$1"
source "$TESTS/pprof_lib.sh"
echo "1..10"
if ! have_pprof; then
  for i in $(seq 9); do skip "pprof check $i" "$NO_PPROF"; done
  exit 0
fi
compile || { echo "Bail out! javac failed"; exit 1; }
P=$WORK/p.pb.gz T=$WORK/p.txt
run_agent "event=cpu,interval=1ms,file=$P,file=$T" DemoApp 3 >/dev/null
check "JVM with file=.pb.gz and .txt exits 0" [ $? = 0 ]
pprof -top -sample_index=samples "$P" >"$WORK/top" 
check "go tool pprof -top -sample_index=samples reads it (rc $?), type samples" \
  grep -q '^Type: samples' "$WORK/top"
check "and -sample_index=cpu (nanoseconds)" bash -c "go tool pprof -top -sample_index=cpu '$P' 2>&1 | grep -q '^Type: cpu'"
head -12 "$WORK/top" | diag
own=$(sed -n 's/^  cpu  *samples \([0-9]*\).*/\1/p' "$T")
total=$(pprof_total "$P" samples)
figure "samples: profiler $own, pprof $total"
check "pprof's sample count is the profiler's ($own), exactly" [ -n "$own" ] && [ "$total" = "$own" ]

# The .txt's three hottest methods against pprof's flat share of the same function.
pprof -top -nodecount=1000 -nodefraction=0 -sample_index=samples "$P" >"$WORK/all"
worst=0 compared=0
while read -r _ share name _; do
  share=${share%\%}
  theirs=$(awk -v n="$name" '$6 == n {sub("%", "", $2); print $2; exit}' "$WORK/all")
  figure "$name: .txt ${share}%, pprof ${theirs:-none}%"
  [ -n "$theirs" ] || { worst=100; continue; }
  worst=$(awk -v a="$share" -v b="$theirs" -v w="$worst" 'BEGIN {d = a - b; if (d < 0) d = -d; print (d > w ? d : w)}')
  compared=$((compared + 1))
done < <(sed -n '/^hottest frames/,$p' "$T" | sed -n '2,4p')
check "the 3 hottest methods' flat shares within 1 point of the .txt's (worst $worst)" \
  awk -v w="$worst" -v c="$compared" 'BEGIN {exit !(c == 3 && w <= 1)}'
check "Java frames carry source lines (DemoApp.hashLoop DemoApp:N, N > 0)" \
  bash -c "go tool pprof -top -lines -sample_index=samples '$P' 2>&1 | grep -qE 'DemoApp\.hashLoop DemoApp:[1-9]'"

# Wall and a tracepoint beside cpu: sample types of their own, the tracepoint's counted
# exactly.
TP=syscalls:sys_enter_write
run_agent "event=cpu,interval=1ms,event=wall,interval=10ms,event=$TP,file=$WORK/t.pb.gz,file=$WORK/t.txt" \
  DemoApp 1 >/dev/null
check "JVM with cpu, wall and a tracepoint exits 0" [ $? = 0 ]
pprof -raw "$WORK/t.pb.gz" | sed -n '/^Samples:/,+1p' >"$WORK/types"
diag <"$WORK/types"
tpname=$(grep -o 'syscalls:sys_[a-z]*_write' "$WORK/types" | head -1)
check "sample types: samples, cpu, wall_samples, wall, the tracepoint ($tpname) with count" \
  bash -c "[ -n '$tpname' ] && grep -qE \
    '^samples/count cpu/nanoseconds(\[dflt\])? wall_samples/count wall/nanoseconds $tpname/count' '$WORK/types'"
own=$(sed -n "s/^  ${tpname}  *samples \([0-9]*\).*/\1/p" "$WORK/t.txt")
total=$(pprof_total "$WORK/t.pb.gz" "$tpname")
wown=$(sed -n 's/^  wall  *samples \([0-9]*\).*/\1/p' "$WORK/t.txt")
wtotal=$(pprof_total "$WORK/t.pb.gz" wall_samples)
figure "$tpname samples: profiler $own, pprof $total; wall: profiler $wown, pprof $wtotal"
check "the tracepoint's and wall's pprof counts are the profiler's ($own > 0, $wown), exactly" \
  bash -c "[ '${own:-0}' -gt 0 ] && [ '$total' = '$own' ] && [ -n '$wown' ] && [ '$wtotal' = '$wown' ]"

# The .txt of the three events: a hot list per event, each its own 100%: the shares of
# one list add up to at most 100%, and the tracepoint's top frame has a large share of
# the tracepoint's few samples (in one list with cpu it would be a fraction of a percent).
# Each line's share is rounded to 0.01: 25 lines may add up to 100.2.
lists=$(grep -c '^hottest frames of \[' "$WORK/t.txt")
sed -n "/^hottest frames of \[$tpname\]/,/^\$/p" "$WORK/t.txt" | head -4 | diag
tptop=$(sed -n "/^hottest frames of \[$tpname\]/{n;p}" "$WORK/t.txt" | awk '{sub(/%/, "", $2); print $2}')
sums=$(awk '/^hottest frames of/ {if (s != "") print s; s = 0; next} /^ +[0-9]+ +[0-9.]+%/ {sub(/%/, "", $2); s += $2} END {print s}' "$WORK/t.txt" | tr '\n' ' ')
figure "hot lists: $lists; the tracepoint's top frame ${tptop}% of its samples; list sums: $sums"
check "a hot list per event, each its own 100% ($lists lists, sums $sums, tracepoint top ${tptop}%)" \
  bash -c "[ $lists = 3 ] && awk -v t='${tptop:-0}' 'BEGIN {exit !(t >= 10)}' && \
    ! echo '$sums' | tr ' ' '\n' | awk 'NF && \$1 > 100.2 {bad = 1} END {exit !bad}'"
