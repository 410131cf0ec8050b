#!/usr/bin/env bash
# walk_insns.sh BUILD [RECORDING...] - instructions per walk of recorded stacks, counted by
# callgrind (no hardware counter needed; the same figure on every machine). Each line:
# the recording, its frames (compiled/interpreted/C) and the instructions of one walk
# taken frame by frame with ASGST_NextFrame, frame cache warm (tests/bench/walk_insns.c).
# COLD=1: each walk starts with cold caches (walk_insns.c evicts them between walks) and
# callgrind simulates them; each line adds the walk's misses (I1, D1 reads and writes, LL):
# the cache lines a walk in a signal handler touches, what its fixed cost mostly is
# (WALKS defaults to 50 then).
set -euo pipefail
BUILD=${1:?usage: walk_insns.sh BUILD [RECORDING...]}
shift
DATA=$(cd "$(dirname "$0")/../data/replay" && pwd)
[ $# -gt 0 ] || set -- jdk17-c2-inlined-1 jdk17-prologue-1 jdk25-c2-inlined-1 jdk17-deep-1 \
  jdk21-interpreted-2 jdk8-interpreted-1
COLD=${COLD:-0}
if [ "$COLD" = 1 ]; then WALKS=${WALKS:-50}; else WALKS=${WALKS:-200}; fi
sim=()
[ "$COLD" = 1 ] && sim=(--cache-sim=yes --I1=32768,8,64 --D1=49152,12,64 --LL=8388608,16,64)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for r in "$@"; do
  f=$DATA/${r%.asgstrec}.asgstrec
  line=$(WALK_INSNS_COLD=$COLD valgrind --tool=callgrind "${sim[@]}" --callgrind-out-file="$out/cg" \
           --toggle-collect=walks "$BUILD/tests/bench/walk-insns" "$f" "$WALKS" 2>"$out/err") || { echo "$r: failed: $(tail -1 "$out/err")"; continue; }
  read -r -a ev <<<"$(sed -n 's/^events: //p' "$out/cg")"
  read -r -a sum <<<"$(sed -n 's/^summary: //p' "$out/cg")"
  misses=""
  for i in "${!ev[@]}"; do
    case ${ev[$i]} in I1mr|D1mr|D1mw|ILmr|DLmr|DLmw) misses+=" ${ev[$i]} $(((sum[i] + WALKS / 2) / WALKS))" ;; esac
  done
  printf '%-24s %-58s insns/walk %d%s\n' "$r" "$line" $((sum[0] / WALKS)) "$misses"
done
