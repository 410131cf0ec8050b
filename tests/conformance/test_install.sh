#!/usr/bin/env bash
# test_install.sh BUILD_DIR - the library installs and links like any other (README,
# "Using the library"): installed to a private prefix, an agent built from the README's
# recipe through pkg-config, and one built through find_package(asgst), both load into
# a JVM and initialize without LD_LIBRARY_PATH; the prefix moved elsewhere still works
# (the pkg-config file finds its prefix from its own place); the conformance suite passes
# on a renamed copy of the installed library and on the synthetic VM's library, which
# also runs the example.
set -u
BUILD=$(cd "${1:?build dir}" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd)
JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/java-17-openjdk-amd64}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/asgst-install.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
unset LD_LIBRARY_PATH
n=0
check() { # check NAME CMD...: one TAP line for CMD's status
  local name=$1; shift
  n=$((n + 1))
  if "$@" >>"$WORK/log" 2>&1; then echo "ok $n - $name"; else echo "not ok $n - $name"; tail -5 "$WORK/log" | sed 's/^/# /'; fi
}
echo "1..13"
P=$WORK/prefix
check "cmake --install to a private prefix" cmake --install "$BUILD" --prefix "$P"
check "the installed library has its SONAME" bash -c "readelf -d '$P/lib/libasgst.so.0' | grep -q 'soname: \[libasgst.so.0\]'"

# pc_agent PREFIX OUT: the README's compile line, through the prefix's pkg-config file.
pc_agent() {
  local pc="PKG_CONFIG_PATH=$1/lib/pkgconfig"
  cc -shared -fPIC -std=c11 $(env "$pc" pkg-config --cflags asgst) -I"$JAVA_HOME/include" \
    -I"$JAVA_HOME/include/linux" "$HERE/install/agent.c" -o "$2" $(env "$pc" pkg-config --libs asgst)
}
# loads AGENT PREFIX: the JVM loads the agent, which initializes the library and walks,
# and the library it runs is the prefix's.
loads() {
  local out
  out=$("$JAVA_HOME/bin/java" -agentpath:"$1" -version 2>&1) || { echo "$out"; return 1; }
  echo "$out"
  echo "$out" | grep -q 'asgst agent: initialized' &&
    echo "$out" | grep -qE 'asgst agent: walk kind 1, [1-9][0-9]* frames' &&
    [ "$(realpath "$(ldd "$1" | awk '/libasgst.so.0 =>/ {print $3}')")" = \
      "$(realpath "$2/lib/libasgst.so.0")" ]
}
check "an agent builds through pkg-config" pc_agent "$P" "$WORK/agent_pc.so"
check "the pkg-config agent loads and initializes without LD_LIBRARY_PATH" loads "$WORK/agent_pc.so" "$P"
check "an agent builds through find_package(asgst)" bash -c "cmake -S '$HERE/install' -B '$WORK/cm' \
  -DCMAKE_PREFIX_PATH='$P' -DJAVA_HOME='$JAVA_HOME' && cmake --build '$WORK/cm'"
check "the find_package agent loads and initializes without LD_LIBRARY_PATH" loads "$WORK/cm/libagent.so" "$P"
# From the build tree, without installing: its pkg-config file, the same line.
check "an agent builds through the build tree's pkg-config file" pc_agent "$BUILD" "$WORK/agent_tree.so"
check "the build tree's agent loads and initializes without LD_LIBRARY_PATH" loads "$WORK/agent_tree.so" "$BUILD"
mv "$P" "$WORK/moved"
check "the prefix moved: pkg-config points at the new place" \
  bash -c "PKG_CONFIG_PATH='$WORK/moved/lib/pkgconfig' pkg-config --cflags asgst | grep -q '$WORK/moved/'"
check "the prefix moved: an agent built there loads from there" \
  bash -c "$(declare -f pc_agent loads); JAVA_HOME='$JAVA_HOME' HERE='$HERE'; pc_agent '$WORK/moved' '$WORK/agent_moved.so' && loads '$WORK/agent_moved.so' '$WORK/moved'"
cp "$WORK/moved/lib/libasgst.so.0" "$WORK/moved/lib/libprofiler-walker.so"
conf() {
  "$BUILD/bin/asgst-conformance" --impl "$WORK/moved/lib/libprofiler-walker.so" --java-home "$JAVA_HOME" \
    --work "$WORK/conf" >"$WORK/conf.out" 2>&1
  tail -1 "$WORK/conf.out"
  tail -1 "$WORK/conf.out" | grep -qE ' [0-9]+ passed, 0 failed'
}
check "the conformance suite passes on a renamed copy of the installed library" conf
echo "# $(tail -1 "$WORK/conf.out")"
# The synthetic VM's library is the whole library too: the suite passes on it.
conf_synthetic() {
  "$BUILD/bin/asgst-conformance" --impl "$WORK/moved/lib/libasgst-synthetic.so.0" --java-home "$JAVA_HOME" \
    --work "$WORK/conf2" >"$WORK/conf2.out" 2>&1
  tail -1 "$WORK/conf2.out" | grep -qE ' [0-9]+ passed, 0 failed'
}
check "the conformance suite passes on the installed libasgst-synthetic" conf_synthetic
check "the synthetic VM's library (libasgst-synthetic) runs the example" \
  bash -c "'$BUILD/bin/asgst-synthetic-walk' | grep -q 'demo.Codec.read' && ldd '$BUILD/bin/asgst-synthetic-walk' | grep -q 'libasgst-synthetic.so.0'"
