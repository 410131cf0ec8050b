#!/usr/bin/env bash
# test_fuzz.sh BUILD_DIR - 20 s of the live-JVM fuzzer (tests/fuzz/fuzz.sh) on the default
# JDK: the walk workload in every mode (deoptimization, GC, class unloading, thread churn)
# while the fuzz agent walks its threads from perturbed and random contexts, in the
# SIGPROF handler and out of thread. Checks: the JVM neither crashes nor hangs and finishes
# its work, every walk keeps the API's invariants, every error code is a documented one,
# and at least 2,000 walks a second were made (a loaded 2-core machine makes 20,000+).
# The long runs over every JDK are `./build.sh fuzz [SECONDS]`. FUZZ_TEST_SECONDS changes
# the length.
set -u
BUILD=$(cd "${1:?build dir}" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd)
FUZZ_JDKS=default exec bash "$HERE/../fuzz/fuzz.sh" "$BUILD" "${FUZZ_TEST_SECONDS:-20}"
