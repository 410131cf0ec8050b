# test_fd_live.sh BUILD_DIR - fd attribution end to end (event=fds): FdMaker opens a
# listening socket, a pool of 4 connections to it and the 4 accepted ends, a UNIX socket
# pair, a UNIX-domain channel, a log file, a read file, a pipe and a selector, each a few
# calls deep in its own code. Checked while open (asgst-attach PID fds, whole and by port;
# the fds_interval file) against the fd numbers in /proc, then after FdMaker closed them
# (live query and exit report): fd number, address/port/path, the application frame.
source "$(dirname "$0")/lib.sh" "$1"
echo "1..22"
compile || { echo "Bail out! javac failed"; exit 1; }
D=$WORK/run; mkdir -p "$D"
FDS=$D/fds.txt
"$JAVA" -agentpath:"$AGENT=event=fds,fds=$FDS,fds_interval=1s" -cp "$CLASSES" FdMaker "$D" \
  >"$D/out" 2>"$D/err" &
JVM=$!
trap 'kill -9 $JVM 2>/dev/null; wait $JVM 2>/dev/null; rm -rf "$WORK"' EXIT
for _ in $(seq 200); do [ -e "$D/ready" ] && break; sleep 0.1; done
check "FdMaker opened its descriptors under event=fds" [ -e "$D/ready" ]
PORT=$(sed -n 's/^port=//p' "$D/out"); LOG=$(sed -n 's/^log=//p' "$D/out"); SOCK=$(sed -n 's/^unix=//p' "$D/out")

