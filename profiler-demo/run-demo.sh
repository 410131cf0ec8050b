#!/usr/bin/env bash
# run-demo.sh BUILD_DIR - runs the bundled sample under the profiler: CPU samples plus the
# socket, socketpair and bind tracepoints; writes a flame graph, folded stacks, a summary,
# a JFR recording, a pprof profile and the file-descriptor report under out/ and prints
# the report.
set -uo pipefail
BUILD=$(cd "${1:?usage: run-demo.sh BUILD_DIR}" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/java-17-openjdk-amd64}
AGENT=$BUILD/lib/libasgstprof.so
OUT=$ROOT/out
CLASSES=$BUILD/profiler-demo/sample-classes
mkdir -p "$OUT" "$CLASSES"
"$JAVA_HOME/bin/javac" -d "$CLASSES" "$HERE"/sample/*.java || exit 1

run() { # run OPTIONS: the sample under the agent, its stderr kept in out/demo-stderr.txt
  "$JAVA_HOME/bin/java" -agentpath:"$AGENT=$1" -cp "$CLASSES" DemoApp 4 2>"$OUT/demo-stderr.txt"
}

FILES="file=$OUT/profile.html,file=$OUT/profile.collapsed,file=$OUT/summary.txt"
FILES="$FILES,file=$OUT/profile.jfr,file=$OUT/profile.pb.gz"
TRACE="event=fds"
echo "== running the sample under the agent: cpu + the fd tracepoints (event=fds)"
if run "event=cpu,interval=1ms,$TRACE,$FILES,fds=$OUT/fds.txt"; then
  echo
  # Headlines and one-line stacks; the file has every stack in full.
  grep -E '^(===|---|fd |  at )' "$OUT/fds.txt" | head -40
else
  echo "The tracepoint run failed:"
  grep 'asgst-prof' "$OUT/demo-stderr.txt"
  echo "(tracepoints need root and tracefs; showing a CPU profile only)"
  run "event=cpu,interval=1ms,$FILES" || { cat "$OUT/demo-stderr.txt"; exit 1; }
fi
echo
sed -n '/^=== asgst-prof summary/,$p' "$OUT/demo-stderr.txt"
echo
echo "flame graph:   $OUT/profile.html"
echo "folded stacks: $OUT/profile.collapsed"
echo "summary:       $OUT/summary.txt"
echo "JFR:           $OUT/profile.jfr (jfr print, JDK Mission Control)"
echo "pprof:         $OUT/profile.pb.gz (go tool pprof)"
[ -f "$OUT/fds.txt" ] && echo "fd report:     $OUT/fds.txt"
exit 0
