#!/usr/bin/env bash
# run_all.sh BUILD_DIR [quick] [SUITE...] [jdk=V,...] [arch=x86_64|arm64] - runs every test
# program (or the part the words after BUILD_DIR choose: docs/testing.md) and totals their
# TAP output.
# Each program prints TAP lines ("ok N - name", "not ok N - name", "ok N # SKIP reason").
# A program that exits non-zero without reporting a failure counts as one failure, so a
# crash is never silent. A JDK that tests/jdks/list.sh says could not be provided (FAIL) is a
# failure, one it leaves out on purpose (SKIP) a skip, each naming why. The last lines are
# the JDKs and architectures that ran ("# ran: ...") and "N passed, N failed, N skipped".
set -u
BUILD=${1:?build dir}
shift
ROOT=$(cd "$(dirname "$0")/.." && pwd)
# The part of the suite to run (tests/select.sh): every step when no word is given.
source "$ROOT/tests/select.sh" "$@" || exit 2
LOG=$BUILD/test-logs
mkdir -p "$LOG"
pass=0 fail=0 skip=0
RUN_PASSED=0 # the passes of the last step `run` ran
# Every failing step with its first "not ok" lines and what follows them, printed again
# just above the totals: a CI log that keeps only its tail then still names what failed.
failures=()

# run NAME TIMEOUT CMD... : runs one test program and adds its counts.
run() {
  local name=$1 limit=$2; shift 2
  # The word `list`: name the step instead of running it.
  if [ "$LIST_ONLY" = 1 ]; then echo "$name"; RUN_PASSED=1; return; fi
  local out=$LOG/$name.log
  local t0=$SECONDS
  CMOCKA_MESSAGE_OUTPUT=TAP timeout -k 10 "$limit" "$@" >"$out" 2>&1
  local rc=$?
  local p f s
  # One pass for the three counts: a run of the whole suite has about 300 steps.
  read -r p s f < <(awk '/^ok [0-9]+/ { p++; if (tolower($0) ~ /# skip/) s++ }
                         /^not ok [0-9]+/ { f++ }
                         END { print p - s, s + 0, f + 0 }' "$out")
  if { [ "$rc" = 124 ] || [ "$rc" = 137 ]; } && [ $((SECONDS - t0)) -ge "$limit" ]; then
    # The limit fired: say what the test was doing (its last lines) rather than a status.
    f=$((f + 1))
    local last
    last=$(tail -5 "$out" | sed 's/^/#   /')
    printf 'not ok - %s did not finish within %s s (stopped by its time limit); its last lines:\n%s\n' \
      "$name" "$limit" "$last" >>"$out"
  elif [ "$rc" != 0 ] && [ "$f" = 0 ]; then
    f=1
    echo "not ok - $name exited with status $rc" >>"$out"
  fi
  pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + s)) RUN_PASSED=$p
  printf '%-34s %4d passed %3d failed %3d skipped %4d s  (%s)\n' "$name" "$p" "$f" "$s" \
    $((SECONDS - t0)) "${out#"$PWD"/}"
  if [ "$f" != 0 ]; then
    grep -E '^not ok|^# |ERROR|error:' "$out" | head -20 | sed 's/^/    /'
    failures+=("$name: $(grep -E -A2 '^not ok' "$out" | head -6 | cut -c1-300 | tr '\n' '|')")
  fi
  sed -nE 's/^# (figure|skip):/    &/p' "$out"
}

# ran_label HOME: jdk and the full version of the JDK at HOME (jdk17.0.15), from its release file.
ran_label() {
  local v
  v=$(sed -n 's/^JAVA_VERSION="\(.*\)"/\1/p' "$1/release" 2>/dev/null | head -1)
  echo "jdk${v:-?}"
}
# What ran, for the "# ran:" line: a JDK whose steps passed nothing is marked so.
RAN_X86="$(ran_label "${JAVA_HOME:-/usr/lib/jvm/java-17-openjdk-amd64}")"
RAN_ARM=""

