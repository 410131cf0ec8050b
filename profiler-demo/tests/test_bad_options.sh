# test_bad_options.sh BUILD_DIR - bad options (unknown option, bad interval, unknown
# tracepoint, unwritable file, a filter the kernel rejects, a bad loop= period, a cpu
# signal that is no signal or is the wall clock's, a perf event's interval below what it
# allows, a cputhreads= that is neither all nor java): a message
# naming the bad part; with -agentpath the JVM does not start; through asgst-attach the
# JVM keeps running and asgst-attach reports the error with a non-zero status.
source "$(dirname "$0")/lib.sh" "$1"
CASES=(
  "event=cpu,frobnicate=1|frobnicate"
  "event=cpu,interval=fast|interval=fast"
  "event=wall,interval=0ms|interval=0ms"
  "event=cpu,interval=5us|interval=5us"
  "event=cpu,overhead=90|overhead=90"
  "event=cpu,walk=sideways|walk=sideways"
  "event=wall,states=yes|states=yes"
  "event=syscalls:sys_enter_nosuchcall|syscalls:sys_enter_nosuchcall"
  "event=nosuchevent|nosuchevent"
  "event=fds,fds=$WORK/f.txt,fds_interval=soon|fds_interval=soon"
  "event=fds,fds_interval=5s|fds_interval"
  "event=cpu,file=/nonexistent-dir/out.html|/nonexistent-dir/out.html"
  "event=cpu,file=$WORK/out.pdf|out.pdf"
  "event=syscalls:sys_enter_socket,filter=nosuchfield == 1|nosuchfield == 1"
  "event=cpu,loop=soon,file=$WORK/l.txt|loop=soon"
  "event=cpu,loop=500ms,file=$WORK/l.txt|loop=500ms"
  "event=cpu,loop=0s,file=$WORK/l.txt|loop=0s"
  "event=cpu,loop=10s|loop: needs file="
  "event=cpu,cpusignal=USR9|cpusignal=USR9"
  "event=cpu,event=wall,cpusignal=PROF,wallsignal=27|one signal each"
  "event=context-switches,interval=1|interval=1"
  "event=page-faults,interval=0|interval=0"
  "event=cpu,kernel=maybe|kernel=maybe"
  "event=cpu,cputhreads=some|cputhreads=some"
)
# Through asgst-attach only: a start refused after the agent set itself up (its JVMTI
# callbacks, the ASGST library): SIGSEGV is the JVM's. The JVM must keep the agent loaded
# (agent.c, Agent_OnAttach): the good start after the errors then works, not a crash.
ATTACH_CASES=(
  "event=cpu,cpusignal=11|cpusignal=11"
)
echo "1..$((2 * ${#CASES[@]} + ${#ATTACH_CASES[@]} + 3))"
compile || { echo "Bail out! javac failed"; exit 1; }
for c in "${CASES[@]}"; do
  opts=${c%%|*} bad=${c#*|}
  jvm -agentpath:"$AGENT=$opts" -cp "$CLASSES" LongRunner 0.1 >"$WORK/out" 2>&1
  rc=$?
  check "-agentpath with '$opts': JVM does not start (rc $rc) and names '$bad'" \
    bash -c "[ $rc != 0 ] && grep -qF -- '$bad' '$WORK/out' && ! grep -q '^rounds' '$WORK/out'"
  grep asgst-prof "$WORK/out" | head -1 | diag
done

# A JVM the library refuses (a field hidden through the test build's hook, so the agent
# built over it) is like a bad option: the JVM does not start, and the message says why.
ASGST_TEST_HIDE_FIELD=Method::_constMethod jvm -agentpath:"$BUILD/tests/profiler/libasgstprof-test.so=event=cpu" -cp "$CLASSES" \
  LongRunner 0.1 >"$WORK/out" 2>&1
rc=$?
check "-agentpath on a JVM the library refuses: JVM does not start (rc $rc), reason given" \
  bash -c "[ $rc != 0 ] && grep -q 'refuses this JVM.*Method::_constMethod' '$WORK/out' && ! grep -q '^rounds' '$WORK/out'"
grep asgst-prof "$WORK/out" | head -1 | diag

"$JAVA" -cp "$CLASSES" LongRunner 30 >/dev/null 2>&1 &
JVM=$!
trap 'kill -9 $JVM 2>/dev/null; wait $JVM 2>/dev/null; rm -rf "$WORK"' EXIT
for _ in $(seq 50); do grep -q libjvm.so "/proc/$JVM/maps" 2>/dev/null && break; sleep 0.1; done
sleep 0.5
for c in "${CASES[@]}" "${ATTACH_CASES[@]}"; do
  opts=${c%%|*} bad=${c#*|}
  "$ATTACH" $JVM "start,$opts" >"$WORK/out" 2>&1
  rc=$?
  check "attach with '$opts': asgst-attach fails (rc $rc) naming '$bad', JVM alive" \
    bash -c "[ $rc != 0 ] && grep -qF -- '$bad' '$WORK/out' && kill -0 $JVM"
done
"$ATTACH" $JVM "start,event=cpu,file=$WORK/good.collapsed" >"$WORK/out" 2>&1
check "after the errors, a good attach start works" [ $? = 0 ]
sleep 1
"$ATTACH" $JVM stop >"$WORK/out" 2>&1
check "and stop writes its output" [ -s "$WORK/good.collapsed" ]
