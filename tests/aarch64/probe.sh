#!/usr/bin/env bash
# probe.sh SYSROOT [SECONDS] - cross-builds probe_agent.c and runs it under qemu on each arm64
# JDK of SYSROOT (made by provision.sh) with Spin.java, on CPU models with and without
# pointer authentication, plus the JVM's own return-address signing where it has the flag;
# prints one line per run: the JVM's exit status, CPU and wall time, the agent's counts.
# Not part of ./build.sh test: qemu runs are slow; a manual check of the arm64 groundwork.
# The Java program is compiled by the host's javac (JAVA_HOME, default JDK 17).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
[ $# -ge 1 ] || { echo "usage: probe.sh SYSROOT [SECONDS]" >&2; exit 2; }
ROOT=$(cd "$1" && pwd -P)
SECONDS_RUN=${2:-5}
JAVAC=${JAVA_HOME:-/usr/lib/jvm/java-17-openjdk-amd64}/bin/javac
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

jh17=$ROOT/usr/lib/jvm/java-17-openjdk-arm64
aarch64-linux-gnu-gcc --sysroot="$ROOT" -shared -fPIC -O2 -Wall -Wextra -Werror \
  -I"$jh17/include" -I"$jh17/include/linux" "$HERE/probe_agent.c" -o "$TMP/probe_agent.so"
"$JAVAC" --release 17 -d "$TMP" "$HERE/Spin.java"

# Runs one JVM: label $1, qemu CPU model $2, Spin's mode $3, extra JVM options after.
run() {
  local label=$1 cpu=$2 mode=$3 out rc
  shift 3
  rc=0
  out=$(cd "$TMP" && /usr/bin/time -f 'cpu=%U+%S wall=%e' timeout 300 \
    qemu-aarch64-static -cpu "$cpu" -L "$ROOT" "$JH/bin/java" "$@" \
    -agentpath:"$TMP/probe_agent.so" -cp "$TMP" Spin "$SECONDS_RUN" "$mode" 2>&1) || rc=$?
  echo "$label cpu=$cpu mode=$mode rc=$rc $(echo "$out" | grep -E '^(probe|cpu=)|rror' | tr '\n' ' ')"
  ! ls "$TMP"/hs_err* >/dev/null 2>&1 || { echo "  crash: $(ls "$TMP"/hs_err*)"; rm -f "$TMP"/hs_err*; }
}

for v in 17 21 25; do
  JH=$ROOT/usr/lib/jvm/java-$v-openjdk-arm64
  run "jdk$v" max arith
  run "jdk$v" max,pauth=off arith
  run "jdk$v" max sin
  # -XX:UseBranchProtection exists from JDK 18 on (JDK 17 refuses it).
  [ "$v" = 17 ] || run "jdk$v+pac-ret" max arith -XX:UseBranchProtection=pac-ret
done
