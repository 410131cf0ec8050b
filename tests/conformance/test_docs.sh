#!/usr/bin/env bash
# test_docs.sh BUILD_DIR - the README and docs/ say what the repository does: the packages
# the README names are exactly those build.sh installs (its DEPS) and those the arm64
# provisioning installs on the host (HOST_TOOLS of tests/aarch64/provision.sh);
# docs/testing.md's table names build.sh's too; every repository path the README and
# docs/ name in backquotes exists. No JVM, no build needed (BUILD_DIR is not used).
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 1
n=0
check() { # check NAME EXPECTED ACTUAL: equal, else both shown
  n=$((n + 1))
  if [ "$2" = "$3" ]; then echo "ok $n - $1"
  else echo "not ok $n - $1"; diff <(echo "$2") <(echo "$3") | sed 's/^/#   /'; fi
}
words() { tr -s ' ,\n' '\n' | grep . | sort; } # one name a line, sorted
echo "1..4"

deps=$(sed -n '/^DEPS=(/,/^)/p' build.sh | grep -oE '^ *"[^:"]+:' | tr -d ' ":' | words)
host=$(sed -n '/^readonly HOST_TOOLS=(/,/)/p' tests/aarch64/provision.sh | grep -oE '"[^:"]+:' | tr -d '":' | words)
# The README's paragraph after its marker, joined into one line: its apt-get commands.
para=$(awk '/<!-- readme-test:packages -->/ { f = 1; next } f && /^$/ { exit } f' README.md | tr '\n' ' ')
apt() { echo "$para" | grep -oE '`apt-get install [^`]*`' | sed -n "${1}p" | sed 's/`//g; s/apt-get install //' | words; }
check "the README's packages are build.sh's DEPS" "$deps" "$(apt 1)"
check "the README's arm64 packages are the provisioning's HOST_TOOLS" "$host" "$(apt 2)"
table=$(sed -n '/^## What `.\/build.sh` installs/,/^## /p' docs/testing.md | grep -E '^\| [a-z]' | grep -v '^| package' |
  cut -d'|' -f2 | words)
check "docs/testing.md's package table names build.sh's DEPS" "$deps" "$table"

# Backquoted paths under the repository's top folders, globs and placeholders left aside.
paths=$(grep -ohE '`(docs|tests|include|impl|api|profiler-demo|examples|cmake|tools)/[A-Za-z0-9_./-]*`' \
  README.md docs/*.md | tr -d '`' | sort -u)
missing=$(echo "$paths" | while read -r p; do [ -e "$p" ] || echo "$p"; done)
check "every path the README and docs/ name exists ($(echo "$paths" | grep -c .) named)" "" "$missing"