DEFAULT_V=$("$ROOT/tests/jdks/feature.sh" "${JAVA_HOME:-/usr/lib/jvm/java-17-openjdk-amd64}")
if select_jdk "$DEFAULT_V" && select_arch x86_64; then
  echo "# JDK: ${JAVA_HOME:-the default} runs every test"
  for t in "$BUILD"/tests/unit/test_*; do
    [ -x "$t" ] || continue
    select_step "$(basename "$t")" unit && run "$(basename "$t")" 300 "$t"
  done
  for t in "$BUILD"/tests/conformance/conformance_*; do
    [ -x "$t" ] || continue
    select_step "$(basename "$t")" conformance && run "$(basename "$t")" 300 "$t" "$BUILD/lib/libasgst.so"
  done
  for t in "$ROOT"/tests/conformance/test_*.sh "$ROOT"/tests/jvm/test_*.sh "$ROOT"/profiler-demo/tests/test_*.sh \
    "$ROOT"/tests/jdks/test_*.sh; do
    [ -f "$t" ] || continue
    select_step "$(basename "$t" .sh)" "$(step_kind "$t")" || continue
    # The quick tier runs the long JVM suites shorter, as on the other JDKs.
    run "$(basename "$t" .sh)" 900 bash "$t" "$BUILD"
  done
else
  left_out "the default JDK ($DEFAULT_V, with the unit and conformance programs)"
  RAN_X86=""
fi

# The other JDKs: the JVM suites and the demo profiler's JVM-dependent tests again on each
# (shorter walk and queue runs: 3 s a walk workload, some 80,000 samples in all against the
# 50,000 test_walk.sh asks for). Which JDKs and why any is missing is printed first.
EXTRA_SUITES=(tests/jvm/test_walk.sh tests/jvm/test_info.sh tests/jvm/test_stopped.sh
  tests/jvm/test_native_frames.sh tests/jvm/test_native_agree.sh
  tests/conformance/test_conformance.sh tests/jvm/test_replay.sh tests/jvm/test_queues.sh
  tests/jvm/test_init.sh tests/jvm/test_thread_state.sh tests/jvm/test_stub_bci.sh tests/jvm/test_osr_entry.sh
  tests/jvm/test_remote_walk.sh tests/jvm/test_shadow_oracle.sh profiler-demo/tests/test_cpu_ratio.sh
  profiler-demo/tests/test_wall.sh profiler-demo/tests/test_fd_report.sh
  profiler-demo/tests/test_fd_live.sh profiler-demo/tests/test_fd_churn.sh profiler-demo/tests/test_nscd.sh
  profiler-demo/tests/test_tracepoint_filter.sh profiler-demo/tests/test_attach.sh
  profiler-demo/tests/test_vm_code_names.sh profiler-demo/tests/test_pprof.sh
  profiler-demo/tests/test_jfr.sh profiler-demo/tests/test_queue_folds.sh
  profiler-demo/tests/test_perf_events.sh profiler-demo/tests/test_kernel_frames.sh
  profiler-demo/tests/test_all_threads.sh profiler-demo/tests/test_thread_states.sh)
