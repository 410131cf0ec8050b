#!/usr/bin/env bash
# method_info_bench.sh BUILD_DIR - median ASGST_GetMethodInfo / ASGST_GetMethodLineNumber
# time on a real JVM 17 (budget: GetMethodInfo < 200 ns). Prints "# figure:" lines.
set -u
BUILD=$(cd "${1:?build dir}" && pwd)
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
JAVA_HOME=${JAVA_HOME:-$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")}
LIB=$BUILD/tests/jvm/libinfo_agent.so
WORK=$BUILD/tests/jvm/info-bench
mkdir -p "$WORK"
"$JAVA_HOME/bin/javac" -d "$WORK/classes" "$ROOT"/tests/jvm/java/info/info/*.java || exit 1
"$JAVA_HOME/bin/java" -agentpath:"$LIB"=bench -cp "$WORK/classes" info.InfoWorkload >"$WORK/bench.out" 2>&1
sed -n 's/^FIGURE /# figure: /p; s/^RESULT pass /ok - /p; s/^RESULT fail /not ok - /p' "$WORK/bench.out"
