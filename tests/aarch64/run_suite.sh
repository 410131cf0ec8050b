#!/usr/bin/env bash
# run_suite.sh BUILD_ARM [list | step NAME] - the arm64 suite under qemu-user, over the cross
# build BUILD_ARM (./build.sh build-aarch64) and the arm64 JDKs of the root (env.sh).
#   (no argument)  runs every step, prints one line per step and the totals
#                  (./build.sh test-aarch64)
#   list           prints the steps, "NAME LIMIT_SECONDS" a line (tests/run_all.sh runs
#                  each through its own `run`, so their TAP counts join the totals)
#   step NAME      runs one step; prints TAP
# The steps: the arm64 unit tests, then for each JDK (17, 21, 25) with `-cpu max` (pointer
# authentication on) the walk suite and the stub bci test (the line of samples in
# out-of-line stub code, C1's and C2's G1 barrier stubs); on 17 (bookworm's libjvm) and 25
# (trixie's, like 21's built with return-address signing) also the info and queue suites,
# the OSR entry test, the signal frames test and the shadow-stack oracle; on 25 the demo
# profiler's CPU, wall, walk-mode and thread-state tests; then on 25 the walk suite again with
# `-cpu max,pauth=off`. Budget: the whole arm64 part of ./build.sh test (cross build and
# qemu runs) under 9 minutes on a 2-core machine. Why two JDKs suffice for all but the walk
# and stub steps: the suites read the same version-aware tables as on x86_64, where 21 runs
# every suite; what is arm64's own (frame records, the link register, signed return
# addresses, the stubs' way back) is what the walk and stub steps cover on all three. 21
# and 25 are one build flavour (trixie's, pac-ret), so pauth=off runs on 25 only; on 17,
# whose libjvm signs nothing, pauth=off would repeat the pauth=on run. Each JVM
# script runs unchanged with JAVA_HOME = a fake home whose java is the arm64 JDK under
# qemu (fake_home.sh), with shorter knobs and ASGST_TEST_QEMU=1 (the scripts say what it
# changes and why). Figures under qemu are for correctness, not speed.
set -u
BUILD=$(cd "${1:?usage: run_suite.sh BUILD_ARM [list | step NAME]}" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
HOMES=$BUILD/tests/aarch64
JDKS="17 21 25"
# Per JDK with -cpu max: the walk suite on each; the info and queue suites on FULL_JDKS.
SUITES_MAX="tests/jvm/test_walk.sh"
FULL_JDKS="17 25"
FULL_SUITES="tests/jvm/test_info.sh tests/jvm/test_queues.sh"
# The demo profiler's tests on 25 only: what they check of arm64 (its signal handler's
# registers, the CPU timer and wall ticks under qemu, the walk modes) is the demo's own
# code and the library's, which the walk suites check on each JDK (some 65 s on 17).
DEMO_JDKS="25"
DEMO_SUITES="profiler-demo/tests/test_cpu_ratio.sh profiler-demo/tests/test_wall.sh
  profiler-demo/tests/test_walk_modes.sh profiler-demo/tests/test_thread_states.sh"
# On FULL_JDKS: walks through signal frames (some 10 s a JDK under qemu).
SIGNAL_SUITES="tests/jvm/test_signal_frames.sh"
# On FULL_JDKS: the shadow-stack oracle (some 25 s a JDK under qemu).
ORACLE_SUITES="tests/jvm/test_shadow_oracle.sh"
SUITES_NOPAUTH="tests/jvm/test_walk.sh"
NOPAUTH_JDKS="25"
# The per-line oracle of samples in stub code (four runs of 4 s, 21-30 s here) on every
# arm64 JDK: 25's C2 puts G1's barriers out of line (JDK 24+) besides C1's CodeStubs; 21 is
# the release between. The proof of C1's OSR entry calls on the code (two short runs) on
# FULL_JDKS: 17's C1 code warms up before the C frame tables' first build (a walker fault
# showed only there).
STUB_SUITES="tests/jvm/test_stub_bci.sh"
OSR_SUITES="tests/jvm/test_osr_entry.sh"
# Unit tests left out under qemu, each with its reason (printed as a skip).
UNIT_SKIPS='
test_synthetic_errors 2000 walks from random contexts under ASan take over 200 s in qemu; no arm64 code of its own beyond the registers (unit/test_arch.h)
test_synthetic_guard 10000 walks of corrupted stacks under ASan take minutes in qemu; no arm64 code of its own beyond the registers (unit/test_arch.h)
test_remote_walk its 12000 out-of-thread walks of a corrupted stack did not finish within 300 s in qemu (natively 5 s); its first test, 1000 walks of a live C chain, passes there
'

# The root's variables (ASGST_ARM64_SYSROOT), provisioned if needed; false if impossible.
load_env() {
  local e
  e=$("$HERE/env.sh" 2>"$BUILD/aarch64-env.log") || return 1
  eval "$e"
}

# emit V LIMIT SCRIPT...: a step line "suite[arm64-V] LIMIT" a script.
emit() {
  local v=$1 limit=$2 t
  shift 2
  for t in "$@"; do echo "$(basename "$t" .sh)[arm64-$v] $limit"; done
}

steps() {
  echo "unit[arm64] 300"
  for v in $JDKS; do
    # shellcheck disable=SC2086 # the lists are meant to split
    {
      emit "$v" 600 $SUITES_MAX
      case " $FULL_JDKS " in *" $v "*) emit "$v" 600 $FULL_SUITES ;; esac
      case " $DEMO_JDKS " in *" $v "*) emit "$v" 300 $DEMO_SUITES ;; esac
      case " $FULL_JDKS " in *" $v "*) emit "$v" 300 $SIGNAL_SUITES $ORACLE_SUITES ;; esac
      emit "$v" 300 $STUB_SUITES
      case " $FULL_JDKS " in *" $v "*) emit "$v" 300 $OSR_SUITES ;; esac
    }
  done
  for v in $NOPAUTH_JDKS; do
    for s in $SUITES_NOPAUTH; do echo "$(basename "$s" .sh)[arm64-$v,pauth=off] 600"; done
  done
}

