#!/usr/bin/env bash
# test_exports.sh BUILD_DIR - the shared library exports exactly the API: every defined
# dynamic symbol is an ASGST_ function of asgst.h / asgst_synthetic.h, and every function
# declared in asgst.h is exported; and the product (libasgst.so, libasgst.a) carries no
# test switch: no "ASGST_TEST_" string and no test-only function of impl/test_build.h,
# hidden ones included, while the test build (libasgst-test.a) has them.
set -u
BUILD=${1:?build dir}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
lib=$BUILD/lib/libasgst.so
echo "1..4"
exported=$(nm -D --defined-only "$lib" | awk '$2 ~ /^[TDBRV]$/ {print $3}' | sort)
stray=$(echo "$exported" | grep -v '^ASGST_' | grep -Ev '^(_init|_fini|_edata|_end|__bss_start)$' || true)
if [ -z "$stray" ]; then echo "ok 1 - only ASGST_ symbols are exported"
else echo "not ok 1 - internal symbols leak: $(echo $stray | head -c 300)"; fi
declared=$(grep -ohE 'ASGST_EXPORT [^;(]*\b(ASGST_[A-Za-z0-9_]+)\(' "$ROOT"/include/asgst.h \
  | grep -oE 'ASGST_[A-Za-z0-9_]+\($' | tr -d '(' | sort -u)
missing=$(comm -23 <(echo "$declared") <(echo "$exported"))
if [ -z "$missing" ]; then echo "ok 2 - all $(echo "$declared" | wc -l) declared functions are exported"
else echo "not ok 2 - declared but not exported: $(echo $missing)"; fi

# Test-only traces in a library file: ASGST_TEST_ strings plus symbols (any binding) of
# the functions impl/test_build.h declares.
test_fns=$(grep -oE '\basgst__[a-z0-9_]+\(' "$ROOT"/impl/test_build.h | tr -d '(' | sort -u | paste -sd'|')
traces() {
  echo $(( $(strings -a "$1" | grep -c 'ASGST_TEST_') + $(nm -A "$1" 2>/dev/null | grep -cE " ($test_fns)\$") ))
}
n=0
for f in "$lib" "$BUILD/lib/libasgst.a"; do n=$((n + $(traces "$f"))); done
if [ -n "$test_fns" ] && [ "$n" = 0 ]; then echo "ok 3 - the product carries no test switch ($test_fns)"
else echo "not ok 3 - test-only strings or symbols in the product: $n"; fi
t=$(traces "$BUILD/lib/libasgst-test.a")
if [ "$t" -gt 0 ]; then echo "ok 4 - the test build has them ($t), so check 3 can tell"
else echo "not ok 4 - no test-only traces found in libasgst-test.a: check 3 proves nothing"; fi
