# select.sh [quick] [SUITE...] [jdk=V,...] [arch=x86_64|arm64] - which part of the suite
# tests/run_all.sh runs (sourced by it; docs/testing.md). No word: every step.
#   quick         unit, conformance and the JVM suites on the default JDK only, the long JVM
#                 suites shortened as on the other JDKs (no other JDK, no arm64)
#   SUITE         a step's name (test_walk), the name without its prefix (walk), a shell
#                 pattern of either (fd_*), or a kind: unit, conformance, jvm, demo, jdks
#   jdk=V,...     only these feature versions (17 is the default JDK, which also runs the
#                 unit and conformance programs)
#   arch=A        x86_64 or arm64 (arm64 under qemu-user)
#   list          name the chosen steps without running them
# A filtered run lists what it left out above its totals.
FILTERED=0 QUICK=0 LIST_ONLY=0
SUITE_WORDS=() JDK_WORDS="" ARCH_WORD=""
LEFT_OUT=()
for w in "$@"; do
  case "$w" in
    quick) QUICK=1 ;;
    list) LIST_ONLY=1; continue ;;
    jdk=*) JDK_WORDS=" ${w#jdk=} " JDK_WORDS=${JDK_WORDS//,/ } ;;
    arch=x86_64 | arch=arm64) ARCH_WORD=${w#arch=} ;;
    arch=*) echo "run_all.sh: arch=${w#arch=}: the architectures are x86_64 and arm64" >&2; return 2 ;;
    -* | *=*) echo "run_all.sh: unknown word '$w' (docs/testing.md lists them)" >&2; return 2 ;;
    *) SUITE_WORDS+=("$w") ;;
  esac
  FILTERED=1
done

if [ "$QUICK" = 1 ]; then
  ARCH_WORD=${ARCH_WORD:-x86_64}
  [ -n "$JDK_WORDS" ] || JDK_WORDS=" $("$ROOT/tests/jdks/feature.sh" "${JAVA_HOME:-/usr/lib/jvm/java-17-openjdk-amd64}") "
  # The walk and queue runs as long as the other JDKs' in a full run (run_all.sh's OTHER_*).
  export WALK_SECONDS=${WALK_SECONDS:-2} WALK_MIN_SAMPLES=${WALK_MIN_SAMPLES:-30000}
  export WALK_STRESS_SECONDS=${WALK_STRESS_SECONDS:-6}
  export QUEUE_SECONDS=${QUEUE_SECONDS:-6} FD_CHURN_SECONDS=${FD_CHURN_SECONDS:-8}
  # The fuzzing step at a fifth of its length (one JDK here: 12 s of walks on it).
  export FUZZ_TEST_SECONDS=${FUZZ_TEST_SECONDS:-12}
  # Fixed-length runs shorter: the demo's memory run 12 s (20), loop=1s (2s), overload runs
  # 2 s (3); the C frame table churn 4 s (10).
  export MEMORY_TEST_SECONDS=${MEMORY_TEST_SECONDS:-12} LOOP_TEST_PERIOD=${LOOP_TEST_PERIOD:-1}
  export OVERLOAD_APP_SECONDS=${OVERLOAD_APP_SECONDS:-2} ASGST_CHURN_SECONDS=${ASGST_CHURN_SECONDS:-4}
fi
# Provision only the JDKs the run asks for (tests/jdks/list.sh), unless told otherwise.
if [ "$FILTERED" = 1 ] && [ -z "${ASGST_TEST_JDKS+set}" ]; then
  if [ "$ARCH_WORD" = arm64 ] || [ "$QUICK" = 1 ]; then export ASGST_TEST_JDKS=none
  elif [ -n "$JDK_WORDS" ]; then export ASGST_TEST_JDKS="${JDK_WORDS# }"
  fi
fi

# step_kind PATH: unit, conformance, jvm, demo or jdks, from where the step's program lives.
step_kind() {
  case "$1" in
    */profiler-demo/tests/*) echo demo ;;
    */tests/conformance/* | conformance_*) echo conformance ;;
    */tests/jvm/*) echo jvm ;;
    */tests/jdks/*) echo jdks ;;
    *) echo unit ;;
  esac
}

# select_step NAME KIND: true if the suite words choose this step (or there are none).
select_step() {
  local name=$1 kind=$2 short=${1#test_} w
  short=${short#conformance_}
  [ ${#SUITE_WORDS[@]} = 0 ] && return 0
  for w in "${SUITE_WORDS[@]}"; do
    # shellcheck disable=SC2254
    case "$name" in $w) return 0 ;; esac
    # shellcheck disable=SC2254
    case "$short" in $w) return 0 ;; esac
    [ "$w" = "$kind" ] && return 0
  done
  LEFT_OUT_STEPS=$((${LEFT_OUT_STEPS:-0} + 1))
  return 1
}

# select_jdk V: true if feature version V is chosen.
select_jdk() {
  [ -z "$JDK_WORDS" ] && return 0
  case "$JDK_WORDS" in *" $1 "*) return 0 ;; esac
  return 1
}

# select_arch A: true if architecture A is chosen.
select_arch() { [ -z "$ARCH_WORD" ] || [ "$ARCH_WORD" = "$1" ]; }

# select_arm_step NAME: an arm64 step (test_walk[arm64-17], unit[arm64]) by its suite and JDK.
select_arm_step() {
  local base=${1%%\[*} v="" t kind=unit
  case "$1" in *"[arm64-"*) v=${1#*arm64-} v=${v%%[],]*} ;; esac
  if [ -n "$v" ] && ! select_jdk "$v"; then
    LEFT_OUT_STEPS=$((${LEFT_OUT_STEPS:-0} + 1))
    return 1
  fi
  for t in "$ROOT"/tests/conformance/"$base".sh "$ROOT"/tests/jvm/"$base".sh "$ROOT"/profiler-demo/tests/"$base".sh; do
    [ -f "$t" ] && kind=$(step_kind "$t")
  done
  select_step "$base" "$kind"
}

# left_out WHAT: a part of the suite this run leaves out, for report_left_out.
left_out() { LEFT_OUT+=("$1"); }

# report_left_out: one line naming what a filtered run left out (nothing for the whole suite).
report_left_out() {
  [ "$FILTERED" = 1 ] || return 0
  local what
  what=$(printf '%s, ' "${LEFT_OUT[@]}")
  what=${what%, }
  [ "${LEFT_OUT_STEPS:-0}" -gt 0 ] && what="${what:+$what, }${LEFT_OUT_STEPS} steps the words did not name"
  echo "# left out by the filter ($FILTER_WORDS): ${what:-nothing}"
}
FILTER_WORDS="$*"
