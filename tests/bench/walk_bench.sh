#!/usr/bin/env bash
# walk_bench.sh BUILD_DIR [JAVA_HOME...] - full-walk time of the SHIPPED library against
# AsyncGetCallTrace, in the same signal handler of the same run (run_bench.sh calls it per
# release; without JAVA_HOME arguments: $JAVA_HOME, default JDK 17).
#
# The agent (agent/shipped_walk_agent.c, public header only) is built as the README tells a
# profiler to build one: the library installed into a scratch prefix (cmake --install),
# then `cc ... $(pkg-config --cflags asgst) ... $(pkg-config --libs asgst)`, with -O2 as a
# profiler's release build has it; it loads that libasgst.so through the rpath pkg-config
# gives (the agent prints where ASGST_NextFrame came from). The same source linked with the
# static test build (build/lib/libasgst-test.a) gives figures marked "static test build",
# beside, never budgeted.
#
# Per release: the stall probe's rate (stall_probe.c, 2 s, in the same run: beside the busy
# loops when run_bench.sh runs with `busy`), then BENCH_RUNS JVMs (default 3) compiled and
# as many with -Xint, each running tests/bench/java/WalkBench.java: stacks of about 10, 50
# and 200 frames one after the other (BENCH_WALK_SECONDS each, default 1.5; the compiled JVMs
# warm up BENCH_WARMUP seconds first, default 1.5, not sampled), and in the compiled JVMs
# a thread with 21 C frames (libnofp.so, no frame pointers) under 50 Java frames. Budgets
# (docs/budgets.md), each the median of the JVMs' median ratios:
#   - ASGST/ASGCT <= 0.30 at 10 frames, <= 0.25 at 50, <= 0.20 at 200; compiled and -Xint;
#   - the walk with 21 C frames (ASGST_INCLUDE_NON_JAVA_FRAMES) <= 1.6x the Java-only walk
#     of the same samples.
# BENCH_STATIC_RUNS (default 1): JVMs per mode with the static test build (0: none).
# BENCH_BUSY_NOTE: words run_bench.sh adds to every budget line ("beside busy loops").
set -u
BUILD=$(cd "${1:?build dir}" && pwd)
shift
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
. "$ROOT/tests/bench/budget.sh"
WORK=$BUILD/bench/walk
SECS=${BENCH_WALK_SECONDS:-1.5}
WARM=${BENCH_WARMUP:-1.5}
RUNS=${BENCH_RUNS:-3}
STATIC_RUNS=${BENCH_STATIC_RUNS:-1}
NOTE=${BENCH_BUSY_NOTE:-}
SRC=$ROOT/tests/bench/agent/shipped_walk_agent.c
SHIPPED=$WORK/libshipped_walk_agent.so
STATIC=$WORK/libstatic_walk_agent.so
NOFP=$BUILD/tests/jvm/libnofp.so
declare -A LIMIT=([10]=0.30 [50]=0.25 [200]=0.20)
declare -A BUCKET=([10]="5-20" [50]="35-75" [200]="150-320")
mkdir -p "$WORK"
[ $# -gt 0 ] || set -- "${JAVA_HOME:-/usr/lib/jvm/java-17-openjdk-amd64}"

# median_of VALUES...: the middle value (the lower middle of an even count), "none" if none.
median_of() {
  printf '%s\n' "$@" | grep . | sort -n | awk '{v[NR] = $1} END {print NR ? v[int((NR + 1) / 2)] : "none"}'
}

# build_agents: the shipped agent through an install and pkg-config, and the static one.
# Sets BUILD_ERROR when the shipped one cannot be built.
BUILD_ERROR=""
build_agents() {
  local prefix=$WORK/prefix pc out
  # Built already for this library (run_bench.sh calls this script once per release).
  if [ "$SHIPPED" -nt "$SRC" ] && [ "$SHIPPED" -nt "$BUILD/lib/libasgst.so" ] &&
    { [ "$STATIC_RUNS" = 0 ] || [ "$STATIC" -nt "$BUILD/lib/libasgst-test.a" ]; }; then
    return
  fi
  rm -rf "$prefix"
  if ! out=$(cmake --install "$BUILD" --prefix "$prefix" 2>&1); then
    BUILD_ERROR="cmake --install failed: $(tail -1 <<<"$out")"; return
  fi
  pc=$(find "$prefix" -name asgst.pc | head -1)
  [ -n "$pc" ] || { BUILD_ERROR="no asgst.pc in the install"; return; }
  export PKG_CONFIG_PATH=$(dirname "$pc")
  # shellcheck disable=SC2046 # pkg-config's words are meant to split
  if ! out=$(cc -O2 -shared -fPIC -std=c11 -Wall -Wextra $(pkg-config --cflags asgst) "$SRC" -o "$SHIPPED" \
    $(pkg-config --libs asgst) 2>&1); then
    BUILD_ERROR="the agent does not build against the install: $(grep -m1 error <<<"$out")"; return
  fi
  echo "# shipped agent: cc -O2 ... \$(pkg-config --cflags asgst) shipped_walk_agent.c \$(pkg-config --libs asgst) (install in ${prefix#$BUILD/})"
  [ "$STATIC_RUNS" -gt 0 ] || return
  # shellcheck disable=SC2046
  if ! out=$(cc -O2 -shared -fPIC -std=c11 $(pkg-config --cflags asgst) "$SRC" -o "$STATIC" \
    "$BUILD/lib/libasgst-test.a" -lpthread -ldl -lm 2>&1); then
    echo "# static test build agent not built: $(grep -m1 error <<<"$out")"; rm -f "$STATIC"
  fi
}

# run_jvm AGENT MODE MAJOR HOME R: one WalkBench JVM; prints its log's path.
run_jvm() {
  local agent=$1 mode=$2 major=$3 home=$4 r=$5 flags="" warm=$WARM lib=$NOFP log
  log=$WORK/$(basename "$agent" .so)-$major-$mode-$r.log
  [ "$mode" = interpreted ] && flags=-Xint warm=0 lib=""
  (cd "$WORK" && timeout -k 5 120 "$home/bin/java" $flags -Xss8m "-agentpath:$agent=label=$mode,interval_us=200" \
    -cp "$WORK/classes-$major" WalkBench "$SECS" "$warm" $lib) >"$log" 2>&1
  echo "$log"
}

# fig LOG MODE DEPTH FIELD: a field of the depth's figure line in LOG.
fig() {
  field "$4" "$(grep -E "^SHIPPED # figure: bench=$2 frames=${BUCKET[$3]} " "$1" | head -1)"
}
nfig() { field "$2" "$(grep -E '^SHIPPED # figure: native=' "$1" | head -1)"; }

# walk_jdk HOME: the walk figures and budgets of one release.
walk_jdk() {
  local home=$1 major out mode d r log logs
  major=$(jdk_major "$home")
  BENCH_UNTESTED=0
  if jdk_untested "$home"; then
    [ "${ASGST_TEST_UNTESTED_JDK:-}" = 1 ] ||
      { echo "# JDK $major: walk bench not run (newer than the newest tested, $NEWEST_TESTED)"; return; }
    BENCH_UNTESTED=1
  fi
  echo "== walk time, shipped libasgst.so, on JDK $major ($home)${NOTE:+, $NOTE}"
  [ -x "$BUILD/tests/bench/stall_probe" ] &&
    echo "# figure: machine stalls on JDK $major's block${NOTE:+ ($NOTE)}: $("$BUILD/tests/bench/stall_probe" 2)"
  local cls=$WORK/classes-$major why=$BUILD_ERROR
  mkdir -p "$cls"
  if [ -z "$why" ] && ! out=$("$home/bin/javac" -nowarn -d "$cls" "$ROOT/tests/bench/java/WalkBench.java" \
    "$ROOT/tests/jvm/java/native/NativeFrames.java" 2>&1); then
    why="WalkBench.java does not compile: $(grep -m1 error <<<"$out")"
  fi
  [ -f "$NOFP" ] || why=${why:-no $NOFP (./build.sh build)}
  if [ -n "$why" ]; then
    for mode in compiled interpreted; do
      for d in 10 50 200; do budget 0 "JDK $major: $mode $d frames, shipped ASGST/ASGCT <= ${LIMIT[$d]}${NOTE:+, $NOTE}" "no figure: $why"; done
    done
    budget 0 "JDK $major: 21 C frames <= 1.6x the Java-only walk, shipped${NOTE:+, $NOTE}" "no figure: $why"
    return
  fi
  declare -A logs_of=()
  for mode in compiled interpreted; do
    logs=""
    for r in $(seq "$RUNS"); do logs="$logs $(run_jvm "$SHIPPED" "$mode" "$major" "$home" "$r")"; done
    logs_of[$mode]=$logs
    for d in 10 50 200; do walk_budget "$major" "$mode" "$d" $logs; done
  done
  native_budget "$major" ${logs_of[compiled]}
  grep -h -m1 '^SHIPPED # ASGST_NextFrame from' ${logs_of[compiled]} | head -1 | sed "s|^SHIPPED ||; s|$BUILD/||"
  if [ "$STATIC_RUNS" -gt 0 ] && [ -f "$STATIC" ]; then
    for mode in compiled interpreted; do
      logs=""
      for r in $(seq "$STATIC_RUNS"); do logs="$logs $(run_jvm "$STATIC" "$mode" "$major" "$home" "$r")"; done
      static_figures "$major" "$mode" $logs
    done
  fi
}

# walk_budget MAJOR MODE DEPTH LOGS...: one budget line from the JVMs' median ratios.
walk_budget() {
  local major=$1 mode=$2 d=$3 log ratios="" as="" gs="" n="" it="" ck="" net="" what m
  shift 3
  what="JDK $major: $mode $d frames, shipped ASGST/ASGCT median walk time <= ${LIMIT[$d]}${NOTE:+, $NOTE}"
  for log in "$@"; do
    ratios="$ratios $(fig "$log" "$mode" "$d" ratio)"
    as="$as $(fig "$log" "$mode" "$d" asgst_median_ns)" gs="$gs $(fig "$log" "$mode" "$d" asgct_median_ns)"
    n="$n $(fig "$log" "$mode" "$d" samples)" it="$it $(fig "$log" "$mode" "$d" interpreted_frames_median)"
    ck="$ck $(fig "$log" "$mode" "$d" clock_median_ns)" net="$net $(fig "$log" "$mode" "$d" ratio_less_clock)"
  done
  m=$(median_of $ratios)
  echo "# figure: JDK $major $mode ${BUCKET[$d]} frames, shipped: ASGST median ns per JVM:$as; ASGCT:$gs; samples:$n; interpreted frames a walk (median):$it"
  # Both walk times include one clock read's worth of time; the ratio with the empty timed
  # region taken from both sides is what the walkers alone compare at (not budgeted).
  echo "# figure: JDK $major $mode ${BUCKET[$d]} frames, shipped: empty timed region median ns per JVM:$ck; ratio less it: $(median_of $net) (per JVM:$net)"
  if [ "$m" = none ]; then
    budget 0 "$what" "no figure: no samples (logs: $(for l in "$@"; do printf '%s ' "${l#$BUILD/}"; done))"
    grep -h 'not ok' "$@" | head -1
    return
  fi
  budget "$(le "$m" "${LIMIT[$d]}" && echo 1)" "$what" \
    "$m vs <= ${LIMIT[$d]}, median of $# JVMs:$ratios; ASGST $(median_of $as) ns, ASGCT $(median_of $gs) ns"
}

# native_budget MAJOR LOGS...: the walk with 21 C frames against the Java-only walk.
native_budget() {
  local major=$1 log ratios="" cs="" js="" m what
  shift
  what="JDK $major: 21 C frames, shipped walk <= 1.6x the Java-only walk of the same samples${NOTE:+, $NOTE}"
  for log in "$@"; do
    ratios="$ratios $(nfig "$log" ratio)"
    cs="$cs $(nfig "$log" with_c_median_ns)" js="$js $(nfig "$log" java_only_median_ns)"
  done
  m=$(median_of $ratios)
  if [ "$m" = none ]; then budget 0 "$what" "no figure: no samples with 21 C frames"; return; fi
  budget "$(le "$m" 1.6 && echo 1)" "$what" \
    "$m vs <= 1.6, median of $# JVMs:$ratios; with C frames $(median_of $cs) ns, Java-only $(median_of $js) ns"
}

# static_figures MAJOR MODE LOGS...: the static test build's ratios, a figure only.
static_figures() {
  local major=$1 mode=$2 d line="" r n
  shift 2
  for d in 10 50 200; do
    r="" n=""
    for log in "$@"; do r="$r $(fig "$log" "$mode" "$d" ratio)/$(fig "$log" "$mode" "$d" asgst_median_ns)/$(fig "$log" "$mode" "$d" asgct_median_ns)"; done
    line="$line; $d frames$r"
  done
  [ "$mode" = compiled ] && for log in "$@"; do line="$line; 21 C frames $(nfig "$log" ratio)/$(nfig "$log" with_c_median_ns)/$(nfig "$log" java_only_median_ns)"; done
  echo "# figure: JDK $major $mode, static test build (not budgeted), ratio/ASGST ns/ASGCT ns per JVM${line}"
}

build_agents
[ -n "$BUILD_ERROR" ] && echo "# walk bench: $BUILD_ERROR"
for home in "$@"; do walk_jdk "$home"; done
exit 0
