#!/usr/bin/env bash
# walk_insns.sh BUILD [RECORDING...] - instructions per walk of recorded stacks, counted by
# callgrind (no hardware counter needed; the same figure on every machine). Each line:
# the recording, its frames (compiled/interpreted/C) and the instructions of one walk
# taken frame by frame with ASGST_NextFrame, frame cache warm (tests/bench/walk_insns.c).
set -euo pipefail
BUILD=${1:?usage: walk_insns.sh BUILD [RECORDING...]}
shift
DATA=$(cd "$(dirname "$0")/../data/replay" && pwd)
[ $# -gt 0 ] || set -- jdk17-c2-inlined-1 jdk17-prologue-1 jdk25-c2-inlined-1 jdk17-deep-1 \
  jdk21-interpreted-2 jdk8-interpreted-1
WALKS=${WALKS:-200}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for r in "$@"; do
  f=$DATA/${r%.asgstrec}.asgstrec
  line=$(valgrind --tool=callgrind --callgrind-out-file="$out/cg" --toggle-collect=walks \
           "$BUILD/tests/bench/walk-insns" "$f" "$WALKS" 2>"$out/err") || { echo "$r: failed: $(tail -1 "$out/err")"; continue; }
  ir=$(sed -n 's/^summary: //p' "$out/cg")
  printf '%-24s %-58s insns/walk %d\n' "$r" "$line" $((ir / WALKS))
done
