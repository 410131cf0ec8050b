#!/usr/bin/env bash
# test_exports.sh BUILD_DIR - the shared library exports exactly the API: every defined
# dynamic symbol is an ASGST_ function of asgst.h / asgst_synthetic.h, and every function
# declared in asgst.h is exported.
set -u
BUILD=${1:?build dir}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
lib=$BUILD/lib/libasgst.so
echo "1..2"
exported=$(nm -D --defined-only "$lib" | awk '$2 ~ /^[TDBRV]$/ {print $3}' | sort)
stray=$(echo "$exported" | grep -v '^ASGST_' | grep -Ev '^(_init|_fini|_edata|_end|__bss_start)$' || true)
if [ -z "$stray" ]; then echo "ok 1 - only ASGST_ symbols are exported"
else echo "not ok 1 - internal symbols leak: $(echo $stray | head -c 300)"; fi
declared=$(grep -ohE 'ASGST_EXPORT [^;(]*\b(ASGST_[A-Za-z0-9_]+)\(' "$ROOT"/include/asgst.h \
  | grep -oE 'ASGST_[A-Za-z0-9_]+\($' | tr -d '(' | sort -u)
missing=$(comm -23 <(echo "$declared") <(echo "$exported"))
if [ -z "$missing" ]; then echo "ok 2 - all $(echo "$declared" | wc -l) declared functions are exported"
else echo "not ok 2 - declared but not exported: $(echo $missing)"; fi
