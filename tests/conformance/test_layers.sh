#!/usr/bin/env bash
# test_layers.sh BUILD_DIR - the layers of docs/architecture.md, checked in the
# sources: every #include and every call between layers points down.
#   1. impl/ includes nothing of api/ and calls no function api/ defines (it reaches api/
#      only through the table of impl/services.h).
#   2. api/ includes no backend (impl/hotspot/, impl/synthetic/): it knows no VM.
#   3. Neither api/ nor impl/ includes anything of the profiler, the tools or the examples.
#   4. The backends do not include each other.
#   5. profiler-demo/src and examples/ use the library only through include/; tools/ also
#      through the recording format (impl/record/format.h).
#   6. The rooms of profiler-demo/src include only rooms below them.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 1
n=0
check() { # check NAME OFFENDING-LINES
  n=$((n + 1))
  if [ -z "$2" ]; then echo "ok $n - $1"
  else echo "not ok $n - $1"; echo "$2" | head -20 | sed 's/^/#   /'; fi
}
includes() { grep -rnE '^#include "' --include='*.c' --include='*.h' "$@" 2>/dev/null; }
echo "1..7"

check "impl/ includes nothing of api/" "$(includes impl | grep -E '"(\.\./)*api/')"
# Functions api/ defines (internal asgst__ ones and the public ASGST_ ones): the name of
# each definition, a line that starts with its type and ends in no semicolon.
api_fns=$(grep -hE '^[A-Za-z_].*\b(asgst__[a-z0-9_]+|ASGST_[A-Za-z0-9_]+)\([^;]*$' api/*.c | grep -v '^static ' \
  | perl -ne 'print "$1\n" if /\b((?:asgst__|ASGST_)\w+)\(/' | sort -u)
# impl/'s code without its comments (the preprocessor drops them, includes left alone).
impl_code=$(for f in $(find impl -name '*.[ch]'); do
  gcc -fpreprocessed -dD -E -P "$f" 2>/dev/null | sed "s|^|$f: |"
done)
calls=$(for f in $api_fns; do echo "$impl_code" | grep -E "\b$f\(" | sed "s/^/$f in /"; done)
check "impl/ calls no function of api/ ($(echo "$api_fns" | wc -l) checked)" "$calls"
check "api/ includes no backend" "$(includes api | grep -E 'impl/(hotspot|synthetic)/')"
check "api/ and impl/ include nothing of the profiler, tools or examples" \
  "$(includes api impl | grep -E 'profiler-demo|tools/|examples/')"
check "the backends do not include each other" \
  "$(includes impl/hotspot | grep -E 'synthetic/'; includes impl/synthetic | grep -E 'hotspot/')"
check "the profiler, tools and examples use the library through include/ (and the recording format)" \
  "$(includes profiler-demo/src examples tools | grep -E '"(\.\./)*(api|impl)/' | grep -v '^tools/[^:]*:[0-9]*:#include "impl/record/format.h"')"
# Rooms of profiler-demo/src from the top floor down; a room may include only itself and
# the rooms after it.
rooms=(control sampling output fd walk symbols core)
bad=""
for i in "${!rooms[@]}"; do
  above=$(printf '%s|' "${rooms[@]:0:$i}")
  [ -n "$above" ] || continue
  bad+=$(includes "profiler-demo/src/${rooms[$i]}" | grep -E "#include \"(${above%|})/")
done
check "profiler-demo/src rooms include only rooms below them (${rooms[*]})" "$bad"
