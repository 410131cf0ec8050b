#!/usr/bin/env bash
# make.sh BUILD_DIR JAVA_HOME LABEL - records the walks of this directory on one JDK: for
# each kind of stack below, the walk workload runs under the record agent and the first two
# recordings that show the kind are kept as LABEL-KIND-N.asgstrec. See README.md.
set -u
BUILD=$(cd "${1:?build dir}" && pwd)
JAVA_HOME=${2:?java home}
LABEL=${3:?label, e.g. jdk17}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK/classes" # JDK 8's javac does not make it
"$JAVA_HOME/bin/javac" -d "$WORK/classes" "$ROOT/tests/jvm/java/walk/Workload.java" || exit 1

# kind NAME FLAGS WALK_OPTIONS WORKLOAD PATTERN [N [AGENT_OPTIONS]]: records N (80) walks,
# keeps two whose replayed frames (asgst-replay's listing) match the extended regular
# expression PATTERN.
kind() {
  local name=$1 flags=$2 opts=$3 workload=$4 pattern=$5 n=${6:-80} more=${7:-} dir=$WORK/$1 kept=0
  mkdir -p "$dir"
  (cd "$WORK" && "$JAVA_HOME/bin/java" $flags -Xss4m \
    "-agentpath:$BUILD/tests/jvm/librecord_agent.so=dir=$dir,n=$n,interval_us=3000,skip=200,options=$opts$more" \
    -Dwalk.jni="$BUILD/tests/jvm/libwalk_jni.so" -cp "$WORK/classes" Workload "$workload" 4) >/dev/null 2>&1
  for f in "$dir"/*.asgstrec; do
    [ -f "$f" ] && [ "$(stat -c %s "$f")" -le 400000 ] || continue
    "$BUILD/bin/asgst-replay" "$f" | grep -Eq "$pattern" || continue
    kept=$((kept + 1))
    cp "$f" "$HERE/$LABEL-$name-$kept.asgstrec"
    [ $kept = 2 ] && break
  done
  echo "$LABEL $name: kept $kept"
}

[ $# -gt 3 ] && { shift 3; "$@"; exit; } # one kind only: make.sh BUILD JAVA_HOME LABEL kind ...
kind interpreted "-Xint" 0 mix "tier=0 type=1"
kind c1 "-XX:TieredStopAtLevel=1" 0 mix "tier=1 type=1"
kind c2-inlined "-XX:-TieredCompilation" 0 mix+lambda "tier=4 type=2"
kind native-wrapper "" 0 jni "type=3"
kind jni-c-frames "" 1 jni "type=4"
kind deep "" 0 deep "^1[0-9][0-9] "
kind stubs-deopt "" 1 exc+deopt "type=4"
kind prologue "" 0 mix+deopt "tier=[1-4]" 20 ",prologue=1,interval_us=500"
kind walk-error "" 0 all "^end: ASGST_(UNSAFE|BAD|WALK|STACK|NO_TOP)" 1000
case "$LABEL" in jdk8*|jdk11*|jdk17*) ;; *) kind vthreads "" 0 vthreads "enterSpecial" 1000 ;; esac
