#!/usr/bin/env bash
# attach_bench.sh BUILD_DIR [JAVA_HOME...] - ASGST_Initialize time in a live JVM that has
# 1k, 10k and 50k generated classes loaded (tests/bench/java/AttachBench.java), in the
# application class loader and in custom (unloadable) loaders; "# figure:" lines, with the
# binding thread's CPU time beside the wall time (initialize_cpu_ms: the steady figure on a
# busy machine; ASGST_INIT_TIMING=1 breaks both down by phase, docs/budgets.md).
# Budget: < 100 ms at 50k, flat in the number of classes: one "ok -" or "not ok -" line per
# JDK on the slower of the two 50k runs (budget.sh).
set -u
BUILD=$(cd "${1:?build dir}" && pwd)
shift
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
. "$ROOT/tests/bench/budget.sh"
LIB=$BUILD/tests/jvm/libattach_bench.so
WORK=$BUILD/bench/attach
mkdir -p "$WORK"
homes=("$@")
[ ${#homes[@]} -eq 0 ] && homes=("${JAVA_HOME:-/usr/lib/jvm/java-17-openjdk-amd64}")
for home in "${homes[@]}"; do
  major=$(jdk_major "$home")
  BENCH_UNTESTED=0
  jdk_untested "$home" && BENCH_UNTESTED=1
  what="JDK $major: attach, ASGST_Initialize with 50k classes loaded < 100 ms"
  echo "== attach time on $home"
  mkdir -p "$WORK/classes-$major"
  if ! out=$("$home/bin/javac" -d "$WORK/classes-$major" "$ROOT/tests/bench/java/AttachBench.java" 2>&1); then
    echo "$out" | head -5
    budget 0 "$what" "no figure: AttachBench.java does not compile: $(grep -m1 error <<<"$out")"
    continue
  fi
  worst="" why=""
  for kind in system custom; do
    for n in 1000 10000 50000; do
      out=$("$home/bin/java" -Xss4m -cp "$WORK/classes-$major" AttachBench "$n" "$kind" "$LIB" 2>&1)
      line=$(grep '^ATTACH classes=' <<<"$out" | sed 's/^ATTACH //')
      echo "# figure: attach ${line:-classes=$n kind=$kind failed: $(tail -1 <<<"$out")}"
      [ "$n" = 50000 ] || continue
      ms=$(field initialize_ms "$line")
      # AttachBench prints -0.0 when ASGST_Initialize failed (the reason on stderr).
      if [ -z "$ms" ] || [ "${ms#-}" != "$ms" ] || grep -q '^ASGST_Initialize:' <<<"$out"; then
        why="$kind: $(grep -m1 '^ASGST_Initialize' <<<"$out" || tail -1 <<<"$out")"
      elif [ -z "$worst" ] || lt "$worst" "$ms"; then
        worst=$ms
      fi
    done
  done
  if [ -n "$why" ]; then budget 0 "$what" "no figure: $why"
  else budget "$(lt "$worst" 100 && echo 1)" "$what" "$worst ms, the slower of system and custom loaders, vs < 100 ms"
  fi
done
