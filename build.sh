#!/usr/bin/env bash
# build.sh - the project's one entry point.
#   ./build.sh build   configure and build everything into build/
#   ./build.sh test    build, then run every test; ends with "N passed, N failed, N skipped"
#   ./build.sh demo    build, then run the demo
#   ./build.sh bench   build, then run the benchmarks
#   ./build.sh bench two-agents  build, then only the demo profiler beside async-profiler
#                      (tests/bench/two_agents.sh; needs ASPROF_HOME)
#   ./build.sh eval    build, then compare the profiler's walk modes (signal, thread, queue)
#                      with no profiler and JFR; report in out/eval/report.html
#                      (profiler-demo/eval/eval.sh; options after `eval` go to it)
#   ./build.sh fuzz [SECONDS]  build, then fuzz the walker on live JVMs (default 60 s,
#                      split across the JDKs; exits non-zero on a crash or a failed check)
#   ./build.sh soak [MINUTES]  build, then profile a churning workload at 100 us in every
#                      profiler mode on every JDK (default 60 min; tests/soak/soak.sh)
#   ./build.sh aarch64-env  provision the arm64 sysroot (JDKs 17, 21, 25 for qemu-user, cross
#                      build files) and print its shell variables (tests/aarch64/env.sh)
#   ./build.sh build-aarch64  provision it, then cross-build everything for arm64 into
#                      build-aarch64/ (cmake/aarch64-linux-gnu.cmake); `test` does it too
#   ./build.sh test-aarch64  build-aarch64, then run the arm64 suite under qemu-user
#                      (tests/aarch64/run_suite.sh; part of `test`'s run_all.sh)
#   ./build.sh clean   remove build/ and out/
# Missing Debian build dependencies are installed when running as root; otherwise the
# exact apt-get command is printed.
set -euo pipefail
cd "$(dirname "$0")"
ROOT=$(pwd)
BUILD=$ROOT/build

# Debian packages and the command that proves each is there.
DEPS=(
  "gcc:command -v gcc"
  "g++:command -v g++"
  "make:command -v make"
  "cmake:command -v cmake"
  "pkg-config:command -v pkg-config"
  "libcmocka-dev:test -f /usr/include/cmocka.h"
  "openjdk-17-jdk-headless:test -x /usr/lib/jvm/java-17-openjdk-amd64/bin/javac"
  "python3:command -v python3"
  "patchelf:command -v patchelf" # tests/jdks: JDK 8 from sid gets its ELF interpreter and rpath
  "chromium:command -v chromium"  # the flame graph page's browser test (test_browser.sh)
  "zlib1g-dev:test -f /usr/include/zlib.h" # the demo profiler's .pb.gz output (gzip)
  "golang-go:command -v go"  # `go tool pprof` reads the .pb.gz output (profiler-demo/tests/test_pprof.sh)
  "libunwind-dev:test -f /usr/include/x86_64-linux-gnu/libunwind.h" # tests/jvm/test_native_agree.sh's agent only
  # the debug file of the installed libc, by its build id (profiler-demo/tests/test_debug_symbols.sh);
  # apt installs the libc6-dbg of the libc6 version, so an upgraded libc6 is caught too
  "libc6-dbg:test -f /usr/lib/debug/.build-id/\$(readelf -n /lib/x86_64-linux-gnu/libc.so.6 | sed -n 's|.*Build ID: \\(..\\)|\\1/|p').debug"
)

install_deps() {
  local missing=()
  for d in "${DEPS[@]}"; do
    local pkg=${d%%:*} check=${d#*:}
    eval "$check" >/dev/null 2>&1 || missing+=("$pkg")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  if [ "$(id -u)" = 0 ]; then
    echo "build.sh: installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq </dev/null
    apt-get install -y -qq "${missing[@]}" </dev/null >/dev/null
  else
    echo "build.sh: missing packages; run: sudo apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
}

# JDK 17 is the reference JVM; a JDK 25 in the system's JVM directory is used where found.
export JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/java-17-openjdk-amd64}

do_build() {
  install_deps
  cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DJAVA_HOME="$JAVA_HOME" >/dev/null
  cmake --build "$BUILD" -j"$(nproc)" 2>&1 | grep -Ev '^\[ *[0-9]+%\]|^Consolidate|^Scanning|^Built target' || true
  test "${PIPESTATUS[0]}" = 0
}

# The arm64 cross build. If the root cannot be provisioned (not root and no cache), says why
# and returns 1; the arm64 suite then reports a skip.
do_build_aarch64() {
  local env
  if ! env=$("$ROOT/tests/aarch64/env.sh"); then
    echo "build.sh: no arm64 cross build: the arm64 root could not be provisioned (tests/aarch64/env.sh)" >&2
    return 1
  fi
  eval "$env"
  cmake -S "$ROOT" -B "$BUILD-aarch64" -DCMAKE_TOOLCHAIN_FILE="$ROOT/cmake/aarch64-linux-gnu.cmake" \
    -DASGST_ARM64_SYSROOT="$ASGST_ARM64_SYSROOT" -DCMAKE_BUILD_TYPE=RelWithDebInfo --no-warn-unused-cli >/dev/null
  cmake --build "$BUILD-aarch64" -j"$(nproc)" 2>&1 | grep -Ev '^\[ *[0-9]+%\]|^Consolidate|^Scanning|^Built target' || true
  test "${PIPESTATUS[0]}" = 0
}

case "${1:-build}" in
  build) do_build ;;
  test) do_build; do_build_aarch64 || true; exec "$ROOT/tests/run_all.sh" "$BUILD" ;;
  build-aarch64) do_build_aarch64 ;;
  test-aarch64) do_build_aarch64; exec "$ROOT/tests/aarch64/run_suite.sh" "$BUILD-aarch64" ;;
  demo)
    do_build
    if [ -x "$ROOT/profiler-demo/run-demo.sh" ]; then exec "$ROOT/profiler-demo/run-demo.sh" "$BUILD"; fi
    exec "$BUILD/bin/asgst-synthetic-walk"
    ;;
  bench)
    do_build
    [ "${2:-}" = two-agents ] && exec "$ROOT/tests/bench/two_agents.sh" "$BUILD"
    exec "$ROOT/tests/bench/run_bench.sh" "$BUILD"
    ;;
  eval) do_build; shift; exec "$ROOT/profiler-demo/eval/eval.sh" --build "$BUILD" "$@" ;;
  fuzz) do_build; exec "$ROOT/tests/fuzz/fuzz.sh" "$BUILD" "${2:-60}" ;;
  soak) do_build; exec "$ROOT/tests/soak/soak.sh" "$BUILD" "${2:-60}" ;;
  memsoak) do_build; exec "$ROOT/tests/soak/memory.sh" "$BUILD" "${2:-60}" "${3:-all}" ;;
  install) do_build; cmake --install "$BUILD" --prefix "${2:-/usr/local}" | grep -v '^-- Up-to-date' ;;
  aarch64-env) exec "$ROOT/tests/aarch64/env.sh" ;;
  clean) rm -rf "$BUILD" "$BUILD-aarch64" "$ROOT/out" ;;
  *) echo "usage: $0 build|test|demo|install [PREFIX]|bench [two-agents]|eval|fuzz [SECONDS]|soak [MINUTES]|memsoak [MINUTES] [cpu|jfr|fds]|aarch64-env|build-aarch64|test-aarch64|clean" >&2; exit 2 ;;
esac
