#!/usr/bin/env bash
# test_remote_walk.sh BUILD_DIR - out-of-thread walks of Java threads give the same frames
# as in-handler walks of the same threads (sleeping threads: identical traces; threads
# spinning in one loop: identical method sequences), and that experimental stack-copy walks
# (ASGST_COPY_STACK: the target released once its stack is copied) of these threads, whose
# stacks below the sampled frame do not change, equal the blocking walk of the same moment.
# Runs on JDK 17, and on a JDK 25 when
# the system's JVM directory has one.
set -u
BUILD=${1:?build dir}
HERE=$(cd "$(dirname "$0")" && pwd)
JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/java-17-openjdk-amd64}
agent=$BUILD/tests/jvm/libremote_agent.so
classes=$BUILD/tests/jvm/classes/remote
mkdir -p "$classes"
echo "1..7"
. "$HERE/javac_once.sh"
if ! javac_once "$classes" "$HERE/java/remote/RemoteWalkWorkload.java"; then
  echo "not ok 1 - workload compiles"; exit 1
fi
out=$(timeout 120 "$JAVA_HOME/bin/java" -agentpath:"$agent" -cp "$classes" RemoteWalkWorkload 6 2>&1)
rc=$?
[ $rc = 0 ] && echo "ok 1 - JVM ran the workload with the agent" || { echo "not ok 1 - JVM exit $rc"; echo "$out" | sed 's/^/# /' | tail -20; }
check() { # kind field minimum-percent
  local line pairs val
  line=$(echo "$out" | grep "^RESULT $1 ")
  pairs=$(echo "$line" | sed -E 's/.*pairs=([0-9]+).*/\1/')
  val=$(echo "$line" | sed -E "s/.* $2=([0-9]+).*/\1/")
  echo "# figure: out-of-thread vs in-handler, $1 threads: $line"
  [ -n "$pairs" ] && [ "$pairs" -ge 50 ] && [ $((val * 100)) -ge $((pairs * $3)) ]
}
echo "$out" | grep '^FAILED' | sed 's/^/# figure: failed walk: /'
check sleep exact 99 && echo "ok 2 - sleeping threads: identical traces in >= 99% of pairs" || echo "not ok 2 - sleeping threads: identical traces in >= 99% of pairs"
check busy methods 98 && echo "ok 3 - spinning threads: identical method sequences in >= 98% of pairs" || echo "not ok 3 - spinning threads: identical method sequences in >= 98% of pairs"
check busy remote_ok 98 && echo "ok 4 - out-of-thread walks of running threads succeed" || echo "not ok 4 - out-of-thread walks of running threads succeed"
check copy-sleep exact 99 && echo "ok 5 - stack-copy walks of sleeping threads equal the blocking walk in >= 99% of pairs" || echo "not ok 5 - stack-copy walks of sleeping threads equal the blocking walk in >= 99% of pairs"
check copy-busy exact 98 && echo "ok 6 - stack-copy walks of spinning threads equal the blocking walk in >= 98% of pairs" || echo "not ok 6 - stack-copy walks of spinning threads equal the blocking walk in >= 98% of pairs"
check copy-busy copy_ok 98 && echo "ok 7 - stack-copy walks of running threads succeed" || echo "not ok 7 - stack-copy walks of running threads succeed"
