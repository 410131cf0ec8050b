#!/usr/bin/env bash
# queue_sched.sh BUILD_DIR [SECONDS] - safepoint queues with and without the opt-in
# real-time scheduling (ASGST_INIT_REALTIME_QUEUES, through the queue test agent's
# ASGST_TEST_REALTIME_QUEUES=1), on the default JDK and each JDK 17+ that tests/jdks/list.sh
# gives, quiet and beside a busy loop (one process spinning on each core: the owners then
# share every CPU). Per run: the stale share of enqueued elements and the owner's time in
# ASGST_Enqueue per sample (mean, and its CPU time p99). One table line a run; a figure
# for the tables of docs/queues.md. Not budgeted: the default's
# < 5% stale is test_queues.sh's check.
set -u
BUILD=$(cd "${1:?build dir}" && pwd)
SECS=${2:-8}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
AGENT=$BUILD/tests/jvm/libqueue_agent.so
WORK=$BUILD/bench/queue-sched
mkdir -p "$WORK/classes"
JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/java-17-openjdk-amd64}
"$JAVA_HOME/bin/javac" -d "$WORK/classes" "$ROOT/tests/jvm/java/walk/Workload.java" || exit 1

# busy_start N: N processes spinning until busy_stop.
busy=()
busy_start() { local i; for i in $(seq "$1"); do (while :; do :; done) & busy+=($!); done; }
busy_stop() { [ ${#busy[@]} -gt 0 ] && kill "${busy[@]}" 2>/dev/null; wait "${busy[@]}" 2>/dev/null; busy=(); }
trap busy_stop EXIT

# one LABEL HOME OPTIN LOAD: one JVM, its table line.
one() {
  local label=$1 home=$2 optin=$3 load=$4 log
  log=$WORK/$label-$optin-$load.log
  [ "$load" = busy ] && busy_start "$(nproc)"
  (cd "$WORK" && ASGST_TEST_REALTIME_QUEUES=$optin timeout -k 5 $((SECS + 60)) "$home/bin/java" -Xss4m \
    "-agentpath:$AGENT=interval_us=1000,stale_max_pct=100" -cp "$WORK/classes" Workload mix+mix+deep+deep "$SECS") \
    >"$log" 2>&1
  busy_stop
  local stale cost cpu99 raised
  stale=$(sed -n 's/^QUEUE # figure: stale rate \([0-9.]*\)%.*/\1/p' "$log")
  cost=$(sed -n 's/^QUEUE # figure: owner.s cost per sample (ASGST_Enqueue) \([0-9.]*\) us mean.*/\1/p' "$log")
  cpu99=$(sed -n 's/^QUEUE # figure: owner.s CPU time in ASGST_Enqueue per sample p50 [0-9.]* us, p99 \([0-9.]*\) us.*/\1/p' "$log")
  raised=$(sed -n 's/.*at real-time priority \([0-9]*\) .*/\1/p' "$log")
  printf '| %-8s | %-3s | %-5s | %6s%% | %7s us | %7s us | %6s |\n' "$label" "$([ "$optin" = 1 ] && echo yes || echo no)" \
    "$load" "${stale:-?}" "${cost:-?}" "${cpu99:-?}" "${raised:-?}"
}

echo "| JDK      | opt-in | load  | stale (of handled) | owner's time a sample, mean | owner's CPU a sample, p99 | owners raised |"
echo "|---|---|---|---|---|---|---|"
homes=("jdk$("$ROOT/tests/jdks/feature.sh" "$JAVA_HOME") $JAVA_HOME")
while read -r label home; do
  case "$home" in SKIP*) continue ;; esac
  v=${label#jdk}; v=${v%%-*}
  [ "$v" -ge 17 ] 2>/dev/null && [ "$v" -le 27 ] && [ "$label" = "jdk$v" ] && homes+=("$label $home")
done < <("$ROOT/tests/jdks/list.sh" 2>/dev/null)
for entry in "${homes[@]}"; do
  read -r label home <<<"$entry"
  for load in quiet busy; do
    for optin in 0 1; do one "$label" "$home" "$optin" "$load"; done
  done
done
