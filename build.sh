#!/usr/bin/env bash
# build.sh - the project's one entry point; `./build.sh help` lists its commands (usage()).
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
  "gdb:command -v gdb" # the stacks of a JVM that ran out its time (tests/jvm/hang_dump.sh)
  "libasm-java:test -f /usr/share/java/asm-all.jar" # ASM: the shadow-stack oracle's instrumenting agent (test_shadow_oracle.sh)
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

# usage: every command, what it does and about how long it takes on a 2-core machine.
usage() {
  cat <<'EOF'
usage: ./build.sh COMMAND [ARGS]
  build                  configure and build everything into build/ (2-4 min the first time)
  test [WORDS]           build, then run the whole suite CI runs: every JDK, arm64 under
                         qemu-user (about an hour); it ends "N passed, N failed, N skipped".
                         WORDS run a part (docs/testing.md): `quick` (default JDK only, about
                         8 min), suite names (`walk`, `fd_*`, `demo`), `jdk=25`, `arch=arm64`
  demo                   build, then profile a sample program and write flame graph, JFR,
                         pprof and the fd report into out/ (about 1 min)
  bench [WORDS]          build, then the benchmarks against their peers on every JDK
                         (docs/evaluation.md). WORDS: `walk` (the walk time budgets of the
                         shipped library only, about 1 min a JDK), `busy` (all of it beside
                         one busy loop per core), `jdk=N` (that JDK; repeatable; or
                         BENCH_JDKS="8 17"), `two-agents` (beside async-profiler, needs
                         ASPROF_HOME)
  eval [OPTIONS]         build, then compare the profiler's walk modes with no profiler and
                         JFR; report in out/eval/report.html (about 15 min)
  fuzz [SECONDS]         build, then fuzz the walker on live JVMs (default 60 s)
  soak [MINUTES]         build, then profile a churning workload at 100 us in every mode on
                         every JDK (default 60 min)
  memsoak [MIN] [cpu|jfr|fds|dlopen]  build, then the profiler left on for a long time, resident
                         memory read every 30 s (default 60 min each run)
  install [PREFIX]       build, then install library, header, pkg-config and CMake files
                         (default /usr/local; seconds)
  aarch64-env            provision the arm64 root (JDKs 17, 21, 25 for qemu-user) and print
                         its shell variables (5-10 min the first time)
  build-aarch64          provision it, then cross-build everything into build-aarch64/
  test-aarch64           build-aarch64, then only the arm64 suite under qemu-user (~5 min)
  clean                  remove build/, build-aarch64/ and out/
  help                   this list
EOF
}

# wants_arm64 WORDS...: false when test's words leave arm64 out (quick, arch=x86_64).
wants_arm64() {
  local w
  for w in "$@"; do
    case "$w" in quick | arch=x86_64) return 1 ;; esac
  done
  return 0
}

case "${1:-build}" in
  build) do_build; [ $# -gt 0 ] || echo "build.sh: built into build/ (./build.sh help lists the commands)" ;;
  help | -h | --help) usage ;;
  test)
    shift
    do_build
    if wants_arm64 "$@"; then do_build_aarch64 || true; fi
    exec "$ROOT/tests/run_all.sh" "$BUILD" "$@"
    ;;
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
    shift
    exec "$ROOT/tests/bench/run_bench.sh" "$BUILD" "$@"
    ;;
  eval) do_build; shift; exec "$ROOT/profiler-demo/eval/eval.sh" --build "$BUILD" "$@" ;;
  fuzz) do_build; exec "$ROOT/tests/fuzz/fuzz.sh" "$BUILD" "${2:-60}" ;;
  soak) do_build; exec "$ROOT/tests/soak/soak.sh" "$BUILD" "${2:-60}" ;;
  memsoak) do_build; exec "$ROOT/tests/soak/memory.sh" "$BUILD" "${2:-60}" "${3:-all}" ;;
  install) do_build; cmake --install "$BUILD" --prefix "${2:-/usr/local}" | grep -v '^-- Up-to-date' ;;
  aarch64-env) exec "$ROOT/tests/aarch64/env.sh" ;;
  clean) rm -rf "$BUILD" "$BUILD-aarch64" "$ROOT/out" ;;
  *) echo "build.sh: unknown command '$1'" >&2; usage >&2; exit 2 ;;
esac
