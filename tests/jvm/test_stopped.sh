#!/usr/bin/env bash
# test_stopped.sh BUILD_DIR - ASGST and AsyncGetCallTrace against JVMTI GetStackTrace at
# stopped points (agents/stopped_agent.c): the agent suspends the workload's threads one at
# a time, walks each in its own signal handler with both walkers, and asks GetStackTrace
# for the same suspended thread. GetStackTrace is the VM's own answer, so where ASGST and
# ASGCT differ it says which one is right.
set -u
BUILD=$(cd "${1:?build dir}" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd)
JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/java-17-openjdk-amd64}
AGENT=$BUILD/tests/jvm/libstopped_agent.so
# Up to JDK 11 each suspension and each GetStackTrace is a safepoint operation (handshakes
# came in 15): a stop takes tens of milliseconds on a busy machine, so such a JDK gets
# longer for the same 300 samples: 30 s. The rate falls with the machine's load: 1,200-1,340
# in 30 s beside one busy loop, but 275 in 18 s (about 15 a second) inside a whole
# ./build.sh test run on JDK 11.
feature=$("$HERE/../jdks/feature.sh" "$JAVA_HOME")
if [ "${feature:-17}" -le 11 ]; then SECS=${STOPPED_SECONDS:-30}; else SECS=${STOPPED_SECONDS:-10}; fi
WORK=$BUILD/tests/jvm/stopped
mkdir -p "$WORK/classes"
echo "1..6"
. "$HERE/javac_once.sh"
if ! javac_once "$WORK/classes" "$HERE/java/walk/Workload.java" >"$WORK/javac.log" 2>&1; then
  echo "not ok 1 - Workload.java compiles"; sed 's/^/# /' "$WORK/javac.log"; exit 1
fi
rm -f "$WORK"/hs_err_*.log
modes=mix+lambda+mh+exc+deopt+alloc+classload+jni
(cd "$WORK" && timeout -k 5 $((SECS + 90)) "$JAVA_HOME/bin/java" -Xss4m \
  "-agentpath:$AGENT=secs=$SECS" -Dwalk.jni="$BUILD/tests/jvm/libwalk_jni.so" \
  -cp "$WORK/classes" Workload "$modes" $((SECS + 2))) >"$WORK/run.log" 2>&1
rc=$?
crash=$(ls "$WORK"/hs_err_*.log 2>/dev/null | wc -l)
[ $rc = 0 ] && [ "$crash" = 0 ] && echo "ok 1 - JVM ran $modes with the agent, no crash" ||
  { echo "not ok 1 - JVM exit $rc, $crash crash logs"; tail -20 "$WORK/run.log" | sed 's/^/# /'; }

line=$(grep '^STOPPED samples=' "$WORK/run.log")
get() { echo "$line" | sed -E "s/.* $1=([0-9]+).*/\1/;t;s/.*//"; }
samples=$(echo "$line" | sed -E 's/^STOPPED samples=([0-9]+).*/\1/;t;s/.*/0/')
a_ok=$(get asgst_ok); g_ok=$(get asgct_ok); a_eq=$(get asgst_eq); g_eq=$(get asgct_eq)
differ=$(get differ); sides_a=$(get jvmti_sides_asgst); sides_g=$(get jvmti_sides_asgct)
ph=$(get placeholder)
: "${a_ok:=0}" "${g_ok:=0}" "${a_eq:=0}" "${g_eq:=0}" "${differ:=0}" "${sides_a:=0}" "${sides_g:=0}" "${ph:=0}"
pct() { [ "$2" -gt 0 ] && awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", 100 * a / b }' || echo "n/a"; }
echo "# figure: stopped points: $samples samples; ASGST succeeded $a_ok, ASGCT $g_ok"
echo "# figure: equal to GetStackTrace frame for frame (method, bci): ASGST $a_eq of $a_ok ($(pct "$a_eq" "$a_ok")%, $ph of them with the VM's bci-0 placeholder), ASGCT $g_eq of $g_ok ($(pct "$g_eq" "$g_ok")%)"
echo "# figure: ASGST and ASGCT differ on $differ samples; GetStackTrace agrees with ASGST on $sides_a, with ASGCT on $sides_g"
grep '^EXAMPLE' "$WORK/run.log" | sed 's/^/# figure: /'

[ "$samples" -ge 300 ] && echo "ok 2 - at least 300 stopped samples ($samples)" ||
  echo "not ok 2 - at least 300 stopped samples ($samples)"
[ "$a_ok" -ge "$g_ok" ] && [ $((a_ok * 1000)) -ge $((samples * 995)) ] &&
  echo "ok 3 - ASGST walks >= 99.5% of stopped threads and no fewer than ASGCT" ||
  echo "not ok 3 - ASGST walks >= 99.5% of stopped threads and no fewer than ASGCT"
[ "$a_ok" -gt 0 ] && [ $((a_eq * 1000)) -ge $((a_ok * 995)) ] &&
  echo "ok 4 - ASGST equals GetStackTrace on >= 99.5% of its walks" ||
  echo "not ok 4 - ASGST equals GetStackTrace on >= 99.5% of its walks"
[ $((sides_a * 100)) -ge $((differ * 99)) ] &&
  echo "ok 5 - where ASGST and ASGCT differ, GetStackTrace sides with ASGST (>= 99%)" ||
  echo "not ok 5 - where ASGST and ASGCT differ, GetStackTrace sides with ASGST (>= 99%)"
[ "$a_eq" -ge "$g_eq" ] && echo "ok 6 - ASGST equals GetStackTrace at least as often as ASGCT" ||
  echo "not ok 6 - ASGST equals GetStackTrace at least as often as ASGCT"
