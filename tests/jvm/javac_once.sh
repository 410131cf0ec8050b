# javac_once.sh - sourced by the JVM test scripts (tests/jvm, tests/fuzz, profiler-demo/tests)
# that compile Java workloads. Needs $BUILD (the build directory) and $JAVA_HOME.
#
# javac_once DEST JAVAC_ARGS...: as `$JAVA_HOME/bin/javac -d DEST JAVAC_ARGS...`, but javac
# runs once per build directory, JDK feature version and input: the classes are kept in
# BUILD/java-classes/jdkV-HASH (HASH over the arguments and the content of every file they
# name) and copied into DEST on later calls. One run of the suite compiles the same few
# workloads some 25 times per JDK, each javac start 1-3 s on a busy 2-core machine; class
# files of one feature version load on every build of it. javac's own messages and exit
# status are kept (status 1 when it fails; nothing is cached then).
javac_once() {
  local dest=$1 feature key cache tmp a
  shift
  feature=$("$(dirname "${BASH_SOURCE[0]}")/../jdks/feature.sh" "$JAVA_HOME")
  # A JDK without a readable version shares its classes with no other one.
  [ -n "$feature" ] || feature=x$(printf '%s' "$JAVA_HOME" | sha1sum | cut -c1-8)
  key=$({ printf '%s\n' "$@"; for a in "$@"; do [ -f "$a" ] && cat "$a"; done; } | sha1sum | cut -c1-16)
  cache=$BUILD/java-classes/jdk$feature-$key
  if [ ! -d "$cache" ]; then
    mkdir -p "$BUILD/java-classes"
    tmp=$(mktemp -d "$BUILD/java-classes/.javac.XXXXXX") || return 1
    "$JAVA_HOME/bin/javac" -d "$tmp" "$@" || { rm -rf "$tmp"; return 1; }
    # Renamed whole, so a half-written directory is never taken for a cached one; if a
    # concurrent run renamed its copy first, that one is kept.
    mv -T "$tmp" "$cache" 2>/dev/null || rm -rf "$tmp"
  fi
  mkdir -p "$dest" && cp -R "$cache/." "$dest/"
}
