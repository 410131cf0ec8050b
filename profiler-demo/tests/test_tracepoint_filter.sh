# test_tracepoint_filter.sh BUILD_DIR - a filtered syscall tracepoint: N AF_UNIX sockets
# from makeUnix and N TCP sockets from makeTcp, traced with filter "family == 1": exactly N
# samples, all in makeUnix, none in makeTcp; and at 100,000 sockets every event sampled.
source "$(dirname "$0")/lib.sh" "$1"
echo "1..7"
if ! has_unix_channels; then
  # The filter and the kernel side do not depend on the JDK; the workload does (its AF_UNIX
  # sockets against TCP ones), and nothing else in a JDK before 16 calls socket(AF_UNIX).
  for i in 1 2 3 4 5 6 7; do skip "filtered tracepoint check $i" "$NO_UNIX"; done
  exit 0
fi
compile || { echo "Bail out! javac failed"; exit 1; }
N=200
OUTF=$WORK/s.collapsed
run_agent "event=syscalls:sys_enter_socket,filter=family == 1,file=$OUTF" SocketMaker $N
check "JVM with the tracepoint agent exits 0" [ $? = 0 ]
total=$(samples_total "$OUTF")
figure "filtered tracepoint: $total samples for $N AF_UNIX + $N TCP sockets"
check "exactly N=$N samples" [ "$total" = "$N" ]
a=$(samples_with "$OUTF" 'SocketMaker\.makeUnix')
b=$(samples_with "$OUTF" 'SocketMaker\.makeTcp')
figure "samples with makeUnix: $a, with makeTcp: $b"
check "every sample has SocketMaker.makeUnix in its frames" [ "$a" = "$N" ]
check "no sample has SocketMaker.makeTcp" [ "$b" = 0 ]

BIG=100000
start=$(date +%s.%N)
run_agent "verbose,event=syscalls:sys_enter_socket,filter=family == 1,file=$WORK/big.collapsed" \
  SocketMaker $BIG
rc=$?
secs=$(echo "$(date +%s.%N) - $start" | bc)
check "JVM making $BIG sockets under the agent exits 0" [ $rc = 0 ]
line=$(grep -A1 '^  syscalls:sys_enter_socket' "$WORK/stderr" | tr '\n' ' ')
samples=$(echo "$line" | sed -n 's/.* samples \([0-9]*\) .*/\1/p')
kernel=$(echo "$line" | sed -n 's/.*kernel counted \([0-9]*\) events.*/\1/p')
figure "at $BIG AF_UNIX sockets: $samples samples, kernel counted $kernel events, run ${secs}s"
check "samples == kernel events == $BIG" [ "$samples" = "$BIG" -a "$kernel" = "$BIG" ]
check "folded stacks hold all $BIG samples" [ "$(samples_total "$WORK/big.collapsed")" = "$BIG" ]
