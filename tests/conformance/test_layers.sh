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
#   6. The rooms of profiler-demo/src include only rooms below them (arch/ the lowest).
#   7. No architecture #if (__x86_64__, __aarch64__) in api/, impl/ or profiler-demo/src
#      outside impl/arch/ and profiler-demo/src/arch/: shared code is neutral.
#   8. Only impl/arch/arch.h and profiler-demo/src/arch/syscall_regs.h include a
#      per-architecture header (a path naming x86_64 or aarch64), in the library, the demo
#      and the tests.
#   9. impl/arch/ includes nothing but impl/safe_read.h and impl/arch/'s own headers (and
#      system headers): it stays below every backend.
#  10. The rooms of impl/hotspot include only their own headers and the rooms below them
#      (docs/architecture.md, "impl/hotspot in rooms"); none includes the backend's top
#      files.
#  11. api/ includes only include/, its own headers and the impl interface headers that
#      docs/architecture.md names ("api/ owns the iterator").
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
echo "1..12"

check "impl/ includes nothing of api/" "$(includes impl | grep -E '"(\.\./)*api/')"
# Functions api/ defines (internal asgst__ ones and the public ASGST_ ones): the name of
# each definition, a line that starts with its type and ends in no semicolon.
api_fns=$(grep -hE '^[A-Za-z_].*\b(asgst__[a-z0-9_]+|ASGST_[A-Za-z0-9_]+)\([^;]*$' api/*.c | grep -v '^static ' \
  | perl -ne 'print "$1\n" if /\b((?:asgst__|ASGST_)\w+)\(/' | sort -u)
# impl/'s code without its comments (the preprocessor drops them, includes left alone).
impl_code=$(for f in $(find impl -name '*.[ch]'); do
  gcc -fpreprocessed -dD -E -P "$f" 2>/dev/null | sed "s|^|$f: |"
done)
# One pass over impl/'s code with every name at once (a grep a name took most of the test's
# 17 s).
calls=$(printf '%s\n' "$impl_code" | grep -E "\b($(echo $api_fns | tr ' ' '|'))\(")
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
rooms=(control sampling output fd walk symbols core arch)
bad=""
for i in "${!rooms[@]}"; do
  above=$(printf '%s|' "${rooms[@]:0:$i}")
  [ -n "$above" ] || continue
  bad+=$(includes "profiler-demo/src/${rooms[$i]}" | grep -E "#include \"(${above%|})/")
done
check "profiler-demo/src rooms include only rooms below them (${rooms[*]})" "$bad"
check "no architecture #if outside impl/arch/ and profiler-demo/src/arch/" \
  "$(grep -rnE '^[[:space:]]*#[[:space:]]*(if|elif|ifdef|ifndef)\b.*__(x86_64|aarch64|amd64|arm64)__' \
      --include='*.c' --include='*.h' api impl profiler-demo/src | grep -vE '^(impl|profiler-demo/src)/arch/')"
check "only impl/arch/arch.h and profiler-demo/src/arch/syscall_regs.h name a per-architecture header" \
  "$(includes api impl profiler-demo/src tests | grep -E '#include "[^"]*(x86_64|aarch64)' \
      | grep -vE '^(impl/arch/arch\.h|profiler-demo/src/arch/syscall_regs\.h):')"
# Each quoted include of impl/arch/, resolved from the including file's directory.
bad=""
while IFS=: read -r file line text; do
  inc=$(echo "$text" | sed -E 's/^#include "([^"]*)".*/\1/')
  target=$(realpath -m --relative-to="$ROOT" "$(dirname "$file")/$inc")
  case "$target" in impl/safe_read.h | impl/arch/*) ;; *) bad+="$file:$line: $inc"$'\n' ;; esac
done < <(includes impl/arch)
check "impl/arch/ includes only impl/safe_read.h and its own headers" "${bad%$'\n'}"

# Rooms of impl/hotspot and the rooms each may include besides its own; the top files
# (impl/hotspot/*.c, *.h) may include every room. Each include is resolved from the
# including file's folder, so `../model/x.h` and `../../safe_read.h` are told apart.
declare -A below=([queues]="walking threads model" [walking]="model" [classes]="model"
                  [threads]="model" [model]="")
bad=""
for room in "${!below[@]}"; do
  while IFS=: read -r file line text; do
    inc=$(printf '%s' "$text" | sed -E 's/^#include "([^"]+)".*/\1/')
    path=$(realpath -m --relative-to=. "$(dirname "$file")/$inc")
    case "$path" in
      impl/hotspot/*/*) r=${path#impl/hotspot/}; r=${r%%/*}
        [ "$r" = "$room" ] || [[ " ${below[$room]} " == *" $r "* ]] || bad+="$file:$line: $text (room $r)"$'\n' ;;
      impl/hotspot/*) bad+="$file:$line: $text (the backend's top)"$'\n' ;;
    esac
  done < <(includes "impl/hotspot/$room")
done
check "impl/hotspot rooms include only rooms below them (hotspot > queues > walking | classes | threads > model)" "${bad%$'\n'}"

# The impl headers api/ may include (docs/architecture.md, "api/ owns the iterator"), each
# include resolved from api/.
api_may="impl/backend.h impl/services.h impl/guard.h impl/arch/arch.h impl/stack_copy.h impl/record/record.h impl/test_build.h"
bad=""
while IFS=: read -r file line text; do
  inc=$(printf '%s' "$text" | sed -E 's/^#include "([^"]+)".*/\1/')
  path=$(realpath -m --relative-to=. "api/$inc")
  case "$path" in
    api/*) ;;
    *) in_include=$(realpath -m --relative-to=. "include/$inc")
       { [[ "$in_include" == include/* ]] && [ -f "$in_include" ]; } ||
         [[ " $api_may " == *" $path "* ]] || bad+="$file:$line: $text"$'\n' ;;
  esac
done < <(includes api)
check "api/ includes only include/, api/ and the impl headers docs/architecture.md names" "${bad%$'\n'}"