# unit_tests: every unit test under qemu, its TAP lines prefixed with its name.
unit_tests() {
  local t name rc n=0
  for t in "$BUILD"/tests/unit/test_*; do
    [ -x "$t" ] || continue
    name=$(basename "$t")
    local why
    why=$(echo "$UNIT_SKIPS" | awk -v t="$name" '$1 == t { $1 = ""; sub(/^ /, ""); print }')
    n=$((n + 1))
    if [ -n "$why" ]; then echo "ok $n - $name # SKIP $why"; continue; fi
    # LeakSanitizer cannot run under qemu-user (it stops the threads with ptrace). The root
    # through QEMU_LD_PREFIX (qemu's -L), which the CFI tests read too (readelf_frames.h).
    ASAN_OPTIONS=detect_leaks=0 CMOCKA_MESSAGE_OUTPUT=TAP QEMU_LD_PREFIX=$ASGST_ARM64_SYSROOT \
      timeout -k 5 60 qemu-aarch64-static -cpu max "$t" >"$BUILD/tests/unit/$name.qemu.log" 2>&1
    rc=$?
    if [ $rc = 0 ]; then echo "ok $n - $name"
    else
      echo "not ok $n - $name: exit status $rc$([ $rc = 124 ] && echo ' (stopped after 60 s)')"
      grep -E '^not ok|error|runtime error' "$BUILD/tests/unit/$name.qemu.log" | head -6 | sed 's/^/# /'
    fi
  done
}

# step NAME: suite[arm64-V] or suite[arm64-V,pauth=off]
step() {
  local name=$1 suite v cpu=max script
  if [ "$name" = "unit[arm64]" ]; then unit_tests; return; fi
  suite=${name%%\[*}
  v=${name#*arm64-}; v=${v%%[],]*}
  case "$name" in *pauth=off*) cpu=max,pauth=off ;; esac
  script=$(cd "$ROOT" && ls tests/jvm/"$suite".sh profiler-demo/tests/"$suite".sh 2>/dev/null | head -1)
  [ -n "$script" ] || { echo "not ok 1 - $name: no script $suite.sh"; return; }
  bash "$HERE/fake_home.sh" "$ASGST_ARM64_SYSROOT" "$v" "$HOMES/jdk$v" || { echo "not ok 1 - $name: no fake JAVA_HOME"; return; }
  # Shorter runs than natively: qemu runs Java 2-5x slower. The walk suite keeps the runs
  # of every kind of frame (interpreted, C1, C2, tiers and inlining, JNI, exceptions and
  # deoptimization, stress, virtual threads) and leaves out the repeats; with pauth off
  # only the compiled, JNI and stress runs.
  local runs="interpreted c1-only c2-only tiers-noinline tiers-inline jni-callbacks exceptions-deopt stress-100us virtual-threads"
  local min=20000 # samples of Java threads: 30,000-60,000 seen with these runs
  [ "$cpu" = max ] || runs="c2-only jni-callbacks stress-100us" min=8000 # 13,000-19,000 seen
  (cd "$ROOT" && JAVA_HOME=$HOMES/jdk$v ASGST_QEMU_CPU=$cpu ASGST_TEST_QEMU=1 \
    WALK_SECONDS=1 WALK_STRESS_SECONDS=3 WALK_ONLY="$runs" WALK_MIN_SAMPLES=$min \
    QUEUE_SECONDS=4 SHADOW_SECONDS=4 STUB_SECONDS=4 JVM_LIMIT=300 bash "$script" "$BUILD")
}

# Without run_all.sh: every step, a line each, and the totals.
run_all_steps() {
  local name limit log p f s tp=0 tf=0 ts=0 t0 rc
  mkdir -p "$BUILD/test-logs"
  while read -r name limit; do
    log=$BUILD/test-logs/$name.log
    t0=$SECONDS
    timeout -k 10 "$limit" bash "$0" "$BUILD" step "$name" >"$log" 2>&1
    rc=$?
    s=$(grep -Eic '^ok [0-9]+.*# skip' "$log")
    p=$(($(grep -Ec '^ok [0-9]+' "$log") - s))
    f=$(grep -Ec '^not ok' "$log")
    [ "$rc" = 0 ] || [ "$f" != 0 ] || f=1
    printf '%-38s %4d passed %3d failed %3d skipped %4d s\n' "$name" "$p" "$f" "$s" $((SECONDS - t0))
    tp=$((tp + p)) tf=$((tf + f)) ts=$((ts + s))
  done < <(steps)
  echo "# arm64 under qemu: $((SECONDS / 60)) min $((SECONDS % 60)) s"
  echo "$tp passed, $tf failed, $ts skipped"
  [ "$tf" = 0 ]
}

if ! load_env; then
  # Only list says so (one skip step); the sysroot cannot be provisioned (not root and
  # no cache, no network): tail of env.sh's log.
  case "${2:-}" in
    list) echo "arm64-skipped 10" ;;
    *) echo "ok 1 - arm64 suite # SKIP the arm64 root cannot be provisioned: $(tail -1 "$BUILD/aarch64-env.log")" ;;
  esac
  exit 0
fi
case "${2:-}" in
  list) steps ;;
  step) step "${3:?step name}" ;;
  "") run_all_steps ;;
  *) echo "usage: run_suite.sh BUILD_ARM [list | step NAME]" >&2; exit 2 ;;
esac
