# test_fd_churn.sh BUILD_DIR - the fd table at a busy server's rate (event=fds): FdChurn
# leaves 3 files open (FdChurn$Keep.hold), then for FD_CHURN_SECONDS (20) opens and closes
# a file (FdChurn$Churn.openFile) and every fourth turn a socket (FdChurn$Churn.openSocket)
# as fast as one thread can. Checked: the JVM's resident memory (VmRSS, read every second)
# grows at most 8 MB from second 5 to the end (the table keeps open fds and counted
# histories, not every call); no fd call is lost; the live report lists the 3 kept files
# as open with their fd numbers in /proc, exactly; its histories count as many opens and
# sockets as FdChurn made; the kernel's own count of each traced call equals the calls
# taken (no signal lost).
source "$(dirname "$0")/lib.sh" "$1"
echo "1..8"
compile || { echo "Bail out! javac failed"; exit 1; }
SECS=${FD_CHURN_SECONDS:-20}
D=$WORK/run; mkdir -p "$D"
FDS=$D/fds.txt
# A fixed heap touched at start: the JVM's own memory stays flat, the agent's growth shows.
"$JAVA" -Xms32m -Xmx32m -XX:+AlwaysPreTouch -XX:+UseSerialGC \
  -agentpath:"$AGENT=event=fds,verbose,fds=$FDS" -cp "$CLASSES" FdChurn "$D" "$SECS" 3 >"$D/out" 2>"$D/err" &
JVM=$!
trap 'kill -9 $JVM 2>/dev/null; wait $JVM 2>/dev/null; rm -rf "$WORK"' EXIT
t=0
while kill -0 $JVM 2>/dev/null && [ ! -e "$D/done" ] && [ $t -lt $((SECS + 60)) ]; do
  awk -v t=$t '/^VmRSS:/ {print t, $2}' /proc/$JVM/status >>"$D/rss" 2>/dev/null
  sleep 1; t=$((t + 1))
done
check "FdChurn ran its $SECS s under event=fds" [ -e "$D/done" ]
at5=$(awk '$1 >= 5 {print $2; exit}' "$D/rss"); last=$(tail -1 "$D/rss" | awk '{print $2}')
figure "VmRSS at 5 s ${at5:-?} kB, at the end ${last:-?} kB ($(awk 'NR % 5 == 1 {printf "%s:%s ", $1, $2}' "$D/rss"))"
check "resident memory grows at most 8 MB from second 5 to the end ($(( ${last:-0} - ${at5:-0} )) kB)" \
  [ -n "$at5" -a -n "$last" -a $(( ${last:-0} - ${at5:-0} )) -le $((8 * 1024)) ]
read -r FILES SOCKETS < <(sed -n 's/^files=\([0-9]*\) sockets=\([0-9]*\)$/\1 \2/p' "$D/out")
figure "FdChurn: $FILES files and $SOCKETS sockets opened and closed in $SECS s ($(( (${FILES:-0} + ${SOCKETS:-0}) / SECS )) a second)"

"$ATTACH" $JVM fds >"$D/live" 2>&1
# The kept files' fds, from /proc and from the report's open entries.
proc_keep=$(for f in /proc/$JVM/fd/*; do case $(readlink "$f") in "$D"/keep-*) basename "$f";; esac; done | sort -n | tr '\n' ' ')
report_keep=$(sed -n "s|^fd \([0-9]*\) open: file $D/keep-[0-9]*,.*|\1|p" "$D/live" | sort -n | tr '\n' ' ')
held=$(awk '/^fd [0-9]+ open: file / { on = 1; next } /^fd |^---/ { on = 0 } on && /\* FdChurn\$Keep\.hold/ { n++ } END { print n + 0 }' "$D/live")
check "open: exactly the 3 kept files (fds ${proc_keep}in /proc; ${report_keep}in the report), by FdChurn\$Keep.hold" \
  [ "$proc_keep" = "$report_keep" -a "$(echo $proc_keep | wc -w)" = 3 -a "$held" = 3 ]
check "open: no churned file or socket left open" \
  bash -c "! grep -E '^fd [0-9]+ open: file $D/churn' '$D/live'"
# hist CALL TOP FRAME: the sum of the counts of the histories of CALL ("openat()") whose
# stack starts with frame TOP and marks FRAME (the JDK's first socket also probes options
# with sockets of its own under FdChurn$Churn.openSocket: other tops).
hist() {
  awk -v call="$1" -v top="  at $2 " -v fr="*$3 " '/^--- closed, counted/ { on = 1; next }
    on && /^[0-9]+ x / { n = $3 == call ? $1 : 0; next }
    on && index($0, top) == 1 && index($0 " ", fr) { s += n } END { print s + 0 }' "$D/live"
}
FH=$(hist 'openat()' java.io.FileInputStream.open0 'FdChurn$Churn.openFile')
SH=$(hist 'socket()' sun.nio.ch.Net.socket0 'FdChurn$Churn.openSocket')
diag < <(sed -n '/^--- closed, counted/,$p' "$D/live" | head -12)
check "histories: $FH files opened and closed by FdChurn\$Churn.openFile, FdChurn made ${FILES:-?}" \
  [ -n "$FILES" -a "$FH" = "${FILES:-x}" ]
check "histories: $SH sockets opened and closed by FdChurn\$Churn.openSocket, FdChurn made ${SOCKETS:-?}" \
  [ -n "$SOCKETS" -a "$SH" = "${SOCKETS:-x}" ]
touch "$D/exit"
wait $JVM
lost=$(sed -n 's/.*fd calls lost \([0-9]*\).*/\1/p' "$D/err")
figure "$(grep -E '^fd table:' "$D/err")"
check "JVM exits 0; summary: 0 fd calls lost (${lost:-none})" [ "$lost" = 0 ]
# na EVENT: the summary's count of EVENT's calls the kernel counted but no sample took.
na() { awk -v ev="$1" '$1 == ev { on = 1; next } on && /kernel counted/ { sub(/.*not attributed /, ""); print $1; exit }' "$D/err"; }
O=$(na syscalls:sys_exit_openat); C=$(na syscalls:sys_enter_close); S=$(na syscalls:sys_enter_socket)
check "kernel: every openat, close and socket it counted was taken (not taken: $O, $C, $S)" \
  [ "$O" = 0 -a "$C" = 0 -a "$S" = 0 ]
