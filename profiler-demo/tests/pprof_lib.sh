# pprof_lib.sh - `go tool pprof` for the profiler-demo tests (sourced after lib.sh): Debian's
# golang-go, offline, with its caches in the test's work directory.
export HOME=$WORK/home GOCACHE=$WORK/gocache GOPATH=$WORK/gopath GOTOOLCHAIN=local GOPROXY=off
mkdir -p "$HOME"
have_pprof() { command -v go >/dev/null 2>&1; }
NO_PPROF="no 'go' command (Debian's golang-go; ./build.sh installs it)"
# pprof ARGS...: go tool pprof ARGS (stdout and stderr together).
pprof() { go tool pprof "$@" 2>&1; }
# pprof_total FILE INDEX: the "Total samples = N" of -top for sample type INDEX.
pprof_total() {
  pprof -top -sample_index="$2" "$1" | sed -n 's/.*Total samples = \([0-9]*\).*/\1/p'
}
