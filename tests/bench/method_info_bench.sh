#!/usr/bin/env bash
# method_info_bench.sh BUILD_DIR [JAVA_HOME] - median ASGST_GetMethodInfo /
# ASGST_GetMethodLineNumber time over ~2000 methods of a real JVM (the info test agent's
# bench mode; default $JAVA_HOME, JDK 17). Prints "# figure:" lines and one budget line
# (budget.sh): GetMethodInfo median < 200 ns.
set -u
BUILD=$(cd "${1:?build dir}" && pwd)
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
. "$ROOT/tests/bench/budget.sh"
JAVA_HOME=${2:-${JAVA_HOME:-$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")}}
major=$(jdk_major "$JAVA_HOME")
BENCH_UNTESTED=0
jdk_untested "$JAVA_HOME" && BENCH_UNTESTED=1
WHAT="JDK $major: ASGST_GetMethodInfo median < 200 ns"
LIB=$BUILD/tests/jvm/libinfo_agent.so
WORK=$BUILD/tests/jvm/info-bench/jdk$major
mkdir -p "$WORK/classes"
echo "== method info time on $JAVA_HOME"
if ! "$JAVA_HOME/bin/javac" -d "$WORK/classes" "$ROOT"/tests/jvm/java/info/info/*.java >"$WORK/javac.out" 2>&1; then
  head -5 "$WORK/javac.out"
  budget 0 "$WHAT" "no figure: the info workload does not compile: $(grep -m1 error "$WORK/javac.out" || head -1 "$WORK/javac.out")"
  exit 0
fi
"$JAVA_HOME/bin/java" -agentpath:"$LIB"=bench -cp "$WORK/classes" info.InfoWorkload >"$WORK/bench.out" 2>&1
# The time figures (not when the library did not bind: those would time failing calls), and
# any of the agent's own checks (binding at load time...) that failed.
unbound=0
grep -q '^RESULT fail onload: ASGST_Initialize from' "$WORK/bench.out" && unbound=1
[ $unbound = 1 ] && sed -i '/^FIGURE ASGST_GetMethod/d' "$WORK/bench.out"
sed -n 's/^FIGURE \(ASGST_GetMethod\)/# figure: \1/p; s/^RESULT fail /# agent check not ok - /p' "$WORK/bench.out" |
  grep -v 'bench: ASGST_GetMethodInfo median under'
ns=$(sed -n 's/^FIGURE ASGST_GetMethodInfo median \([0-9.]*\) ns.*/\1/p' "$WORK/bench.out" | head -1)
methods=$(sed -n 's/^FIGURE ASGST_GetMethodInfo median .*(\([0-9]*\) methods.*/\1/p' "$WORK/bench.out" | head -1)
if [ $unbound = 1 ]; then
  # The calls were timed on an unbound library; the walk agent says why it failed.
  budget 0 "$WHAT" "no figure: ASGST_Initialize failed: $(init_failure "$JAVA_HOME" "$BUILD/tests/jvm/libwalk_agent.so")"
elif [ -z "$ns" ]; then
  why=$(sed -n 's/^FIGURE ASGST_Initialize: //p; s/^RESULT fail //p' "$WORK/bench.out" | head -1)
  budget 0 "$WHAT" "no figure: ${why:-$(tail -1 "$WORK/bench.out")}"
elif [ "${methods:-0}" -le 1000 ]; then
  budget 0 "$WHAT" "$ns ns vs < 200 ns, but over only ${methods:-0} methods (the agent wants over 1000)"
else
  budget "$(lt "$ns" 200 && echo 1)" "$WHAT" "$ns ns vs < 200 ns"
fi
