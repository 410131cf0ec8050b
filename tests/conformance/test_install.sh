#!/usr/bin/env bash
# test_install.sh BUILD_DIR - the library installs and links like any other (README,
# "Using the library"), with JAVA_HOME unset as Debian leaves it: installed to a private
# prefix, an agent built through pkg-config and one built through find_package(asgst) load
# into a JVM and initialize without LD_LIBRARY_PATH; the README's own blocks (marked
# "<!-- readme-test:NAME -->"), copied from README.md as they stand, compile, link and
# walk on a real JVM, both ways; the JDK is found as the build finds it, or configure
# stops saying what to set; the prefix moved elsewhere still works (the pkg-config file
# finds its prefix from its own place); the conformance suite passes on a renamed copy of
# the installed library and on the synthetic VM's library, which also runs the example.
set -u
BUILD=$(cd "${1:?build dir}" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
# The JVM of the test. Every compile and configure below runs without JAVA_HOME; java and
# javac on PATH are this JDK's, as /usr/bin's are Debian's default JDK's.
JDK=${JAVA_HOME:-/usr/lib/jvm/java-17-openjdk-amd64}
unset JAVA_HOME
export PATH="$JDK/bin:$PATH"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/asgst-install.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
unset LD_LIBRARY_PATH
n=0
check() { # check NAME CMD...: one TAP line for CMD's status
  local name=$1; shift
  n=$((n + 1))
  if "$@" >>"$WORK/log" 2>&1; then echo "ok $n - $name"; else echo "not ok $n - $name"; tail -5 "$WORK/log" | sed 's/^/# /'; fi
}
echo "1..19"
P=$WORK/prefix
check "cmake --install to a private prefix" cmake --install "$BUILD" --prefix "$P"
check "the installed library has its SONAME" bash -c "readelf -d '$P/lib/libasgst.so.0' | grep -q 'soname: \[libasgst.so.0\]'"

# pc_agent PREFIX OUT: the README's compile line, through the prefix's pkg-config file
# (which carries the JDK's include directories: no JAVA_HOME).
pc_agent() {
  local pc="PKG_CONFIG_PATH=$1/lib/pkgconfig"
  cc -shared -fPIC -std=c11 $(env "$pc" pkg-config --cflags asgst) \
    "$HERE/install/agent.c" -o "$2" $(env "$pc" pkg-config --libs asgst)
}
# loads AGENT PREFIX: the JVM loads the agent, which initializes the library and walks,
# and the library it runs is the prefix's.
loads() {
  local out
  out=$("$JDK/bin/java" -agentpath:"$1" -version 2>&1) || { echo "$out"; return 1; }
  echo "$out"
  echo "$out" | grep -q 'asgst agent: initialized' &&
    echo "$out" | grep -qE 'asgst agent: walk kind 1, [1-9][0-9]* frames' &&
    [ "$(realpath "$(ldd "$1" | awk '/libasgst.so.0 =>/ {print $3}')")" = \
      "$(realpath "$2/lib/libasgst.so.0")" ]
}
check "an agent builds through pkg-config" pc_agent "$P" "$WORK/agent_pc.so"
check "the pkg-config agent loads and initializes without LD_LIBRARY_PATH" loads "$WORK/agent_pc.so" "$P"
check "an agent builds through find_package(asgst)" bash -c "cmake -S '$HERE/install' -B '$WORK/cm' \
  -DCMAKE_PREFIX_PATH='$P' && cmake --build '$WORK/cm'"
check "the find_package agent loads and initializes without LD_LIBRARY_PATH" loads "$WORK/cm/libagent.so" "$P"
# From the build tree, without installing: its pkg-config file, the same line.
check "an agent builds through the build tree's pkg-config file" pc_agent "$BUILD" "$WORK/agent_tree.so"
check "the build tree's agent loads and initializes without LD_LIBRARY_PATH" loads "$WORK/agent_tree.so" "$BUILD"

# The README's blocks as they stand: its pkg-config lines, its CMakeLists.txt and its CMake
# lines, run in a directory holding its agent (examples/my_agent.c, every line of the
# README's excerpt of it checked to be the file's) and a program
# (Hello.java) with HOME at a scratch home whose ~/.local is the install the README's
# "./build.sh install "$HOME/.local"" makes (here cmake --install of BUILD_DIR: build.sh
# would build the checkout's build/ again).
readme_block() { # readme_block NAME: the fenced block after <!-- readme-test:NAME -->
  awk -v m="<!-- readme-test:$1 -->" '$0 == m { f = 1; next }
    f == 1 && /^```/ { f = 2; next } f == 2 && /^```/ { exit } f == 2 { print }' "$ROOT/README.md"
}
R=$WORK/readme
mkdir -p "$R/home" "$R/pc" "$R/cm"
cmake --install "$BUILD" --prefix "$R/home/.local" >"$R/install.log" 2>&1
for d in "$R/pc" "$R/cm"; do
  cp "$ROOT/examples/my_agent.c" "$d/"
  echo 'public class Hello { public static void main(String[] a) { System.out.println("hello"); } }' >"$d/Hello.java"
done
readme_block cmake >"$R/cm/CMakeLists.txt"
readme_block pkg-config >"$R/pc/recipe.sh"
readme_block cmake-build >"$R/cm/recipe.sh"
readme_block agent >"$R/excerpt.c"
check "README.md's marked blocks are there (pkg-config, cmake, cmake-build, agent)" \
  bash -c "for f in '$R'/pc/recipe.sh '$R'/cm/CMakeLists.txt '$R'/cm/recipe.sh '$R'/excerpt.c; do grep -q . \"\$f\" || exit 1; done"
# excerpt_is_the_file: every line of the README's excerpt is a line of examples/my_agent.c.
excerpt_is_the_file() {
  local line bad=0
  while IFS= read -r line; do
    [ -z "$line" ] && continue
    grep -Fxq -- "$line" "$ROOT/examples/my_agent.c" || { echo "not in examples/my_agent.c: $line"; bad=1; }
  done <"$R/excerpt.c"
  return $bad
}
check "every line of the README's agent excerpt is in examples/my_agent.c" excerpt_is_the_file
# walks OUT: the README's agent printed the walk it kept, with Java frames.
walks() {
  cat "$1"
  grep -qE '^my_agent: [1-9][0-9]* frames' "$1" && grep -qE '^  [A-Za-z0-9_/$]+\.[^ ]+ bci -?[0-9]+ tier' "$1"
}
if "$JDK/bin/java" -version 2>&1 | grep -q 'version "1\.8'; then
  # The README runs Hello.java as a source file, which JDK 8's launcher cannot.
  for name in "the README's pkg-config recipe compiles, links and walks" "the README's CMake example compiles, links and walks"; do
    n=$((n + 1)); echo "ok $n - $name # SKIP JDK 8 has no source-file launcher (java Hello.java)"
  done
else
  check "the README's pkg-config recipe compiles, links and walks (JAVA_HOME unset)" \
    bash -c "cd '$R/pc' && HOME='$R/home' bash -e recipe.sh >out.txt 2>&1; $(declare -f walks); walks out.txt"
  check "the README's CMake example compiles, links and walks (JAVA_HOME unset)" \
    bash -c "cd '$R/cm' && HOME='$R/home' bash -e recipe.sh >out.txt 2>&1; $(declare -f walks); walks out.txt"
fi
# The build's rule (cmake/asgstJdk.cmake): with JAVA_HOME unset and no other JDK named, the
# JDK whose javac is on PATH; without one, a single line saying what to set.
jdk_rule() { # jdk_rule PATH: what asgst_java_home answers with that PATH
  printf 'include("%s/cmake/asgstJdk.cmake")\nasgst_java_home(h why)\nmessage("home=${h} why=${why}")\n' \
    "$ROOT" >"$WORK/rule.cmake"
  env PATH="$1" "$(command -v cmake)" -P "$WORK/rule.cmake" 2>&1
}
# The home the rule should name: two levels above where javac's links end.
javac_home=$(dirname "$(dirname "$(realpath "$(command -v javac)")")")
check "JAVA_HOME unset: the JDK is the one whose javac is on PATH ($javac_home)" \
  bash -c "$(declare -f jdk_rule); ROOT='$ROOT' WORK='$WORK'; jdk_rule '$PATH' | grep -qx 'home=$javac_home why='"
check "no JDK at all: configure stops with one line naming what to set" \
  bash -c "JAVA_HOME='$WORK/no-jdk' cmake -S '$HERE/install' -B '$WORK/cm-nojdk' -DCMAKE_PREFIX_PATH='$P' >'$WORK/nojdk.out' 2>&1;
    s=\$?; cat '$WORK/nojdk.out'; [ \$s != 0 ] && tr -s ' \n' ' ' <'$WORK/nojdk.out' | grep -q 'asgst: JAVA_HOME=.* has no include/jni.h: set JAVA_HOME to a JDK' &&
    $(declare -f jdk_rule); ROOT='$ROOT' WORK='$WORK'; jdk_rule /nonexistent | grep -q 'why=asgst: no JDK found .*: set JAVA_HOME to a JDK'"
mv "$P" "$WORK/moved"
check "the prefix moved: pkg-config points at the new place" \
  bash -c "PKG_CONFIG_PATH='$WORK/moved/lib/pkgconfig' pkg-config --cflags asgst | grep -q '$WORK/moved/'"
check "the prefix moved: an agent built there loads from there" \
  bash -c "$(declare -f pc_agent loads); JDK='$JDK' HERE='$HERE'; pc_agent '$WORK/moved' '$WORK/agent_moved.so' && loads '$WORK/agent_moved.so' '$WORK/moved'"
cp "$WORK/moved/lib/libasgst.so.0" "$WORK/moved/lib/libprofiler-walker.so"
conf() {
  "$BUILD/bin/asgst-conformance" --impl "$WORK/moved/lib/libprofiler-walker.so" --java-home "$JDK" \
    --work "$WORK/conf" >"$WORK/conf.out" 2>&1
  tail -1 "$WORK/conf.out"
  tail -1 "$WORK/conf.out" | grep -qE ' [0-9]+ passed, 0 failed'
}
check "the conformance suite passes on a renamed copy of the installed library" conf
echo "# $(tail -1 "$WORK/conf.out")"
# The synthetic VM's library is the whole library too: the suite passes on it.
conf_synthetic() {
  "$BUILD/bin/asgst-conformance" --impl "$WORK/moved/lib/libasgst-synthetic.so.0" --java-home "$JDK" \
    --work "$WORK/conf2" >"$WORK/conf2.out" 2>&1
  tail -1 "$WORK/conf2.out" | grep -qE ' [0-9]+ passed, 0 failed'
}
check "the conformance suite passes on the installed libasgst-synthetic" conf_synthetic
check "the synthetic VM's library (libasgst-synthetic) runs the example" \
  bash -c "'$BUILD/bin/asgst-synthetic-walk' | grep -q 'demo.Codec.read' && ldd '$BUILD/bin/asgst-synthetic-walk' | grep -q 'libasgst-synthetic.so.0'"
