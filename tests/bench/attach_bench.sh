#!/usr/bin/env bash
# attach_bench.sh BUILD_DIR [JAVA_HOME...] - ASGST_Initialize time in a live JVM that has
# 1k, 10k and 50k generated classes loaded (tests/bench/java/AttachBench.java), in the
# application class loader and in custom (unloadable) loaders; "# figure:" lines, with the
# binding thread's CPU time beside the wall time (initialize_cpu_ms: the steady figure on a
# busy machine; ASGST_INIT_TIMING=1 breaks both down by phase, docs/budgets.md), and how
# long walks still said ASGST_INIT_PENDING after the answer (walks_pending_ms: the classes
# loaded before being listed in the background, impl/hotspot/classes/class_backlog.c).
# Budgets, one "ok -" or "not ok -" line each per JDK (budget.sh): <= 10 ms at 50k, the
# median of ATTACH_RUNS JVMs (default 3) of the slower loader kind; flat in the number of classes: the CPU time at 50k within
# 1 ms of that at 1k (medians of as many JVMs, same loader kind, the slower kind counts).
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
  what="JDK $major: attach, ASGST_Initialize with 50k classes loaded <= 10 ms"
  echo "== attach time on $home"
  mkdir -p "$WORK/classes-$major"
  if ! out=$("$home/bin/javac" -d "$WORK/classes-$major" "$ROOT/tests/bench/java/AttachBench.java" 2>&1); then
    echo "$out" | head -5
    budget 0 "$what" "no figure: AttachBench.java does not compile: $(grep -m1 error <<<"$out")"
    continue
  fi
  worst="" why="" flat_worst=""
  for kind in system custom; do
    cpu_1k=""
    for n in 1000 10000 50000; do
      # 50k classes: the budget's case, ATTACH_RUNS JVMs (default 3), their median judged:
      # one JVM's wall time swings by several ms with what the JVM's own threads (the JIT
      # after loading the classes) and the machine do meanwhile. 1k as many, since the
      # flatness budget compares the two medians (one JVM's CPU time at 1k ranged 2.5-4.5
      # ms on JDK 21, which a single run put against a median).
      runs=1 mss="" cpus=""
      [ "$n" = 10000 ] || runs=${ATTACH_RUNS:-3}
      for r in $(seq "$runs"); do
        out=$("$home/bin/java" -Xss4m -cp "$WORK/classes-$major" AttachBench "$n" "$kind" "$LIB" 2>&1)
        line=$(grep '^ATTACH classes=' <<<"$out" | sed 's/^ATTACH //')
        echo "# figure: attach ${line:-classes=$n kind=$kind failed: $(tail -1 <<<"$out")}"
        cpus+=" $(field initialize_cpu_ms "$line")"
        ms=$(field initialize_ms "$line")
        # AttachBench prints -0.0 when ASGST_Initialize failed (the reason on stderr).
        if [ -z "$ms" ] || [ "${ms#-}" != "$ms" ] || grep -q '^ASGST_Initialize:' <<<"$out"; then
          why="$kind: $(grep -m1 '^ASGST_Initialize' <<<"$out" || tail -1 <<<"$out")"
        else
          mss+=" $ms"
        fi
      done
      cpu=$(median $cpus)
      [ "$n" = 1000 ] && cpu_1k=$cpu
      [ "$n" = 50000 ] || continue
      if [ -n "$cpu" ] && [ -n "$cpu_1k" ] && [ "${cpu#-}" = "$cpu" ]; then
        growth=$(awk -v a="$cpu" -v b="$cpu_1k" 'BEGIN { printf "%+.1f", a - b }')
        if [ -z "$flat_worst" ] || lt "$flat_worst" "$growth"; then flat_worst=$growth; fi
      fi
      ms=$(median $mss)
      [ -n "$ms" ] && echo "# figure: attach classes=$n kind=$kind median_initialize_ms=$ms of$mss"
      if [ -n "$ms" ] && { [ -z "$worst" ] || lt "$worst" "$ms"; }; then worst=$ms; fi
    done
  done
  if [ -n "$why" ]; then budget 0 "$what" "no figure: $why"
  else budget "$(le "$worst" 10 && echo 1)" "$what" "$worst ms, median of ${ATTACH_RUNS:-3} JVMs, the slower of system and custom loaders, vs <= 10 ms"
  fi
  flat="JDK $major: attach, ASGST_Initialize's CPU time flat in class count (50k within 1 ms of 1k)"
  if [ -n "$why" ] || [ -z "$flat_worst" ]; then budget 0 "$flat" "no figure: ${why:-no CPU times}"
  else budget "$(le "$flat_worst" 1 && echo 1)" "$flat" "$flat_worst ms of CPU from 1k to 50k classes, the larger of the two loader kinds, vs <= 1 ms"
  fi
done
