# test_fd_report.sh BUILD_DIR - the fd report of the demo sample: the WatchService's
# socketpair attributed to sun.nio.fs.LinuxWatchService, the loopback server socket with
# its real port and the frames of the code that bound it, the UNIX channel with its path.
source "$(dirname "$0")/lib.sh" "$1"
echo "1..6"
compile || { echo "Bail out! javac failed"; exit 1; }
FDS=$WORK/fds.txt
run_agent "event=syscalls:sys_enter_socket,event=syscalls:sys_enter_socketpair,event=syscalls:sys_enter_bind,fds=$FDS" \
  DemoApp 0.3 >"$WORK/stdout"
check "JVM with the agent exits 0" [ $? = 0 ]
diag <"$FDS"
port=$(sed -n 's/.*listening on 127.0.0.1:\([0-9]*\),.*/\1/p' "$WORK/stdout")
sock=$(sed -n 's/.*unix socket \(.*\)$/\1/p' "$WORK/stdout")
check "report lists the WatchService socketpair with sun.nio.fs.LinuxWatchService frames" \
  grep -Eq '^fd [0-9]+,[0-9]+ socketpair .*created at .*sun\.nio\.fs\.LinuxWatchService' "$FDS"
check "report lists the listening port $port" grep -Eq "^fd [0-9]+ socket \(tcp6? listening .*:$port\)" "$FDS"
check "the listening socket's bind is attributed to DemoApp.openServer" \
  bash -c "grep -A1 -E 'listening .*:$port\)' '$FDS' | grep -Eq 'bind\(.*\) at .*DemoApp\.openServer'"
check "the UNIX channel $sock is attributed to DemoApp.openUnixChannel" \
  bash -c "grep -F '$sock' '$FDS' | grep -q 'DemoApp.openUnixChannel'"
check "closed descriptors are summarised" grep -Eq '^closed since \([0-9]+ calls\)' "$FDS"
