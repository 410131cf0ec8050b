#!/usr/bin/env bash
# javac_asprof.sh BUILD_DIR ASPROF_HOME [JAVA_HOME...] - the peer for javac_bench.sh: the
# same javac workload (the same generated classes) under async-profiler, cpu samples every
# millisecond, with its own VMStructs stack walker (its default where the JVM exports the
# stack structures). ASPROF_HOME is a build of async-profiler from its public source
# (ASPROF_HOME/lib/libasyncProfiler.so); the project does not ship or fetch it.
# Prints per JDK: samples, samples with a Java frame, and the share of those whose stack
# async-profiler marked as not walked to its end (its error frames: "[unknown_Java]",
# "[break_compiled]", ...), by error name, on a "# figure: asprof: ..." line. Run by
# javac_bench.sh when ASPROF_HOME is set, which compares ASGST's error share with this one.
set -u
BUILD=$(cd "${1:?build dir}" && pwd)
ASPROF=${2:?async-profiler home}
shift 2
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
LIB=$ASPROF/lib/libasyncProfiler.so
WORK=$BUILD/bench/javac
N=${JAVAC_CLASSES:-300}
[ -f "$LIB" ] || { echo "javac asprof: no $LIB"; exit 1; }
[ $# -gt 0 ] || set -- "${JAVA_HOME:-/usr/lib/jvm/java-17-openjdk-amd64}"
mkdir -p "$WORK"
# The generated sources, written again when N or the generator changed.
STAMP="$N $(cksum <"$ROOT/tests/bench/gen_javac_sources.sh")"
[ "$(cat "$WORK/gen/.stamp" 2>/dev/null)" = "$STAMP" ] ||
  { bash "$ROOT/tests/bench/gen_javac_sources.sh" "$WORK" "$N" && echo "$STAMP" >"$WORK/gen/.stamp"; }

# The frames async-profiler puts where a walk failed or stopped early. Not errors:
# no_Java_frame and thread_exit (no Java code to walk), as in its own summary.
ERRORS="GC_active|unknown_Java|not_walkable_Java|not_walkable_not_Java|deoptimization|safepoint|skipped|unknown_state|unexpected_state|break_[a-z_]*|unknown_nmethod|truncated|storage_overflow"

. "$ROOT/tests/bench/javac_run.sh"

# asprof_jdk JAVA_HOME: one javac run under async-profiler; prints its figures.
asprof_jdk() {
  local home=$1 v out log
  v=$(sed -n 's/^JAVA_VERSION="\([^"]*\)".*/\1/p' "$home/release" 2>/dev/null)
  out=$WORK/asprof-${v:-unknown}.collapsed
  log=$WORK/asprof-${v:-unknown}.log
  rm -rf "$WORK/out" && mkdir -p "$WORK/out"
  echo "== javac ($N classes) under async-profiler on JDK ${v:-?} ($home)"
  (cd "$WORK" && javac_run "$home" \
    "-agentpath:$LIB=start,event=cpu,interval=1ms,ann,collapsed,file=$out" -d out gen/*.java) >"$log" 2>&1 ||
    { echo "javac failed (log: $log)"; tail -3 "$log"; return; }
  # A line is "frame;frame;... count"; Java frames carry _[j], _[i], _[0] or _[1] (ann).
  awk -v errors="^\\\\[($ERRORS)\\\\]$" '
    { n = $NF; total += n; sub(/ [0-9]+$/, ""); k = split($0, f, ";")
      java = 0; err = ""
      for (i = 1; i <= k; i++) {
        if (f[i] ~ /_\[[ji01]\]$/) java = 1
        if (f[i] ~ errors) { err = f[i]; java = 1 }
      }
      if (java) javan += n
      if (err != "") { errn += n; by[err] += n } }
    END {
      printf "# figure: asprof: samples=%d with_java=%d errors=%d (%.2f%% of with_java)", total, javan, errn, javan ? 100 * errn / javan : 0
      for (e in by) printf " %s=%d", e, by[e]
      printf "\n" }' "$out"
}

for home in "$@"; do asprof_jdk "$home"; done