# /proc facts. tcp_fds PORT FIELD STATE: fds of the sockets whose local (2) or remote (3)
# port is PORT in state STATE (0A listen, 01 established).
fd_of_inode() { for f in /proc/$JVM/fd/*; do [ "$(readlink "$f")" = "socket:[$1]" ] && basename "$f"; done; }
tcp_fds() {
  local hex; hex=$(printf '%04X' "$1")
  awk -v h="$hex" -v f="$2" -v s="$3" 'NR > 1 { split($f, a, ":"); if (a[2] == h && $4 == s) print $10 }' \
    /proc/$JVM/net/tcp /proc/$JVM/net/tcp6 | while read -r ino; do fd_of_inode "$ino"; done | sort -n
}
fds_to() { for f in /proc/$JVM/fd/*; do [ "$(readlink "$f")" = "$1" ] && basename "$f"; done | sort -n; }
LFD=$(tcp_fds "$PORT" 2 0A); CLIENTS=$(tcp_fds "$PORT" 3 01); ACCEPTED=$(tcp_fds "$PORT" 2 01)
LOGFDS=$(fds_to "$LOG")
# entry FILE FD STATE: the report's entries of fd FD (open or closed), headline to next entry.
entry() { awk -v fd="$2" -v st="$3" '/^fd |^---|^older/ { on = $0 ~ "^fd " fd "[ ,(].*" st } on' "$1"; }
# has FILE FD STATE HEADLINE_REGEX FRAME: an entry of fd FD whose headline says STATE and
# matches the regex has FRAME marked as the first frame outside the JDK.
has() {
  FD=$2 ST=$3 RE=$4 FR=$5 awk '
    function done_entry() { if (on && found) ok = 1 }
    /^fd |^---|^older/ { done_entry(); found = 0
      on = $0 ~ ("^fd " ENVIRON["FD"] "[ ,(]") && index($0, " " ENVIRON["ST"]) && $0 ~ ENVIRON["RE"] }
    on && index($0, "* " ENVIRON["FR"]) { found = 1 }
    END { done_entry(); exit !ok }' "$1"
}
all_have() { # all_have FILE "FDS" STATE HEADLINE FRAME
  local n=0 fd; for fd in $2; do has "$1" "$fd" "$3" "$4" "$5" || return 1; n=$((n + 1)); done; [ $n -ge 1 ]
}

"$ATTACH" $JVM fds >"$D/live1" 2>&1
check "asgst-attach PID fds answers at once" [ $? = 0 ]
figure "live report: $(head -1 "$D/live1")"
check "listening socket: fd $LFD, 127.0.0.1:$PORT, FdMaker\$Server.listen" \
  has "$D/live1" "$LFD" open "open: tcp listening 127.0.0.1:$PORT," 'FdMaker$Server.listen'
check "pool: 4 connections ($(echo $CLIENTS)) to :$PORT from FdMaker\$Pool.connectOne" \
  bash -c "[ $(echo "$CLIENTS" | wc -w) = 4 ] && $(declare -f entry has all_have); all_have '$D/live1' '$(echo $CLIENTS)' open 'open: tcp 127.0.0.1:[0-9]+ -> 127.0.0.1:$PORT,' 'FdMaker\$Pool.connectOne'"
check "accepted: 4 ends ($(echo $ACCEPTED)) on fd $LFD, by FdMaker\$Server.acceptAll" \
  bash -c "[ $(echo "$ACCEPTED" | wc -w) = 4 ] && $(declare -f entry has all_have); all_have '$D/live1' '$(echo $ACCEPTED)' open 'open: tcp 127.0.0.1:$PORT -> 127.0.0.1:[0-9]+ \(accepted on fd $LFD\)' 'FdMaker\$Server.acceptAll'"
PAIR=$(grep -E '^fd [0-9]+,[0-9]+ open: socketpair' "$D/live1" | grep -m1 -B0 . | sed 's/^fd \([0-9]*\),\([0-9]*\).*/\1 \2/')
SP=$(awk '/^fd [0-9]+,[0-9]+ open: socketpair/ { on = 1; h = $2 } on && /\* FdMaker\$Unix.socketPair/ { print h; exit }' "$D/live1" | tr , ' ')
check "UNIX socket pair: fds ($SP) are sockets, by FdMaker\$Unix.socketPair" \
  bash -c "set -- $SP; [ \$# = 2 ] && readlink /proc/$JVM/fd/\$1 | grep -q socket: && readlink /proc/$JVM/fd/\$2 | grep -q socket:"
if has_unix_channels; then
  check "UNIX-domain channel: listening $SOCK by FdMaker\$Unix.channel, connected by FdMaker\$Unix.dial" \
    bash -c "grep -A30 -E '^fd [0-9]+ open: unix stream listening $SOCK,' '$D/live1' | grep -Fq '* FdMaker\$Unix.channel' &&
             grep -A30 -E '^fd [0-9]+ open: unix stream -> $SOCK,' '$D/live1' | grep -Fq '* FdMaker\$Unix.dial'"
else
  skip "UNIX-domain channel by FdMaker\$Unix.channel and FdMaker\$Unix.dial" "$NO_UNIX"
fi
set -- $LOGFDS
check "log file: fds $1 (FdMaker\$Log.openLog) and $2 (FdMaker\$Log.openInput) on $LOG" \
  bash -c "$(declare -f entry has); [ -n '$2' ] && has '$D/live1' '$1' open 'open: file $LOG,' 'FdMaker\$Log.openLog' && has '$D/live1' '$2' open 'open: file $LOG,' 'FdMaker\$Log.openInput'"
# creator FILE KIND FRAME: "A B" of the first pair entry of KIND (pipe, socketpair) whose
# stack has FRAME as its first frame outside the JDK (a JDK before 14 also makes a pipe for
# each selector's wakeup).
creator() {
  awk -v kind="$2" -v fr="* $3" '$0 ~ ("^fd [0-9]+,[0-9]+ open: " kind) { on = 1; h = $2; next }
    /^fd |^---|^older/ { on = 0 } on && index($0, fr) { print h; exit }' "$1" | tr , ' '
}
PIPE=$(creator "$D/live1" pipe 'FdMaker$Plumbing.makePipe')
set -- $PIPE
check "pipe: fds ($PIPE) are the pipe's ends, by FdMaker\$Plumbing.makePipe" \
  bash -c "$(declare -f has); [ -n '$2' ] && readlink /proc/$JVM/fd/$1 | grep -q pipe: && has '$D/live1' '$1' open 'open: pipe' 'FdMaker\$Plumbing.makePipe'"
EP=$(sed -n 's/^fd \([0-9]*\) open: epoll,.*/\1/p' "$D/live1" | tail -1)
EV=$(sed -n 's/^fd \([0-9]*\) open: eventfd,.*/\1/p' "$D/live1" | tail -1)
if [ -n "$EV" ]; then
  check "selector: epoll fd $EP and eventfd $EV, by FdMaker\$Plumbing.makeSelector" \
    bash -c "$(declare -f entry has); readlink /proc/$JVM/fd/$EP | grep -q eventpoll && readlink /proc/$JVM/fd/$EV | grep -q eventfd &&
             has '$D/live1' '$EP' open 'open: epoll' 'FdMaker\$Plumbing.makeSelector' && has '$D/live1' '$EV' open 'open: eventfd' 'FdMaker\$Plumbing.makeSelector'"
else # before JDK 14 a selector wakes up through a pipe
  WAKE=$(creator "$D/live1" pipe 'FdMaker$Plumbing.makeSelector')
  check "selector: epoll fd $EP and wakeup pipe ($WAKE), by FdMaker\$Plumbing.makeSelector" \
    bash -c "$(declare -f entry has); set -- $WAKE; [ -n \"\$1\" ] && readlink /proc/$JVM/fd/$EP | grep -q eventpoll &&
             readlink /proc/$JVM/fd/\$1 | grep -q pipe: && has '$D/live1' '$EP' open 'open: epoll' 'FdMaker\$Plumbing.makeSelector'"
fi
check "one-line stacks mark the first frame outside the JDK" \
  grep -Eq "^  at [a-z][^ ]* <- .* <- \*FdMaker\\\$Server\.listen" "$D/live1"

"$ATTACH" $JVM fds "$PORT" >"$D/live_port" 2>&1
check "asgst-attach PID fds $PORT: the 9 sockets of that port, nothing else" \
  [ "$(grep -c '^fd ' "$D/live_port") $(grep -c "^fd .*:$PORT[ ,]" "$D/live_port")" = "9 9" ]
"$ATTACH" $JVM fds "$LOG" >"$D/live_log" 2>&1
check "asgst-attach PID fds PATH: the log file's two entries" [ "$(grep -c "^fd .* open: file $LOG," "$D/live_log")" = 2 ]
sleep 1.3
check "fds_interval=1s rewrote $FDS while running" grep -Eq "^fd $LFD open: tcp listening 127.0.0.1:$PORT," "$FDS"

touch "$D/close"
for _ in $(seq 100); do [ -e "$D/closed" ] && break; sleep 0.1; done
"$ATTACH" $JVM fds >"$D/live2" 2>&1
check "after close: the listening socket fd $LFD, port $PORT, closed at a time, with its close stack" \
  bash -c "$(declare -f entry has); has '$D/live2' '$LFD' closed 'closed at [0-9:.]+: tcp listening 127.0.0.1:$PORT,' 'FdMaker\$Server.listen' &&
           entry '$D/live2' '$LFD' closed | grep -q '^    close() '"
check "after close: the 4 pool connections keep their local and remote ports" \
  bash -c "$(declare -f entry has all_have); all_have '$D/live2' '$(echo $CLIENTS)' closed 'closed at .*: tcp 127.0.0.1:[0-9]+ -> 127.0.0.1:$PORT,' 'FdMaker\$Pool.connectOne'"
touch "$D/exit"
wait $JVM
check "JVM exits 0" [ $? = 0 ]
diag < <(grep -E '^fd |^  at |^===' "$FDS" | head -60)
check "exit report: listening socket closed, with port and FdMaker\$Server.listen" \
  bash -c "$(declare -f entry has); has '$FDS' '$LFD' closed 'tcp listening 127.0.0.1:$PORT,' 'FdMaker\$Server.listen'"
check "exit report: accepted ends closed, with ports and FdMaker\$Server.acceptAll" \
  bash -c "$(declare -f entry has all_have); all_have '$FDS' '$(echo $ACCEPTED)' closed 'tcp 127.0.0.1:$PORT -> 127.0.0.1:[0-9]+' 'FdMaker\$Server.acceptAll'"
check "exit report: log file, pipe and selector closed with their creators" \
  bash -c "$(declare -f entry has); set -- $(echo $LOGFDS); has '$FDS' \$1 closed 'file $LOG,' 'FdMaker\$Log.openLog' &&
           grep -A20 -E '^fd $(echo $PIPE | tr ' ' ,) closed at .*: pipe' '$FDS' | grep -Fq '* FdMaker\$Plumbing.makePipe' &&
           has '$FDS' '$EP' closed 'epoll' 'FdMaker\$Plumbing.makeSelector'"
check "exit report: every stack in full (FdMaker.main, the outermost frame, present in each app entry)" \
  bash -c "[ \$(grep -c '^        FdMaker.main\$' '$FDS') -ge 20 ]"
check "no tcp6 for IPv4 addresses" bash -c "! grep -E 'tcp6 (listening )?127\.0\.0\.1' '$D/live1' '$FDS'"
