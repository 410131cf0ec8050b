#!/usr/bin/env bash
# walk_ab.sh BUILD_DIR OLD_LIB [JAVA_HOME...] - did a change move the walk's cost? The walk
# bench's shipped agent (walk_bench.sh, run it once first) with two builds of libasgst.so
# swapped in by turns: OLD_LIB (a libasgst.so.0.1.0 built before the change) and the one in
# BUILD_DIR's install prefix. Without JAVA_HOME arguments: $JAVA_HOME, default JDK 17.
#
# Why by turns: on a shared machine two bench runs minutes apart differ by 5-15% at 200
# frames in both walkers' times, more than most changes move them. Alternating the two
# libraries JVM by JVM (AB BA AB ...) puts both under the same drift, and the ratio to
# ASGCT, taken per JVM, cancels what the machine does to the two walkers alike.
#
# Build OLD_LIB from the same checkout path as the new one: GCC's output depends on the
# source paths (assertion strings, debug info), which is enough to move code alignment.
#   git stash; git checkout OLD; cmake --build build --target asgst; cp -L build/lib/libasgst.so OLD.so; git checkout -
#
# AB_PAIRS (default 5): pairs of JVMs per release and mode; AB_MODES (default "compiled
# interpreted") the modes. Prints, per release, mode and depth, the median ASGST time of
# each library and the median of the JVMs' ASGST/ASGCT ratios, with the change in percent;
# in compiled mode also the walk with 21 C frames ("C21": its time, and its ratio to the
# Java-only walk of the same samples). It judges nothing.
set -u
BUILD=$(cd "${1:?build dir}" && pwd)
OLD=$(realpath "${2:?old libasgst.so}")
shift 2
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
. "$ROOT/tests/bench/budget.sh"
WORK=$BUILD/bench/walk
PAIRS=${AB_PAIRS:-5}
AGENT=$WORK/libshipped_walk_agent.so
LIB=$WORK/prefix/lib/libasgst.so.0.1.0
[ -f "$AGENT" ] && [ -f "$LIB" ] || { echo "walk_ab.sh: run tests/bench/walk_bench.sh $1 first (no $AGENT)" >&2; exit 2; }
[ $# -gt 0 ] || set -- "${JAVA_HOME:-/usr/lib/jvm/java-17-openjdk-amd64}"
NEW=$(mktemp)
cp "$LIB" "$NEW"
# Whatever happens, the prefix gets its own library back.
trap 'cp "$NEW" "$LIB"; rm -f "$NEW"' EXIT

# one_jvm LIBFILE MODE MAJOR HOME: "frames=B asgst=NS ratio=R" lines of one WalkBench JVM.
one_jvm() {
  local flags="" warm=${BENCH_WARMUP:-1.5} nofp=$BUILD/tests/jvm/libnofp.so
  [ "$2" = interpreted ] && flags=-Xint warm=0 nofp=""
  cp "$1" "$LIB"
  (cd "$WORK" && timeout -k 5 120 "$4/bin/java" $flags -Xss8m "-agentpath:$AGENT=label=$2,interval_us=200" \
    -cp "$WORK/classes-$3" WalkBench "${BENCH_WALK_SECONDS:-1.5}" "$warm" $nofp 2>&1) |
    sed -n 's/^SHIPPED # figure: bench=[a-z]* //p; s/^SHIPPED # figure: native=[a-z]* /frames=C21 /p' |
    awk '{ delete f; for (i = 1; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
           if (f["asgct_median_ns"] > 0) printf "frames=%s asgst=%s ratio=%.4f\n", f["frames"], f["asgst_median_ns"], f["asgst_median_ns"] / f["asgct_median_ns"]
           if (f["java_only_median_ns"] > 0) printf "frames=C21 asgst=%s ratio=%.4f\n", f["with_c_median_ns"], f["with_c_median_ns"] / f["java_only_median_ns"] }'
}

for home in "$@"; do
  major=$(jdk_major "$home")
  [ -d "$WORK/classes-$major" ] || { echo "# JDK $major: no $WORK/classes-$major (walk_bench.sh on it first)"; continue; }
  for mode in ${AB_MODES:-compiled interpreted}; do
    out=""
    for r in $(seq "$PAIRS"); do
      order="old new"
      [ $((r % 2)) = 0 ] && order="new old"
      for v in $order; do
        lib=$OLD
        [ "$v" = new ] && lib=$NEW
        out+=$(one_jvm "$lib" "$mode" "$major" "$home" | sed "s/^/$v /")$'\n'
      done
    done
    buckets="5-20 35-75 150-320"
    [ "$mode" = compiled ] && buckets+=" C21"
    for b in $buckets; do
      oa=$(awk -v b="frames=$b" '$1 == "old" && $2 == b { sub("asgst=", "", $3); print $3 }' <<<"$out")
      na=$(awk -v b="frames=$b" '$1 == "new" && $2 == b { sub("asgst=", "", $3); print $3 }' <<<"$out")
      or=$(awk -v b="frames=$b" '$1 == "old" && $2 == b { sub("ratio=", "", $4); print $4 }' <<<"$out")
      nr=$(awk -v b="frames=$b" '$1 == "new" && $2 == b { sub("ratio=", "", $4); print $4 }' <<<"$out")
      awk -v j="$major" -v m="$mode" -v b="$b" -v oa="$(median $oa)" -v na="$(median $na)" \
        -v ro="$(median $or)" -v rn="$(median $nr)" -v p="$PAIRS" 'BEGIN {
        # Not "or": gawk, where it is installed as awk, keeps that name for a function.
        if (oa == "" || na == "" || ro == "" || rn == "") { printf "# JDK %s %s %s frames: no figure\n", j, m, b; exit }
        what = b == "C21" ? "with C frames/Java-only" : "ASGST/ASGCT"
        printf "# figure: walk A/B JDK %s %s %s frames, %d pairs: ASGST old %d ns new %d ns (%+.1f%%); %s old %.3f new %.3f (%+.1f%%)\n",
          j, m, b, p, oa, na, (na - oa) / oa * 100, what, ro, rn, (rn - ro) / ro * 100 }'
    done
  done
done
