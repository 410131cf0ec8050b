# test_fd_report.sh BUILD_DIR - the fd report of the demo sample (socket, socketpair and
# bind traced one by one, close not traced): the WatchService's socketpair attributed to
# sun.nio.fs.LinuxWatchService, the loopback server socket with its real port and the
# frames of the code that bound it, the UNIX channel with its path. (event=fds end to end:
# test_fd_live.sh.)
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
# block REGEX: the report's entry whose headline matches REGEX, up to the next entry.
block() { awk -v re="$1" '/^fd |^---/ { on = $0 ~ re } on' "$FDS"; }
check "report lists the WatchService socketpair with sun.nio.fs.LinuxWatchService frames" \
  bash -c "$(declare -f block); FDS='$FDS'; block '^fd [0-9]+,[0-9]+ open: socketpair' | grep -q 'sun\.nio\.fs\.LinuxWatchService'"
check "report lists the listening port $port (IPv4: tcp, not tcp6)" \
  grep -Eq "^fd [0-9]+ open: tcp listening 127\.0\.0\.1:$port," "$FDS"
check "the listening socket's bind is attributed to DemoApp.openServer" \
  bash -c "$(declare -f block); FDS='$FDS'; block 'listening 127.0.0.1:$port,' > '$WORK/b'; grep -q '^    bind(127.0.0.1:' '$WORK/b' && grep -Fq '* DemoApp.openServer' '$WORK/b'"
if has_unix_channels; then
  check "the UNIX channel $sock is attributed to DemoApp.openUnixChannel" \
    bash -c "grep -A1 -F '$sock' '$FDS' | grep -q '\*DemoApp.openUnixChannel'"
else
  skip "the UNIX channel is attributed to DemoApp.openUnixChannel" "$NO_UNIX"
fi
check "closed descriptors are listed with when they were closed" grep -Eq '^fd [0-9]+ closed (at|between) ' "$FDS"
