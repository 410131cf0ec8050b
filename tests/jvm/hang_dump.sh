#!/usr/bin/env bash
# hang_dump.sh PID OUT - every thread's C stack of a JVM that has not finished in time,
# with gdb in batch mode (it stops the process for a moment, reads, detaches), into OUT;
# then prints, as TAP comments, the threads whose stacks pass through the library or the
# test agents, or wait in JVMTI suspension: what a hang of the queue machinery would show.
# Java frames have no symbols for gdb (they print as ??); the C frames around them say
# which call waits. Ordinary: run from a test script beside the JVM's time limit.
set -u
PID=${1:?pid} OUT=${2:?output file}
if ! command -v gdb >/dev/null 2>&1; then
  echo "# hang dump: no gdb here (./build.sh test installs it)" >"$OUT"
  cat "$OUT"; exit 0
fi
timeout 60 gdb -p "$PID" -batch -nx -ex "set pagination off" -ex "thread apply all bt 30" >"$OUT" 2>&1
echo "# hang dump of JVM $PID: $(grep -c '^Thread ' "$OUT") threads, whole in ${OUT##*/}"
# A thread's block: its "Thread N" line and its frames, each without its arguments and
# with its library's file name only (the JDK cache's path holds "asgst"); kept when a
# frame names ours.
sed -E 's| from /[^ ]*/([^/ ]+)$| [\1]|; s/ \(([^()]|\([^()]*\))*\)( at | \[|$)/\2/' "$OUT" |
  awk '/^Thread / { if (keep) printf "%s", block; block = $0 "\n"; keep = 0; next }
       /^#[0-9]/ { block = block $0 "\n"
                   if ($0 ~ /asgst|queue_agent|SuspendThread|ResumeThread|java_suspend|JvmtiSuspend|wait_until_armed/) keep = 1 }
       END { if (keep) printf "%s", block }' | cut -c1-160 | head -200 | sed 's/^/#   /'
