#!/usr/bin/env bash
# test_stub_bci.sh BUILD_DIR - the line of samples in compiled methods' out-of-line stub
# code (docs/stub-bci.md): a workload whose hot loops store references across G1 regions
# (java/stubs/Stores.java) runs under the walk test agent with G1 (C2 and C1) and with
# ParallelGC. Checks: the agent's own checks (agreement with AsyncGetCallTrace, ASGST's
# bci from a stub's way back counted against ASGCT's placeholder 0), fewer than 0.5% of
# top frames with bci -1, and every (method, bci) named from a stub's way back is a
# reference store bytecode (putfield, aastore, putstatic). The per-line shares of the G1
# and ParallelGC runs are figures: G1's barrier slow path costs time on the store lines,
# so they differ by more than sampling noise. STUB_SECONDS: seconds a run (default 2).
set -u
BUILD=$(cd "${1:?build dir}" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd)
JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/java-17-openjdk-amd64}
AGENT=$BUILD/tests/jvm/libwalk_agent.so
SECS=${STUB_SECONDS:-2}
WORK=$BUILD/tests/jvm/stub_bci
mkdir -p "$WORK/classes"
n=0
tap() { n=$((n + 1)); echo "$1 $n - $2"; }
. "$HERE/javac_once.sh"

if [ ! -x "$JAVA_HOME/bin/java" ] || [ ! -f "$AGENT" ]; then
  tap "not ok" "stub bci tests: no JDK at $JAVA_HOME or the agent is not built"
  echo "1..$n"; exit 0
fi
if ! javac_once "$WORK/classes" "$HERE/java/stubs/Stores.java" >"$WORK/javac.log" 2>&1; then
  tap "not ok" "compile Stores.java"; cat "$WORK/javac.log"; echo "1..$n"; exit 1
fi
"$JAVA_HOME/bin/javap" -c -cp "$WORK/classes" Stores >"$WORK/javap.txt" 2>&1

# The bytecode at BCI of Stores.METHOD, from javap.
opcode_at() {
  awk -v m="$1" -v b="$2" '
    /^  [a-z].*\(.*\);$/ { inm = index($0, " " m "(") > 0 }
    inm && $1 == b ":" { print $2; exit }' "$WORK/javap.txt"
}

# run LABEL "JVM FLAGS": one JVM run under the agent; checks and figures as TAP.
run() {
  local label=$1 flags=$2 log=$WORK/$1.log rc
  rm -f "$WORK"/hs_err_*.log
  (cd "$WORK" && timeout -k 5 $((SECS + 60)) "$JAVA_HOME/bin/java" $flags -Xmx256m \
    "-agentpath:$AGENT=label=$label,lines=1,interval_us=1000" -cp "$WORK/classes" Stores "$SECS") \
    >"$log" 2>&1
  rc=$?
  if [ $rc = 0 ] && grep -q '^sink ' "$log" && ! ls "$WORK"/hs_err_*.log >/dev/null 2>&1; then
    tap "ok" "$label: JVM ran and exited cleanly"
  else
    tap "not ok" "$label: JVM exit status $rc (log: ${log#$BUILD/})"
    tail -5 "$log" | sed 's/^/# /'
    return
  fi
  while IFS= read -r line; do
    case "$line" in
      "WALK ok - "*) tap "ok" "${line#WALK ok - }" ;;
      "WALK not ok - "*) tap "not ok" "${line#WALK not ok - }" ;;
      "WALK # figure:"*|"WALK # line Stores."*|"WALK # stub "*) echo "${line#WALK }" ;;
    esac
  done < <(grep '^WALK ' "$log")
  local top unknown
  read -r top unknown < <(sed -n 's/^WALK # figure: workload=[^ ]* top_frames=\([0-9]*\) top_bci_unknown=\([0-9]*\).*/\1 \2/p' "$log")
  top=${top:-0} unknown=${unknown:-0}
  if [ "$top" -gt 0 ] && [ $((unknown * 1000)) -lt $((top * 5)) ]; then
    tap "ok" "$label: fewer than 0.5% of top frames have bci -1 ($unknown of $top)"
  else
    tap "not ok" "$label: fewer than 0.5% of top frames have bci -1 ($unknown of $top)"
  fi
  local stubs=0 bad="" m bci op
  while read -r m bci; do
    stubs=$((stubs + 1))
    op=$(opcode_at "$m" "$bci")
    case "$op" in putfield|aastore|putstatic) ;; *) bad="$bad Stores.$m@$bci=${op:-?}" ;; esac
  done < <(sed -n 's/^WALK # stub Stores\.\([A-Za-z]*\) bci \([0-9]*\) .*/\1 \2/p' "$log")
  if [ $stubs = 0 ]; then
    tap "ok" "$label: bcis named from a stub's way back are reference stores # SKIP no top frame in stub code without debug information in this run"
  elif [ -z "$bad" ]; then
    tap "ok" "$label: bcis named from a stub's way back are reference stores ($stubs pairs)"
  else
    tap "not ok" "$label: bcis named from a stub's way back are reference stores:$bad"
  fi
}

run g1 "-XX:+UseG1GC"
run g1-c1 "-XX:+UseG1GC -XX:TieredStopAtLevel=1"
run parallel "-XX:+UseParallelGC"

# Figures: each hot line's share of the workload's own top frames (Stores.*), G1 against
# ParallelGC.
share() {
  awk -v k="$2" '$3 == "line" && $4 ~ /^Stores\./ { t += $5; if ($4 == k) c = $5 }
    END { if (t) printf "%.1f", 100 * c / t; else printf "0" }' "$WORK/$1.log"
}
if [ -f "$WORK/g1.log" ] && [ -f "$WORK/parallel.log" ]; then
  for l in $(sed -n 's/^WALK # line \(Stores\.[A-Za-z]*:[0-9]*\) .*/\1/p' "$WORK/g1.log" | head -6); do
    echo "# figure: line $l G1 $(share g1 "$l")% ParallelGC $(share parallel "$l")% of the workload's top frames"
  done
fi
echo "1..$n"
