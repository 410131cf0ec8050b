#!/usr/bin/env bash
# list.sh - the JDKs other than the default one (JAVA_HOME, JDK 17) that the test suite
# runs its JVM tests on, one per line: "LABEL JAVA_HOME", "LABEL SKIP reason" (deliberately
# not run) or "LABEL FAIL reason" (meant to run, could not be provided: tests/run_all.sh
# counts it as a failure).
#   - OpenJDK 21 and 25 from Debian trixie, 11 from bullseye, 8, 26, 27 and 28 (early
#     access) from sid, provisioned by provision.sh into a cache (labels jdk8 ... jdk28);
#   - the newest update of JDK 17 that the system's apt sources offer, when the installed
#     one is older (label jdk17; provision.sh says why it is skipped otherwise);
#   - every other JDK in the system's JVM directory (label jdkNN-<directory>).
# Knobs (each JDK left out is listed as a SKIP naming the knob, so a run says what it left out):
#   ASGST_TEST_JDKS="21 25" provisions only these (default "17 21 25 11 26 27 8 28");
#     ASGST_TEST_JDKS=none provisions none and leaves out the system's JVM directory too;
#   ASGST_TEST_SKIP_JDKS="26 27" leaves out these feature versions (provisioned or in the
#     system's JVM directory) or exact labels (jdk25-temurin-25-jdk-amd64);
#   ASGST_JDK_CACHE sets the cache (default /var/cache/asgst-jdks as root);
#   ASGST_TEST_BREAK_JDK="26" makes that version's provisioning fail (provision.sh; a test
#     of the runner, tests/jdks/test_list.sh).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
DEFAULT=$(readlink -f "${JAVA_HOME:-/usr/lib/jvm/java-17-openjdk-amd64}")
ALL="17 21 25 11 26 27 8 28"
WANT=${ASGST_TEST_JDKS-$ALL}
OPT_OUT=${ASGST_TEST_SKIP_JDKS:-}

# The feature version of a JDK directory, from its release file.
major() {
  "$HERE/feature.sh" "$1"
}

# True when LABEL $1 of feature version $2 is named in ASGST_TEST_SKIP_JDKS.
opted_out() {
  case " $OPT_OUT " in *" $1 "* | *" $2 "*) return 0 ;; esac
  return 1
}

# The versions to provision, and a SKIP line for each default one left out.
ask=""
for v in $ALL; do
  case " $WANT " in *" $v "*) ;; *) echo "jdk$v SKIP left out by ASGST_TEST_JDKS=\"$WANT\"" ;; esac
done
for v in $WANT; do
  [ "$v" = none ] && continue
  if opted_out "jdk$v" "$v"; then
    echo "jdk$v SKIP left out by ASGST_TEST_SKIP_JDKS=\"$OPT_OUT\""
  else
    ask="$ask $v"
  fi
done

# As root, a cache every user can read (the attach test runs a JVM as another user);
# otherwise the user's own cache.
CACHE=${ASGST_JDK_CACHE:-}
if [ -z "$CACHE" ]; then
  if [ "$(id -u)" = 0 ]; then CACHE=/var/cache/asgst-jdks; else CACHE=$HOME/.cache/asgst-jdks; fi
fi
if [ -n "$ask" ]; then
  # shellcheck disable=SC2086
  out=$(bash "$HERE/provision.sh" "$CACHE" $ask 2>/dev/null)
  rc=$?
  [ -z "$out" ] || echo "$out"
  # A version provision.sh gave no line for (it died halfway) is a failure too.
  for v in $ask; do
    echo "$out" | grep -q "^jdk$v " ||
      echo "jdk$v FAIL provision.sh printed no line for it (exit status $rc; see $CACHE/provision.log)"
  done
fi

seen=" $DEFAULT "
for d in /usr/lib/jvm/*; do
  [ -x "$d/bin/java" ] && [ -x "$d/bin/javac" ] || continue
  real=$(readlink -f "$d")
  case "$seen" in *" $real "*) continue ;; esac
  seen="$seen$real "
  v=$(major "$real")
  label="jdk${v:-unknown}-$(basename "$d")"
  if [ "$WANT" = none ]; then echo "$label SKIP left out by ASGST_TEST_JDKS=\"none\""
  elif opted_out "$label" "${v:-unknown}"; then echo "$label SKIP left out by ASGST_TEST_SKIP_JDKS=\"$OPT_OUT\""
  else echo "$label $real"
  fi
done
