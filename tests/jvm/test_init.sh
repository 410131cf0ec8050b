#!/usr/bin/env bash
# test_init.sh BUILD_DIR - initialization a caller can see (agents/init_agent.c):
# ASGST_Initialize from Agent_OnLoad is pending until VMInit (walks say ASGST_INIT_PENDING),
# ASGST_InitializeStatus and the ASGST_SetInitializeCallback callback learn the outcome,
# once bound and once refused at VMInit (the test build's ASGST_TEST_REFUSE_LIVE).
set -u
BUILD=$(cd "${1:?build dir}" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd)
JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/java-17-openjdk-amd64}
AGENT=$BUILD/tests/jvm/libinit_agent.so
# One work directory per JDK home (many homes end in the same name, e.g. home).
WORK=$BUILD/tests/jvm/init-$(echo "$JAVA_HOME" | cksum | cut -d" " -f1)
mkdir -p "$WORK"
n=0
tap() { n=$((n + 1)); echo "$1 $n - $2"; }
. "$HERE/agent_tap.sh"
if [ ! -x "$JAVA_HOME/bin/java" ] || [ ! -f "$AGENT" ]; then
  tap "not ok" "init test: no JDK at $JAVA_HOME or the agent is not built (./build.sh build)"; exit 1
fi
for mode in bind refuse; do
  env=()
  [ "$mode" = refuse ] && env=(ASGST_TEST_REFUSE_LIVE=1)
  (cd "$WORK" && env "${env[@]}" timeout -k 5 60 "$JAVA_HOME/bin/java" "-agentpath:$AGENT=$mode" -version) \
    >"$WORK/$mode.log" 2>&1
  rc=$?
  if [ $rc = 0 ]; then tap "ok" "$mode: the JVM ran and exited cleanly"
  else tap "not ok" "$mode: JVM exit status $rc"; tail -5 "$WORK/$mode.log" | sed 's/^/# /'; fi
  agent_checks_tap INIT "$WORK/$mode.log" 9
done