# The other JDKs' walk and queue runs are shorter than the default JDK's, so that the whole
# run stays well under 45 minutes with nine JDKs and arm64: 2 s walk runs give each JDK
# about 100,000 samples here, 60,000 with the machine loaded tenfold, and their floor is
# 30,000 (the default JDK's 5 s runs keep the walk suite's 50,000).
OTHER_WALK_SECONDS=${OTHER_WALK_SECONDS:-2}
OTHER_WALK_MIN=${OTHER_WALK_MIN:-30000}
OTHER_STRESS_SECONDS=${OTHER_STRESS_SECONDS:-6}
OTHER_QUEUE_SECONDS=${OTHER_QUEUE_SECONDS:-6}
# A second build of a feature version already tested (e.g. Temurin 25 beside Debian's 25)
# runs the walk and info suites only, to keep the whole run under 45 minutes.
SAME_VERSION_SUITES=(tests/jvm/test_walk.sh tests/jvm/test_info.sh)
# Which releases run the demo profiler's tests (to keep the whole run under 45 minutes):
# the default JDK and the newest tested run them all; the oldest (8) and the current LTS
# (25) all but JVM_FREE_DEMO's; the releases between (11, 21, 26) the library's suites
# only. What the demo meets from one release to the next (thread states, code blob names,
# JFR, attach) comes through the library, whose suites run on every release; the demo's
# tests on the releases around these bound the rest. About five minutes of the whole run.
DEMO_RELEASES=" 8 25 "
# The demo's tests whose subject is its own code and the kernel's, not the JVM's (the fd
# table's memory under churn, a tracepoint's filter, the pprof writer, perf events by
# name, kernel frames): the JVM there is only a workload, whose Java frames the walk suites
# check on every release. They run on the default JDK and the newest tested.
JVM_FREE_DEMO=" test_fd_churn test_tracepoint_filter test_pprof test_perf_events test_kernel_frames "
# DEMO_ALL_JDKS=1: every demo test on every release.
# demo_tier V: all (every demo test), some (all but JVM_FREE_DEMO's) or none.
demo_tier() {
  if [ "${DEMO_ALL_JDKS:-0}" = 1 ] || [ "$1" = "$NEWEST_TESTED" ]; then echo all
  else case "$DEMO_RELEASES" in *" $1 "*) echo some ;; *) echo none ;; esac
  fi
}
# tier_runs TIER SCRIPT: true if a release of that tier runs SCRIPT (a path under ROOT).
tier_runs() {
  case "$2" in profiler-demo/*) ;; *) return 0 ;; esac
  case "$1" in
    all) return 0 ;;
    none) return 1 ;;
  esac
  case "$JVM_FREE_DEMO" in *" $(basename "$2" .sh) "*) return 1 ;; esac
  return 0
}
# A JDK newer than the newest the library is tested on (an early-access build) runs the
# walk and info suites with the opt-in (ASGST_INIT_UNTESTED_JDK, through the test agents'
# ASGST_TEST_UNTESTED_JDK); its results are reported apart and not counted in the totals.
NEWEST_TESTED=27 # impl/hotspot/model/vm_model.c, tested[]
UNTESTED_SUITES=(tests/jvm/test_walk.sh tests/jvm/test_info.sh)
# run_untested LABEL HOME: the untested JDK's suites, with their own tally.
run_untested() {
  local label=$1 home=$2 t p0=$pass f0=$fail s0=$skip n0=${#failures[@]}
  echo "# JDK: $label at $home (newer than the newest tested, $NEWEST_TESTED: run with the opt-in, reported apart)"
  for t in "${UNTESTED_SUITES[@]}"; do
    select_step "$(basename "$t" .sh)" "$(step_kind "$ROOT/$t")" || continue
    JAVA_HOME=$home ASGST_TEST_UNTESTED_JDK=1 WALK_SECONDS=$OTHER_WALK_SECONDS WALK_MIN_SAMPLES=$OTHER_WALK_MIN \
      WALK_STRESS_SECONDS=$OTHER_STRESS_SECONDS \
      run "$(basename "$t" .sh)[$label]" 900 bash "$ROOT/$t" "$BUILD"
  done
  echo "# JDK: $label (untested): $((pass - p0)) passed, $((fail - f0)) failed, $((skip - s0)) skipped (not counted)"
  RAN_X86="$RAN_X86 $label(untested$([ $((pass - p0)) -gt 0 ] || echo ', nothing passed'))"
  pass=$p0 fail=$f0 skip=$s0 failures=("${failures[@]:0:n0}")
}
# not_provided LABEL SKIP|FAIL REASON: a JDK list.sh did not provide, one counted step: a
# skip when it was left out on purpose, a failure naming why when it should have run.
not_provided() {
  local label=$1 kind=$2 why=$3
  if [ "$kind" = SKIP ]; then
    # The "# skip:" line is printed under the step's line (see run).
    run "jdk[$label]" 10 printf 'ok 1 - %s # SKIP %s\n# skip: %s: %s\n' "$label" "$why" "$label" "$why"
  else
    run "jdk[$label]" 10 printf 'not ok 1 - %s could not be provided: %s\n' "$label" "$why"
  fi
}
# The default JDK's feature version counts as tested: another build of it (the newest JDK 17
# update beside an older installed one) runs the walk and info suites.
versions=" $("$ROOT/tests/jdks/feature.sh" "${JAVA_HOME:-/usr/lib/jvm/java-17-openjdk-amd64}") "
while read -r label home; do
  v=${label#jdk}
  v=${v%%-*}
  untested=0
  [ "${v:-0}" -gt "$NEWEST_TESTED" ] 2>/dev/null && untested=1
  if ! select_jdk "$v" || ! select_arch x86_64; then left_out "$label"; continue; fi
  case "$home" in
    SKIP*"left out by ASGST_TEST_JDKS"*)
      # The filter's own choice (select.sh sets ASGST_TEST_JDKS): left out, not a skip.
      [ "$FILTERED" = 1 ] && { left_out "$label"; continue; } ;;
  esac
  case "$home" in
    SKIP* | FAIL*)
      # An untested JDK is reported apart, whether it ran or not.
      if [ "$untested" = 1 ]; then echo "# JDK: $label (untested) not run: ${home#* } (not counted)"
      else not_provided "$label" "${home%% *}" "${home#* }"
      fi
      continue ;;
  esac
  if [ "$untested" = 1 ]; then run_untested "$label" "$home"; continue; fi
  suites=("${EXTRA_SUITES[@]}")
  case "$versions" in
    *" $v "*) suites=("${SAME_VERSION_SUITES[@]}")
              echo "# JDK: $label at $home (JDK $v tested already: walk and info only)" ;;
    *) suites=()
       tier=$(demo_tier "$v")
       for t in "${EXTRA_SUITES[@]}"; do tier_runs "$tier" "$t" && suites+=("$t"); done
       case "$tier" in
         all) echo "# JDK: $label at $home" ;;
         some) echo "# JDK: $label at $home (the demo's tests of its own code and the kernel's on the default JDK and $NEWEST_TESTED only)" ;;
         none) echo "# JDK: $label at $home (a release between: the library's suites, not the demo's)" ;;
       esac ;;
  esac
  versions="$versions$v "
  passed=0
  for t in "${suites[@]}"; do
    select_step "$(basename "$t" .sh)" "$(step_kind "$ROOT/$t")" || continue
    JAVA_HOME=$home WALK_SECONDS=$OTHER_WALK_SECONDS WALK_MIN_SAMPLES=$OTHER_WALK_MIN WALK_STRESS_SECONDS=$OTHER_STRESS_SECONDS \
      QUEUE_SECONDS=$OTHER_QUEUE_SECONDS FD_CHURN_SECONDS=8 \
      run "$(basename "$t" .sh)[$label]" 900 bash "$ROOT/$t" "$BUILD"
    passed=$((passed + RUN_PASSED))
  done
  RAN_X86="$RAN_X86 $label$([ "$passed" -gt 0 ] || echo '(nothing passed)')"
done < <("$ROOT/tests/jdks/list.sh")

# arm64 under qemu-user (issue 30): the cross build beside BUILD (./build.sh build-aarch64),
# each step of tests/aarch64/run_suite.sh through `run`, so that its counts join the totals.
# Without an arm64 root (it cannot be provisioned) the suite is one skip saying why.
ARM_BUILD=${BUILD%/}-aarch64
if ! select_arch arm64; then
  left_out "arm64"
elif [ -d "$ARM_BUILD" ]; then
  echo "# arm64 under qemu-user: $ARM_BUILD (figures for correctness, not speed)"
  arm_t0=$SECONDS
  declare -A arm_passed=()
  arm_jdks=""
  while read -r name limit; do
    select_arm_step "$name" || continue
    run "$name" "$limit" bash "$ROOT/tests/aarch64/run_suite.sh" "$ARM_BUILD" step "$name"
    # The JDK of a step suite[arm64-V] or suite[arm64-V,pauth=off].
    case "$name" in *"[arm64-"*) ;; *) continue ;; esac
    v=${name#*arm64-}
    v=${v%%[],]*}
    case " $arm_jdks " in *" $v "*) ;; *) arm_jdks="$arm_jdks $v" ;; esac
    arm_passed[$v]=$((${arm_passed[$v]:-0} + RUN_PASSED))
  done < <(bash "$ROOT/tests/aarch64/run_suite.sh" "$ARM_BUILD" list)
  for v in $arm_jdks; do
    RAN_ARM="$RAN_ARM jdk$v$([ "${arm_passed[$v]}" -gt 0 ] || echo '(nothing passed)')"
  done
  echo "# arm64 under qemu-user: $((SECONDS - arm_t0)) s"
else
  run "arm64" 10 echo "ok 1 - arm64 suite # SKIP no cross build at $ARM_BUILD: the arm64 root could not be provisioned (./build.sh build-aarch64 says why)"
fi

echo "# run_all: $((SECONDS / 60)) min $((SECONDS % 60)) s"
for f in "${failures[@]}"; do echo "# failed: $f"; done
echo "# ran: x86_64 $RAN_X86; arm64${RAN_ARM:- none}"
report_left_out
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
