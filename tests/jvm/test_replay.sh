#!/usr/bin/env bash
# test_replay.sh BUILD_DIR - recorded walks (ASGST_RecordWalk) replayed without a JVM.
#  1. the recordings in tests/data/replay (every tested JDK; see its README) replay to the
#     frames, names, line numbers and end codes their live walks produced (no JVM runs);
#  2. a recording whose page the replaying process already holds is replayed by a new
#     process; damaged recordings (truncated, another format version, a page left out) give
#     a clear error or a walk error, never a crash;
#  3. on the JDK under test (JAVA_HOME), 1000 walks of sampled threads of the walk workload
#     are recorded (tests/jvm/agents/record_agent.c) and each replays identically.
set -u
BUILD=$(cd "${1:?build dir}" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd)
DATA=$(cd "$HERE/../data/replay" && pwd)
JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/java-17-openjdk-amd64}
REPLAY=$BUILD/bin/asgst-replay
AGENT=$BUILD/tests/jvm/librecord_agent.so
# One work directory per JDK home (many homes end in the same name, e.g. home).
WORK=$BUILD/tests/jvm/replay-$(echo "$JAVA_HOME" | cksum | cut -d" " -f1)
N=${REPLAY_RECORDINGS:-1000}
rm -rf "$WORK"
mkdir -p "$WORK/classes" "$WORK/rec"
n=0
tap() { n=$((n + 1)); echo "$1 $n - $2"; }

# 1. The recorded set, one check per JDK that has recordings; every tested release must.
jdks=$(ls "$DATA" | sed -n 's/^jdk\([0-9]*\)-.*\.asgstrec$/\1/p' | sort -nu)
for want in 8 11 17 21 25 26 27; do
  grep -qx "$want" <<<"$jdks" || tap "not ok" "no recordings of JDK $want in tests/data/replay"
done
for jdk in $jdks; do
  files=("$DATA"/jdk$jdk-*.asgstrec)
  if [ ! -f "${files[0]}" ]; then tap "not ok" "no recordings of JDK $jdk in tests/data/replay"; continue; fi
  start=$(date +%s%N)
  out=$("$REPLAY" --check "${files[@]}" 2>&1)
  ms=$((($(date +%s%N) - start) / 1000000))
  summary=$(tail -1 <<<"$out")
  if [ "${PIPESTATUS[0]}" = 0 ] && grep -q " 0 differ, 0 failed" <<<"$summary"; then
    tap "ok" "JDK $jdk recordings replay as recorded: $summary in $ms ms"
  else
    tap "not ok" "JDK $jdk recordings: $summary"
    grep -v '^ok' <<<"$out" | head -5 | sed 's/^/# /'
  fi
done

# A recording whose page this process already holds (address randomization put something
# there) is replayed by a new process of the tool, with the same result.
src=$(ls "$DATA"/jdk17-*.asgstrec | head -1)
out=$(ASGST_TEST_OCCUPY=$src LD_PRELOAD=$BUILD/tests/replay/libreplay_occupy.so "$REPLAY" --check "$src" 2>&1); rc=$?
if [ $rc = 0 ] && grep -q "^occupy_page: holding" <<<"$out" && grep -q "1 identical, 0 differ, 0 failed" <<<"$out"; then
  tap "ok" "a recording whose page the replaying process holds is replayed in a new process: $(tail -1 <<<"$out")"
else
  tap "not ok" "occupied page: status $rc"
  head -5 <<<"$out" | sed 's/^/# /'
fi

# Little-endian bytes of a number, as printf escapes.
le() { local v=$1 w=$2 s=""; for ((i = 0; i < w; i++)); do s+=$(printf '\\x%02x' $(((v >> (8 * i)) & 255))); done; echo "$s"; }
# patch FILE OFFSET WIDTH VALUE: overwrites a header field.
patch_field() { printf "$(le "$4" "$3")" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none; }

# 2. Damaged copies of one recording.
src=$(ls "$DATA"/jdk17-*.asgstrec | head -1)
size=$(stat -c %s "$src")
head -c $((size - 100)) "$src" >"$WORK/truncated.asgstrec"
out=$("$REPLAY" --check "$WORK/truncated.asgstrec" 2>&1); rc=$?
if [ $rc = 1 ] && grep -q "FAILED .*truncated or damaged recording" <<<"$out"; then tap "ok" "a truncated recording is refused: ${out%%$'\n'*}"
else tap "not ok" "truncated recording: status $rc: $out"; fi
cp "$src" "$WORK/version.asgstrec"
patch_field "$WORK/version.asgstrec" 8 4 99
out=$("$REPLAY" --check "$WORK/version.asgstrec" 2>&1); rc=$?
if [ $rc = 1 ] && grep -q "format version 99" <<<"$out"; then tap "ok" "another format version is refused by number"
else tap "not ok" "version 99: status $rc: $out"; fi
# Leave out the last page (the header's npages at 100, total_size at 16): the walk needs
# every page it read, so the replay must end in an error where the live walk did not.
npages=$(od -An -tu4 -j100 -N4 "$src" | tr -d ' ')
head -c $((size - 4104)) "$src" >"$WORK/missing.asgstrec"
patch_field "$WORK/missing.asgstrec" 100 4 $((npages - 1))
patch_field "$WORK/missing.asgstrec" 16 8 $((size - 4104))
out=$("$REPLAY" --check "$WORK/missing.asgstrec" 2>&1); rc=$?
if [ $rc = 1 ] && grep -q "^DIFFERS" <<<"$out"; then tap "ok" "a recording missing a page replays to a walk error, not a crash: ${out#*: }"
else tap "not ok" "missing page: status $rc: $out"; fi

# 3. Record on the JDK under test, replay each.
if [ ! -x "$JAVA_HOME/bin/java" ] || [ ! -f "$AGENT" ]; then
  tap "not ok" "record and replay on a live JVM: no JDK at $JAVA_HOME or the agent is not built (./build.sh build)"
  exit 0
fi
. "$HERE/javac_once.sh"
javac_once "$WORK/classes" "$HERE/java/walk/Workload.java" || { tap "not ok" "compile Workload.java"; exit 1; }
(cd "$WORK" && timeout -k 5 120 "$JAVA_HOME/bin/java" -Xss4m \
  "-agentpath:$AGENT=dir=$WORK/rec,n=$N,interval_us=1000,skip=300" \
  -Dwalk.jni="$BUILD/tests/jvm/libwalk_jni.so" -cp "$WORK/classes" Workload all 12) >"$WORK/jvm.log" 2>&1
rc=$?
line=$(grep '^RECORD recordings=' "$WORK/jvm.log")
got=$(sed -n 's/^RECORD recordings=\([0-9]*\).*/\1/p' <<<"$line")
if [ $rc = 0 ] && [ "${got:-0}" -ge $((N * 9 / 10)) ]; then tap "ok" "recorded ${line#RECORD }"
else tap "not ok" "recording: JVM status $rc, ${line:-no RECORD line} (log: ${WORK#$BUILD/}/jvm.log)"; fi
echo "# figure: recording sizes on $(basename "$JAVA_HOME"): ${line#RECORD }"
out=$("$REPLAY" --check "$WORK"/rec/*.asgstrec 2>&1)
summary=$(tail -1 <<<"$out")
if grep -q "identical, 0 differ, 0 failed" <<<"$summary"; then tap "ok" "live recordings replay identically: $summary"
else
  tap "not ok" "live recordings: $summary"
  grep -v '^ok' <<<"$out" | head -5 | sed 's/^/# /'
fi
