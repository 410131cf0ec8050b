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

# stores NAME FLAGS WALK_OPTIONS PATTERN: as kind, with the stub bci workload
# (tests/jvm/java/stubs/Stores.java, 1.5 s) and 300 walks.
stores() {
  local name=$1 flags=$2 opts=$3 pattern=$4 dir=$WORK/$1 kept=0
  mkdir -p "$dir"
  "$JAVA_HOME/bin/javac" -d "$WORK/classes" "$ROOT/tests/jvm/java/stubs/Stores.java" || return
  (cd "$WORK" && "$JAVA_HOME/bin/java" $flags -Xmx256m -Xss4m \
    "-agentpath:$BUILD/tests/jvm/librecord_agent.so=dir=$dir,n=300,interval_us=1000,skip=300,options=$opts" \
    -cp "$WORK/classes" Stores 1.5) >/dev/null 2>&1
  for f in "$dir"/*.asgstrec; do
    [ -f "$f" ] && [ "$(stat -c %s "$f")" -le 400000 ] || continue
    "$BUILD/bin/asgst-replay" "$f" | sed -n 2,3p | tr '\n' ' ' | grep -Eq "$pattern" || continue
    kept=$((kept + 1))
    cp "$f" "$HERE/$LABEL-$name-$kept.asgstrec"
    scrub "$HERE/$LABEL-$name-$kept.asgstrec"
    [ $kept = 2 ] && break
  done
  echo "$LABEL $name: kept $kept"
}

# scrub FILE: overwrites with x each printable run of a recording that names a path of the
# recording machine (class path, JDK home, perf data, a passwd line); the walk reads none
# of them (the replay check proves it).
scrub() {
  python3 - "$1" <<'PY'
import re, sys
data = bytearray(open(sys.argv[1], 'rb').read())
for m in re.finditer(rb'[\x20-\x7e]{4,}', bytes(data)):
    if re.search(rb'/tmp|/var/|/home|/root|/usr/lib/jvm|/work|hsperfdata', m.group()):
        data[m.start():m.end()] = b'x' * (m.end() - m.start())
open(sys.argv[1], 'wb').write(bytes(data))
PY
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
case "$LABEL" in jdk8*|jdk17*|jdk25*) stores c1-g1-stub "-XX:+UseG1GC -XX:TieredStopAtLevel=1" 1 \
  "type=4 .*mixedStores \\(I\\)I bci=35 " ;; esac
case "$LABEL" in jdk8*|jdk11*|jdk17*) ;; *) kind vthreads "" 0 vthreads "enterSpecial" 1000 ;; esac
