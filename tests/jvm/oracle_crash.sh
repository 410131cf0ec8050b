# oracle_crash.sh - sourced by the JVM test scripts whose agent walks every sample with
# AsyncGetCallTrace as well (the oracle: test_walk.sh, test_stub_bci.sh).
#
# Under qemu (ASGST_TEST_QEMU=1, the arm64 suite) JDK 21's and 25's own AsyncGetCallTrace
# faults now and then: the crash report's problematic frame is its
# vframeStreamForte::forte_next, libjvm code that ASGST neither calls nor shares. Such a
# run proves nothing either way: the script reports the comparison with the oracle as a
# skip naming the frame and runs the workload again without the oracle (the agent's
# oracle=0), so that ASGST's own checks still run and count. Any other crash fails as
# everywhere.
#
# oracle_crash DIR RC: the problematic frame of the crash report (hs_err_*.log) the last
# JVM left in DIR if it ran under qemu, exited with status RC != 0 and crashed in the
# oracle; nothing otherwise.
oracle_crash() {
  local dir=$1 rc=$2 hs problem
  [ "${ASGST_TEST_QEMU:-0}" = 1 ] && [ "$rc" != 0 ] || return 0
  hs=$(ls "$dir"/hs_err_*.log 2>/dev/null | head -1)
  [ -n "$hs" ] || return 0
  problem=$(grep -A1 -m1 '^# Problematic frame:' "$hs" | tail -1)
  if echo "$problem" | grep -q 'libjvm\.so.*\(vframeStreamForte\|forte_\|AsyncGetCallTrace\)'; then
    echo "${problem#\#}" | tr -s ' ' | sed 's/^ //'
  fi
}

# oracle_crash_keep DIR NAME: keeps that crash report as DIR/NAME.oracle-crash.log (the
# rerun and later runs in DIR must not find it).
oracle_crash_keep() {
  mv "$(ls "$1"/hs_err_*.log | head -1)" "$1/$2.oracle-crash.log"
}

# oracle_crash_skip NAME CRASH: the TAP description of the skipped comparison of run NAME.
oracle_crash_skip() {
  echo "$1: ASGST against AsyncGetCallTrace # SKIP AsyncGetCallTrace (the oracle) crashed the JVM under qemu: $2; run again without it for ASGST's own checks"
}
