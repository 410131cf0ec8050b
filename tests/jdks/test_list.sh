#!/usr/bin/env bash
# test_list.sh [BUILD_DIR] - the test runner's accounting of the JDKs, without a JVM: a copy of
# tests/run_all.sh and tests/jdks/ in a scratch tree whose test scripts are stubs (one
# passing TAP line each) and whose arm64 suite is a stub listing three steps. Checks that
#   - a JDK whose provisioning fails (ASGST_TEST_BREAK_JDK, honoured by provision.sh) is a
#     counted failure that names it and why, and the run fails;
#   - JDKs left out on purpose (ASGST_TEST_JDKS, ASGST_TEST_SKIP_JDKS) are counted skips;
#   - an early-access JDK (newer than the newest tested) stays out of the totals;
#   - the line above the totals lists the JDKs and architectures that ran;
#   - a run given filter words (tests/select.sh) runs only what they name and says what it
#     left out.
# Nothing is downloaded: every version asked for is broken on purpose or left out. Prints TAP.
set -u
SRC=$(cd "$(dirname "$0")/../.." && pwd)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
n=0
tap() { n=$((n + 1)); echo "$1 $n - $2"; }
check() { if eval "$1"; then tap ok "$2"; else tap "not ok" "$2"; fi; }

# The scratch tree: the real runner and JDK scripts, stub suites.
ROOT=$WORK/root
mkdir -p "$ROOT/tests/jdks" "$ROOT/tests/aarch64" "$WORK/build/tests" "$WORK/build-aarch64"
cp "$SRC/tests/run_all.sh" "$SRC/tests/select.sh" "$ROOT/tests/"
cp "$SRC/tests/jdks/list.sh" "$SRC/tests/jdks/provision.sh" "$SRC/tests/jdks/feature.sh" "$ROOT/tests/jdks/"
for s in $(grep -oE '(tests|profiler-demo)/[a-z/]*test_[a-z_]+\.sh' "$SRC/tests/run_all.sh" | sort -u); do
  mkdir -p "$ROOT/$(dirname "$s")"
  printf '#!/usr/bin/env bash\necho "ok 1 - stub %s on ${JAVA_HOME:-?}"\n' "$s" >"$ROOT/$s"
done
cat >"$ROOT/tests/aarch64/run_suite.sh" <<'EOF'
#!/usr/bin/env bash
case "$2" in
  list) printf 'unit[arm64] 10\ntest_walk[arm64-17] 10\ntest_walk[arm64-21,pauth=off] 10\n' ;;
  step) echo "ok 1 - stub $3" ;;
esac
EOF

# run_all NAME ENV...: the scratch runner with ENV; its output in $WORK/NAME.out.
run_all() {
  local name=$1
  shift
  # The caller's own knobs do not reach the scratch run; ENV sets them.
  (cd "$WORK" && env -u ASGST_TEST_JDKS -u ASGST_TEST_SKIP_JDKS -u ASGST_TEST_BREAK_JDK \
    ASGST_JDK_CACHE="$WORK/cache" "$@" bash "$ROOT/tests/run_all.sh" "$WORK/build") \
    >"$WORK/$name.out" 2>&1
  echo $? >"$WORK/$name.rc"
}
totals() { tail -1 "$WORK/$1.out"; }
# steps NAME: the step lines of a run's output (name and counts), one step name a line.
steps() { grep -E '^[a-z_0-9]+(\[[^]]*\])? +[0-9]+ passed' "$WORK/$1.out" | awk '{print $1}'; }

# 1. JDK 26's provisioning broken, 28 (early access) broken too, 25 opted out.
run_all broken ASGST_TEST_JDKS="26 28" ASGST_TEST_BREAK_JDK="26 28" ASGST_TEST_SKIP_JDKS="25"
sed 's/^/# broken: /' "$WORK/broken.out" | tail -8
check '[ "$(cat "$WORK/broken.rc")" != 0 ]' "a run with a JDK that could not be provided fails"
check 'totals broken | grep -qE "^[0-9]+ passed, 1 failed, [0-9]+ skipped$"' \
  "the totals count exactly one failure: $(totals broken)"
check 'grep -q "^not ok 1 - jdk26 could not be provided: provisioning made to fail on purpose" "$WORK/build/test-logs/jdk[jdk26].log"' \
  "the failure is a TAP line naming jdk26 and why"
check 'grep -q "^# failed: jdk\[jdk26\]: not ok 1 - jdk26 could not be provided" "$WORK/broken.out"' \
  "the failure recap above the totals names jdk26"
