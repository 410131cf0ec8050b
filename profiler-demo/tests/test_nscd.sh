# test_nscd.sh BUILD_DIR - the nscd case: a Java lookup of "localhost" makes glibc's
# getaddrinfo try the name service cache daemon's socket first. Where nscd does not run,
# that connect fails (ENOENT), and the fd report must show it with the whole way down:
# the connect line with its target and errno, then the connect C frame, glibc's internal
# __nscd_* functions, getaddrinfo, the JNI function and the java.net caller, in that
# order; the collapsed output must hold the same path. Where nscd runs, the connect works
# and there is nothing to see: the checks are skipped, saying why. Where the JVM's libc has
# no debug file (tests/jdks/provision.sh adds the suite's libc6-dbg beside the suite's own
# glibc, which may fail), __nscd_* cannot be named: that part is skipped, saying why, the
# rest of the order is still checked.
source "$(dirname "$0")/lib.sh" "$1"
echo "1..5"
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
    "fd report: connect, getaddrinfo, JNI, java.net in order" \
    "fd report: __nscd_* between connect and getaddrinfo" \
    "collapsed: java.net;JNI;getaddrinfo;__nscd_*"; do
    skip "$name" "$why"
  done
  exit 0
fi

# The libc the JVM runs on: a launcher script may start java under another glibc (see
# tests/jdks/provision.sh: "libc='DIR'"); else the one the java binary links.
jvm_libc() {
  local dir
  dir=$(sed -n "s/^libc='\(.*\)'$/\1/p" "$JAVA" 2>/dev/null | head -1)
  if [ -n "$dir" ]; then echo "$dir/libc.so.6"; else ldd "$JAVA" | awk '$1 == "libc.so.6" { print $3 }'; fi
}
# True if that libc's debug file is there (by build id, as src/symbols/debug_file.c
# looks first: under /usr/lib/debug, or under the library's own root for a libc unpacked
# beside the system's): without it glibc's internal __nscd_* functions have no names.
libc_debug_file() {
  local id root=""
  id=$(readelf -n "$1" 2>/dev/null | awk '/Build ID/ { print $3 }')
  case $1 in */usr/lib/*) root=${1%%/usr/lib/*} ;; esac
  [ -n "$id" ] && { [ -f "/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug" ] ||
    [ -f "$root/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug" ]; }
}
LIBC=$(jvm_libc)
if libc_debug_file "$LIBC"; then NSCD_NAMED=1; else
  NSCD_NAMED=; NO_DEBUG="the JVM's libc $LIBC has no debug file installed (by build id): its internal __nscd_* functions cannot be named"
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

# The connect call's block, then its frames in the order they must come (newest first);
# with NSCD set, a __nscd_* frame between connect and getaddrinfo.
ordered() {
  awk -v t="connect($NSCD) failed: E" -v nscd="$1" '
    index($0, "    " t) == 1 { on = 1; step = 0; next }
    on && /^    [^ ]/ { exit }
    on && step == 0 && /^ +connect[A-Za-z_0-9]* \(C\)$|^ +__libc_connect \(C\)$/ { step = nscd ? 1 : 2; next }
    on && step == 1 && /^ +__nscd_[A-Za-z_0-9]+ \(C\)$/ { step = 2; next }
    on && step == 2 && /^ +getaddrinfo \(C\)$/ { step = 3; next }
    on && step == 3 && /^ +Java_java_net_Inet[46]AddressImpl_lookupAllHostAddr \(C\)$/ { step = 4; next }
    on && step == 4 && /^ +\*? ?java\.net\./ { step = 5 }
    END { exit step != 5 }' "$WORK/entry"
}
JNI='java\.net\.[^;]*;Java_java_net_Inet[46]AddressImpl_lookupAllHostAddr;getaddrinfo;'
check "fd report: connect, getaddrinfo, JNI, java.net in order" ordered ""
if [ -n "$NSCD_NAMED" ]; then
  check "fd report: __nscd_* between connect and getaddrinfo" ordered 1
  check "collapsed: java.net;JNI;getaddrinfo;__nscd_*" grep -Eq "$JNI([^;]*;)?__nscd_" "$FOLDED"
else
  skip "fd report: __nscd_* between connect and getaddrinfo" "$NO_DEBUG"
  echo "# collapsed: no __nscd_* expected: $NO_DEBUG"
  check "collapsed: java.net;JNI;getaddrinfo;... (libc's own frames unnamed)" grep -Eq "$JNI" "$FOLDED"
fi
