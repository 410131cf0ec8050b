#!/usr/bin/env bash
# test_fuzz.sh BUILD_DIR - the live-JVM fuzzer as CI runs it: exactly `./build.sh fuzz 60`
# (tests/fuzz/fuzz.sh), 60 s split over the default JDK and every JDK tests/jdks/list.sh
# lists. Per JDK: the walk workload in every mode (deoptimization, GC, class unloading,
# thread churn) while the fuzz agent walks its threads from perturbed and random contexts,
# in the SIGPROF handler and out of thread (blocking and stack-copy walks). Checks: the JVM
# neither crashes nor hangs and finishes its work, every walk keeps the API's invariants,
# every error code is a documented one, and at least 2,000 walks a second were made (a
# loaded 2-core machine makes 20,000+). FUZZ_TEST_SECONDS changes the length.
set -u
BUILD=$(cd "${1:?build dir}" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd)
exec bash "$HERE/../fuzz/fuzz.sh" "$BUILD" "${FUZZ_TEST_SECONDS:-60}"
