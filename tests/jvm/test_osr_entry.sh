#!/usr/bin/env bash
# test_osr_entry.sh BUILD_DIR - the Java frame under the runtime call an OSR compilation
# makes as it is entered (SharedRuntime::OSR_migration_end, a call without debug
# information) names the loop's bci. The agent (agents/osr_agent.c) puts a perf uprobe on
# that function, so every OSR entry of the thread that runs main is sampled, and walks
# there with C frames; the workload (java/osr/OsrLoops.java) enters OSR compilations of
# four loops. Run C1-only (-XX:TieredStopAtLevel=1) and tiered (C1's then C2's OSR code).
# The oracle is the VM's own -XX:+PrintCompilation: every hit in C1 code must name a method
# and bci that an OSR compilation ("%" line, "Class::method @ bci") was made for. Before the
# C1 rule (walker.c osr_entry_scope) they named the bci of a later stub's PcDesc, or -1.
# Hits in C2 code are a figure (see below).
# Needs a libjvm with a .symtab (Debian's 11 and later; 8's has none: skipped) and the
# kernel's uprobe PMU. Under qemu-user, whose arm64 code a uprobe never meets, the agent
# checks the rule's proof on each C1 OSR compilation's code instead.
set -u
BUILD=$(cd "${1:?build dir}" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd)
JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/java-17-openjdk-amd64}
AGENT=$BUILD/tests/jvm/libosr_agent.so
WORK=$BUILD/tests/jvm/osr_entry
mkdir -p "$WORK/classes"
n=0
tap() { n=$((n + 1)); echo "$1 $n - $2"; }
. "$HERE/javac_once.sh"

if [ ! -x "$JAVA_HOME/bin/java" ] || [ ! -f "$AGENT" ]; then
  tap "not ok" "OSR entry tests: no JDK at $JAVA_HOME or the agent is not built (./build.sh build)"
  echo "1..$n"; exit 0
fi
if ! javac_once "$WORK/classes" "$HERE/java/osr/OsrLoops.java" >"$WORK/javac.log" 2>&1; then
  tap "not ok" "OsrLoops.java compiles"; sed 's/^/# /' "$WORK/javac.log"; echo "1..$n"; exit 1
fi

# "Class.method bci" pairs (package dropped) of the OSR compilations PrintCompilation names.
osr_pairs() {
  sed -n 's/.* % .* \([A-Za-z0-9_.$]*\)::\([A-Za-z0-9_$<>]*\) @ \([0-9]*\) .*/\1.\2 \3/p' "$1" |
    sed 's/^.*\.\([^.]*\.[^.]*\) /\1 /' | sort -u
}

run() {
  local label=$1 opts=$2 log=$WORK/$1.log
  rm -f "$WORK"/hs_err_*.log
  (cd "$WORK" && timeout -k 5 120 "$JAVA_HOME/bin/java" "-agentpath:$AGENT" $opts \
    -XX:+PrintCompilation -cp "$WORK/classes" OsrLoops 6) >"$log" 2>&1
  local rc=$? crash
  crash=$(ls "$WORK"/hs_err_*.log 2>/dev/null | wc -l)
  if [ $rc = 0 ] && [ "$crash" = 0 ] && grep -q 'OsrLoops done' "$log"; then
    tap "ok" "$label: JVM ran OsrLoops with the agent and exited cleanly"
  else
    tap "not ok" "$label: JVM exit status $rc, $crash crash logs (log: ${log#$BUILD/})"
    tail -5 "$log" | sed 's/^/# /'
    return
  fi
  grep '^OSR not ok - ' "$log" | sed "s/^OSR not ok - /not ok - $label: /"
  if grep -q '^OSR not ok - ' "$log"; then
    tap "not ok" "$label: the agent set its probe up"; return
  fi
  if [ "${ASGST_TEST_QEMU:-0}" = 1 ]; then
    static_check "$label" "$log"
    return
  fi
  local why
  why=$(sed -n 's/^OSR skip - //p' "$log" | head -1)
  if [ -n "$why" ]; then
    tap "ok" "$label: the loop's bci at an OSR entry's runtime call # SKIP $why"
    return
  fi
  grep '^OSR # probe\|^OSR # figure' "$log" | sed 's/^OSR //'
  local pairs hits=0 c1=0 walked=0 c2=0 c2_exact=0 bad="" m bci level cf java rc
  pairs=$(osr_pairs "$log")
  # A hit's walk: C frames, the OSR frame, then main's caller (java >= 2), to the end (rc 0).
  while read -r m bci level cf java rc; do
    hits=$((hits + 1))
    [ "$m" != - ] && [ "$java" -ge 2 ] && [ "$rc" = 0 ] && walked=$((walked + 1))
    if [ "$level" -ge 1 ] && [ "$level" -le 3 ]; then
      c1=$((c1 + 1))
      printf '%s\n' "$pairs" | grep -qxF "${m##*/} $bci" || bad="$bad $m@$bci(level $level)"
    elif [ "$level" = 4 ]; then
      c2=$((c2 + 1))
      printf '%s\n' "$pairs" | grep -qxF "${m##*/} $bci" && c2_exact=$((c2_exact + 1))
    fi
  done < <(sed -n 's/^OSR # hit \([^ ]*\) bci \([-0-9]*\) level \([-0-9]*\) cframes \([0-9]*\) java \([0-9]*\) rc \([-0-9]*\)$/\1 \2 \3 \4 \5 \6/p' "$log")
  # C2's OSR entries are a figure: its code flows from the entry straight into the loop, so
  # no jump back proves where its call lies; the next PcDesc names them (the loop's bci on
  # 21-27, a bci in the loop's body on 11 and 17).
  echo "# figure: osr_entry=$label hits=$hits c1=$c1 c2=$c2 c2_loop_bci=$c2_exact osr_compilations=$(printf '%s\n' "$pairs" | grep -c .)"
  local what="$label: every OSR entry's runtime call was sampled and walked to the stack's end through the OSR frame and main ($walked of $hits)"
  [ $hits -gt 0 ] && [ $walked = $hits ] && tap "ok" "$what" || tap "not ok" "$what"
  what="$label: C1 code's OSR entries name the method and bci of an OSR compilation PrintCompilation lists"
  if [ $c1 = 0 ]; then
    tap "not ok" "$what: no hit in C1 code"
  elif [ -z "$bad" ]; then
    tap "ok" "$what ($c1 hits)"
  else
    tap "not ok" "$what:$bad"
  fi
}

# Under qemu-user (arm64) a uprobe on the arm64 libjvm is never hit: the agent checks the
# C1 rule's proof on each C1 OSR compilation's code instead (osr_agent.c static_check).
static_check() {
  local label=$1 log=$2 seen proven
  read -r seen proven < <(sed -n 's/^OSR # static c1_osr=\([0-9]*\) proven=\([0-9]*\)$/\1 \2/p' "$log")
  seen=${seen:-0} proven=${proven:-0}
  tap "ok" "$label: the loop's bci at a sampled OSR entry's runtime call # SKIP under qemu-user a uprobe on the arm64 libjvm is never hit"
  local what="$label: each C1 OSR compilation's call of OSR_migration_end is proven to lie in its entry code ($proven of $seen)"
  [ "$seen" -gt 0 ] && [ "$proven" = "$seen" ] && tap "ok" "$what" || tap "not ok" "$what"
}

run c1 "-XX:TieredStopAtLevel=1"
# Under qemu the C1-only run alone: each JVM takes some 25 s there.
[ "${ASGST_TEST_QEMU:-0}" = 1 ] || run tiered ""
echo "1..$n"
