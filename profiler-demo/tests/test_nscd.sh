# test_nscd.sh BUILD_DIR - the nscd case: a Java lookup of "localhost" makes glibc's
# getaddrinfo try the name service cache daemon's socket first. Where nscd does not run,
# that connect fails (ENOENT), and the fd report must show it with the whole way down:
# the connect line with its target and errno, then the connect C frame, glibc's internal
# __nscd_* functions, getaddrinfo, the JNI function and the java.net caller, in that
# order; the collapsed output must hold the same path. Where nscd runs, the connect works
# and there is nothing to see: the checks are skipped, saying why.
source "$(dirname "$0")/lib.sh" "$1"
echo "1..4"
NSCD=/var/run/nscd/socket

# True if something answers on nscd's socket (a connect there succeeds).
nscd_runs() {
  [ -S "$NSCD" ] || return 1
  command -v python3 >/dev/null || return 0 # a socket file, no way to try it: assume so
  python3 -c "import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])" \
    "$NSCD" 2>/dev/null
}
if nscd_runs; then
  why="nscd runs here ($NSCD accepts connections): glibc's connect to it does not fail"
  for name in "JVM with the agent exits 0" "fd report: failed connect to $NSCD" \
    "fd report: connect, __nscd_*, getaddrinfo, JNI, java.net in order" \
    "collapsed: java.net;JNI;getaddrinfo;__nscd_*"; do
    skip "$name" "$why"
  done
  exit 0
fi

compile || { echo "Bail out! javac failed"; exit 1; }
FDS=$WORK/fds.txt
FOLDED=$WORK/out.collapsed
run_agent "event=fds,cstack,fds=$FDS,file=$FOLDED" Resolver 20 >"$WORK/stdout"
check "JVM with the agent exits 0" [ $? = 0 ]

# The first entry whose headline names the failed connect to nscd, up to the next entry.
awk -v t="connect($NSCD) failed: " '/^fd |^---/ { if (done) exit; on = index($0, t) > 0; done = on } on' \
  "$FDS" >"$WORK/entry"
diag <"$WORK/entry"
check "fd report: failed connect to $NSCD" \
  grep -Eq "^fd [0-9]+ .*: unix stream, connect\($NSCD\) failed: E[A-Z]+," "$WORK/entry"

# The connect call's block, then its frames in the order they must come (newest first).
ordered() {
  awk -v t="connect($NSCD) failed: E" '
    index($0, "    " t) == 1 { on = 1; step = 0; next }
    on && /^    [^ ]/ { exit }
    on && step == 0 && /^ +connect[A-Za-z_0-9]* \(C\)$|^ +__libc_connect \(C\)$/ { step = 1; next }
    on && step == 1 && /^ +__nscd_[A-Za-z_0-9]+ \(C\)$/ { step = 2; next }
    on && step == 2 && /^ +getaddrinfo \(C\)$/ { step = 3; next }
    on && step == 3 && /^ +Java_java_net_Inet[46]AddressImpl_lookupAllHostAddr \(C\)$/ { step = 4; next }
    on && step == 4 && /^ +\*? ?java\.net\./ { step = 5 }
    END { exit step != 5 }' "$WORK/entry"
}
check "fd report: connect, __nscd_*, getaddrinfo, JNI, java.net in order" ordered
check "collapsed: java.net;JNI;getaddrinfo;__nscd_*" \
  grep -Eq 'java\.net\.[^;]*;Java_java_net_Inet[46]AddressImpl_lookupAllHostAddr;getaddrinfo;([^;]*;)?__nscd_' \
  "$FOLDED"
