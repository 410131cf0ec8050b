#!/usr/bin/env bash
# test_exports.sh BUILD_DIR - the shared library exports exactly the API: every defined
# dynamic symbol is an ASGST_ function of asgst.h, every function declared there is
# exported, and none of the synthetic VM's is (libasgst-synthetic.so has those: all of
# asgst_synthetic.h beside the API); both carry a versioned SONAME; and the product
# (libasgst.so, libasgst.a) carries no test switch: no "ASGST_TEST_" string and no
# test-only function of impl/test_build.h, hidden ones included, while the test build
# (libasgst-test.a) has them.
set -u
BUILD=${1:?build dir}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
lib=$BUILD/lib/libasgst.so
echo "1..7"
exported=$(nm -D --defined-only "$lib" | awk '$2 ~ /^[TDBRV]$/ {print $3}' | sort)
stray=$(echo "$exported" | grep -v '^ASGST_' | grep -Ev '^(_init|_fini|_edata|_end|__bss_start)$' || true)
if [ -z "$stray" ]; then echo "ok 1 - only ASGST_ symbols are exported"
else echo "not ok 1 - internal symbols leak: $(echo $stray | head -c 300)"; fi
declared=$(grep -ohE 'ASGST_EXPORT [^;(]*\b(ASGST_[A-Za-z0-9_]+)\(' "$ROOT"/include/asgst.h \
  | grep -oE 'ASGST_[A-Za-z0-9_]+\($' | tr -d '(' | sort -u)
missing=$(comm -23 <(echo "$declared") <(echo "$exported"))
if [ -z "$missing" ]; then echo "ok 2 - all $(echo "$declared" | wc -l) declared functions are exported"
else echo "not ok 2 - declared but not exported: $(echo $missing)"; fi

# declared FILE: the functions FILE declares for export.
declared_in() {
  grep -ohE 'ASGST_EXPORT [^;(]*\b(ASGST_[A-Za-z0-9_]+)\(' "$1" | grep -oE 'ASGST_[A-Za-z0-9_]+\($' |
    tr -d '(' | sort -u
}
synth=$(echo "$exported" | grep -c '^ASGST_Synth')
if [ "$synth" = 0 ]; then echo "ok 3 - the synthetic VM is not in libasgst.so"
else echo "not ok 3 - libasgst.so exports $synth ASGST_Synth symbols"; fi
slib=$BUILD/lib/libasgst-synthetic.so
s_exported=$(nm -D --defined-only "$slib" | awk '$2 ~ /^[TDBRV]$/ {print $3}' | sort)
s_missing=$(comm -23 <({ declared_in "$ROOT"/include/asgst.h; declared_in "$ROOT"/include/asgst_synthetic.h; } |
  sort -u) <(echo "$s_exported"))
if [ -z "$s_missing" ]; then echo "ok 4 - libasgst-synthetic.so exports the API and the synthetic VM"
else echo "not ok 4 - libasgst-synthetic.so lacks: $(echo $s_missing)"; fi
sonames=$(for f in "$lib" "$slib"; do readelf -d "$f" | grep -oE 'Library soname: \[[^]]*\]'; done | tr '\n' ' ')
if echo "$sonames" | grep -q 'libasgst.so.0\].*libasgst-synthetic.so.0\]'; then
  echo "ok 5 - versioned SONAMEs: $sonames"
else echo "not ok 5 - SONAMEs: $sonames"; fi

# Test-only traces in a library file: ASGST_TEST_ strings plus symbols (any binding) of
# the functions impl/test_build.h declares.
test_fns=$(grep -oE '\basgst__[a-z0-9_]+\(' "$ROOT"/impl/test_build.h | tr -d '(' | sort -u | paste -sd'|')
traces() {
  echo $(( $(strings -a "$1" | grep -c 'ASGST_TEST_') + $(nm -A "$1" 2>/dev/null | grep -cE " ($test_fns)\$") ))
}
n=0
for f in "$lib" "$BUILD/lib/libasgst.a"; do n=$((n + $(traces "$f"))); done
if [ -n "$test_fns" ] && [ "$n" = 0 ]; then echo "ok 6 - the product carries no test switch ($test_fns)"
else echo "not ok 6 - test-only strings or symbols in the product: $n"; fi
t=$(traces "$BUILD/lib/libasgst-test.a")
if [ "$t" -gt 0 ]; then echo "ok 7 - the test build has them ($t), so check 6 can tell"
else echo "not ok 7 - no test-only traces found in libasgst-test.a: check 6 proves nothing"; fi