check 'grep -q "^# JDK: jdk28 (untested) not run: provisioning made to fail" "$WORK/broken.out" && ! grep -q "jdk\[jdk28\]" "$WORK/broken.out"' \
  "the early-access jdk28 is reported apart, not counted"
skips=$(totals broken | sed -n 's/.* \([0-9]*\) skipped$/\1/p')
# 17 21 25 11 27 8 left out by ASGST_TEST_JDKS, and 25 of the system's JVM directory if any.
check '[ "${skips:-0}" -ge 6 ] && grep -q "^jdk\[jdk27\] .* 1 skipped" "$WORK/broken.out"' \
  "the JDKs left out by ASGST_TEST_JDKS are counted skips ($skips)"
check 'grep -q "^ok 1 - jdk27 # SKIP left out by ASGST_TEST_JDKS=\"26 28\"" "$WORK/build/test-logs/jdk[jdk27].log"' \
  "a skipped JDK's line names the knob"
ran=$(tail -2 "$WORK/broken.out" | head -1)
check '[[ "$ran" == "# ran: x86_64 jdk"*"; arm64 jdk17 jdk21" ]] && [[ "$ran" != *jdk26* ]]' \
  "the line above the totals lists what ran, without jdk26: $ran"

# 2. ASGST_TEST_JDKS=none: every other JDK a skip, nothing failed.
run_all none ASGST_TEST_JDKS=none
sed 's/^/# none: /' "$WORK/none.out" | tail -3
check '[ "$(cat "$WORK/none.rc")" = 0 ] && totals none | grep -qE "^[0-9]+ passed, 0 failed, ([89]|[1-9][0-9]+) skipped$"' \
  "ASGST_TEST_JDKS=none passes with the eight versions (and the system's JDKs) as skips: $(totals none)"
# 3. Filters: a suite and a JDK, the quick tier, an architecture.
mkdir -p "$WORK/build/tests/unit"
printf '#!/bin/sh\necho "ok 1 - stub unit"\n' >"$WORK/build/tests/unit/test_stub_unit"
chmod +x "$WORK/build/tests/unit/test_stub_unit"
# run_all passes no words: call the runner with words through ENV's command instead.
# ASGST_TEST_JDKS=none: no newer JDK 17 update is fetched (nothing is downloaded).
(cd "$WORK" && ASGST_TEST_JDKS=none ASGST_JDK_CACHE="$WORK/cache" \
  bash "$ROOT/tests/run_all.sh" "$WORK/build" walk jdk=17) >"$WORK/walk17.out" 2>&1
got=$(steps walk17 | tr '\n' ' ')
check '[ "$got" = "test_walk test_walk[arm64-17] " ]' "walk jdk=17 runs the walk suite on 17 only, both architectures: $got"
check 'grep -q "^# left out by the filter (walk jdk=17): .*jdk21.*steps the words did not name" "$WORK/walk17.out"' \
  "a filtered run names what it left out: $(grep '^# left out' "$WORK/walk17.out" | cut -c1-120)"
(cd "$WORK" && env -u ASGST_TEST_JDKS ASGST_JDK_CACHE="$WORK/cache" \
  bash "$ROOT/tests/run_all.sh" "$WORK/build" quick) >"$WORK/quick.out" 2>&1
got=$(steps quick)
check 'echo "$got" | grep -qx test_stub_unit && echo "$got" | grep -qx test_walk && ! echo "$got" | grep -q "\[" && tail -1 "$WORK/quick.out" | grep -qE "^[0-9]+ passed, 0 failed, 0 skipped$"' \
  "quick runs the default JDK's steps only, no JDK or arm64 step, no skip: $(totals quick)"
(cd "$WORK" && env -u ASGST_TEST_JDKS ASGST_JDK_CACHE="$WORK/cache" \
  bash "$ROOT/tests/run_all.sh" "$WORK/build" arch=arm64) >"$WORK/arm.out" 2>&1
got=$(steps arm | tr '\n' ' ')
check '[ "$got" = "unit[arm64] test_walk[arm64-17] test_walk[arm64-21,pauth=off] " ]' "arch=arm64 runs the arm64 steps only: $got"
(cd "$WORK" && bash "$ROOT/tests/run_all.sh" "$WORK/build" jdk=x arch=sparc) >"$WORK/bad.out" 2>&1
check '[ $? != 0 ] && grep -q "arch=sparc" "$WORK/bad.out"' "an unknown architecture stops the run naming it"
echo "1..$n"
