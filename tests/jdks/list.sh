#!/usr/bin/env bash
# list.sh - the JDKs other than the default one (JAVA_HOME, JDK 17) that the test suite
# runs its JVM tests on, one per line: "LABEL JAVA_HOME" or "LABEL SKIP reason".
#   - OpenJDK 21 and 25 from Debian trixie, 11 from bullseye, 8, 26, 27 and 28 (early
#     access) from sid, provisioned by provision.sh into a cache (labels jdk8 ... jdk28);
#   - the newest update of JDK 17 that the system's apt sources offer, when the installed
#     one is older (label jdk17; provision.sh says why it is skipped otherwise);
#   - every other JDK in the system's JVM directory (label jdkNN-<directory>).
# ASGST_TEST_JDKS=none lists none; ASGST_TEST_JDKS="21 25" limits what is provisioned
# (default "17 21 25 11 26 27 8 28");
# ASGST_JDK_CACHE sets the cache (default /var/cache/asgst-jdks as root).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
DEFAULT=$(readlink -f "${JAVA_HOME:-/usr/lib/jvm/java-17-openjdk-amd64}")
WANT=${ASGST_TEST_JDKS-17 21 25 11 26 27 8 28}
[ "$WANT" = none ] && exit 0

# The feature version of a JDK directory, from its release file.
major() {
  "$(dirname "${BASH_SOURCE[0]}")/feature.sh" "$1"
}

# As root, a cache every user can read (the attach test runs a JVM as another user);
# otherwise the user's own cache.
CACHE=${ASGST_JDK_CACHE:-}
if [ -z "$CACHE" ]; then
  if [ "$(id -u)" = 0 ]; then CACHE=/var/cache/asgst-jdks; else CACHE=$HOME/.cache/asgst-jdks; fi
fi
# shellcheck disable=SC2086
bash "$HERE/provision.sh" "$CACHE" $WANT 2>/dev/null | while read -r label rest; do
  echo "$label $rest"
done
seen=" $DEFAULT "
for d in /usr/lib/jvm/*; do
  [ -x "$d/bin/java" ] && [ -x "$d/bin/javac" ] || continue
  real=$(readlink -f "$d")
  case "$seen" in *" $real "*) continue ;; esac
  seen="$seen$real "
  v=$(major "$real")
  echo "jdk${v:-unknown}-$(basename "$d") $real"
done
