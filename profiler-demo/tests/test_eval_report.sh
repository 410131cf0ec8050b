# test_eval_report.sh BUILD_DIR - the evaluation's report (eval/report.py) from known run
# files (data/eval_report): each mode's slowdown is its median work time against the no-
# profiler runs of the same JDK and workload, never a median across JDKs. No JVM runs.
source "$(dirname "$0")/lib.sh" "$1"
echo "1..9"
REPORT=$TESTS/../eval/report.py
DATA=$TESTS/data/eval_report

# report NAME: runs the report on a copy of fixture NAME (it writes report.html there).
report() {
  cp -r "$DATA/$1" "$WORK/$1" && python3 "$REPORT" "$WORK/$1" >"$WORK/$1.txt" 2>&1
}
# slowdown NAME MODE: the slowdown column of MODE's row in the report's table.
slowdown() { awk -v m="$2" '$1 == m {print $NF}' "$WORK/$1.txt"; }

# builtin: eval.sh's own runs, two rounds on JDK 17 (no profiler: 2270 and 2298 ms of work,
# median 2284) and one on JDK 25 (1194 ms). Compare and bias runs time no work.
report builtin
diag <"$WORK/builtin.txt"
# Expected: signal 2332/2284, thread 2387/2284, queue 2681/2284, JFR 2551/2284 (JDK 17),
# JFR 1230/1194 (JDK 25). A baseline over both JDKs' runs (2270) gives +2.7%, +5.2%...
for want in signal:+2.1% thread:+4.5% queue:+17.4% jfr:+11.7% jfr25:+3.0%; do
  m=${want%%:*} pct=${want#*:}
  got=$(slowdown builtin "$m")
  check "$m: slowdown against its own JDK's no-profiler runs is $pct (got ${got:-none})" \
    [ "$got" = "$pct" ]
done
check "the JDK 17 baseline is the median of its two no-profiler runs (2284 ms)" \
  grep -q 'mixed on jvm/java-17-openjdk-amd64 without a profiler, median work 2284 ms of 2 runs' \
  "$WORK/builtin.txt"
check "the JDK 25 baseline is its own run (1194 ms)" \
  grep -q 'mixed on jdk25/home without a profiler, median work 1194 ms of 1 run' "$WORK/builtin.txt"
check "the HTML report is written" grep -q 'Slowdown against no profiler' "$WORK/builtin/report.html"

# two_workloads: a user program (elapsed time: none 4000/4020, signal 4100/4120 ms: +2.5%)
# and the mixed workload (2284 and 2332 ms: +2.1%) on one JDK: each against its own
# workload's baseline, the mode's figure their median, +2.3% (one baseline over both: +2.5%).
report two_workloads
diag <"$WORK/two_workloads.txt"
got=$(slowdown two_workloads signal)
check "two workloads: each against its own baseline, median +2.3% (got ${got:-none})" \
  [ "$got" = "+2.3%" ]
