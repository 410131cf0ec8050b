#!/usr/bin/env bash
# attach_bench.sh BUILD_DIR [JAVA_HOME...] - ASGST_Initialize time in a live JVM that has
# 1k, 10k and 50k generated classes loaded (tests/bench/java/AttachBench.java), in the
# application class loader and in custom (unloadable) loaders. Budget: < 100 ms at 50k,
# flat in the number of classes.
set -u
BUILD=$(cd "${1:?build dir}" && pwd)
shift
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
LIB=$BUILD/tests/jvm/libattach_bench.so
WORK=$BUILD/bench/attach
mkdir -p "$WORK"
homes=("$@")
[ ${#homes[@]} -eq 0 ] && homes=("${JAVA_HOME:-/usr/lib/jvm/java-17-openjdk-amd64}")
for home in "${homes[@]}"; do
  echo "== attach time on $home"
  "$home/bin/javac" -d "$WORK/classes" "$ROOT/tests/bench/java/AttachBench.java" || continue
  for kind in system custom; do
    for n in 1000 10000 50000; do
      out=$("$home/bin/java" -Xss4m -cp "$WORK/classes" AttachBench "$n" "$kind" "$LIB" 2>&1)
      line=$(grep '^ATTACH classes=' <<<"$out" | sed 's/^ATTACH //')
      echo "# figure: attach ${line:-classes=$n kind=$kind failed: $(tail -1 <<<"$out")}"
    done
  done
done
