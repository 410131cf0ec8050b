#!/usr/bin/env bash
# provision.sh [CACHE_DIR] [VERSION ...] - OpenJDKs from Debian suites (trixie, bullseye, sid) for
# the JVM tests on a Debian 12 (bookworm) machine, without installing anything system-wide;
# for a version the host's own release carries (17), its newest update (provision_host_jdk).
#
# Each JDK is downloaded with apt (a private sources list and state, the system's apt state
# untouched), unpacked with dpkg-deb into CACHE_DIR, and made runnable on bookworm: trixie's
# binaries need trixie's glibc, so the JDK's executables are replaced by small scripts that
# run the real ones through trixie's own glibc loader. The result is a directory usable as
# JAVA_HOME (bin/java, bin/javac, include/jni.h, lib/server/libjvm.so, ...).
#
# Prints one line per version on stdout: "jdkNN DIR", "jdkNN SKIP reason" (deliberately not
# provided: the host's JDK is the newest update already, or the machine is not amd64) or
# "jdkNN FAIL reason" (it should have been provided and could not be); progress goes to
# stderr, tool output to CACHE_DIR/provision.log. Exits 0 unless something unexpected failed.
# ASGST_TEST_BREAK_JDK="26 ..." makes those versions fail on purpose (a test of the callers).
# A JDK already provisioned is reused as it is (the cache is never refreshed: delete
# CACHE_DIR/jdkNN to fetch trixie's current build again). See README.md beside this file.
set -euo pipefail
set -E

# Reports where an unexpected failure happened (the ERR trap).
on_error() {
  printf 'provision: unexpected failure at line %s: %s\n' "$1" "$2" >&2
}
trap 'on_error "$LINENO" "$BASH_COMMAND"' ERR

readonly ARCH=amd64
readonly TRIPLET=x86_64-linux-gnu
readonly LOADER=ld-linux-x86-64.so.2
readonly DEFAULT_VERSIONS=(21 25)
SUITE=""                 # the Debian suite of the version being provisioned (suite_of)
readonly PRINTED_RC=97   # a provisioning step's exit status for "SKIP or FAIL line printed"

CACHE=""                 # the cache directory, absolute
VERSIONS=()              # the JDK feature versions asked for
LOG=""                   # where tool output goes
RUN_ID=$$-$(date +%s%N)  # tells this run's apt state apart from an earlier run's
JDK_V=""                 # the version being provisioned (for skip's message)
EXIT_CODE=0

# Progress and diagnostics, on stderr.
log() {
  printf 'provision: %s\n' "$*" >&2
}

# Ends the current provisioning step (a subshell) with "jdkNN SKIP reason" on stdout: the
# version is deliberately not provided (nothing is wrong).
skip() {
  printf 'jdk%s SKIP %s\n' "$JDK_V" "$*"
  exit "$PRINTED_RC"
}

# Ends the current provisioning step (a subshell) with "jdkNN FAIL reason" on stdout: the
# version should have been provided and could not be (the test suite counts it as a failure).
fail() {
  printf 'jdk%s FAIL %s\n' "$JDK_V" "$*"
  exit "$PRINTED_RC"
}

# A provisioning made to fail on purpose, for version $1 named in ASGST_TEST_BREAK_JDK:
# proves that the callers count a JDK that could not be provided (tests/jdks/test_list.sh).
broken_on_purpose() {
  JDK_V=$1
  fail "provisioning made to fail on purpose (ASGST_TEST_BREAK_JDK=\"$ASGST_TEST_BREAK_JDK\")"
}

# Runs a command with its output appended to the log; its exit status is the command's.
quietly() {
  "$@" >>"$LOG" 2>&1
}

# Prints the usage text on stderr and exits with status 2.
usage() {
  cat >&2 <<'EOF'
usage: provision.sh [CACHE_DIR] [VERSION ...]
  CACHE_DIR  where JDKs are kept (default: $HOME/.cache/asgst-jdks)
  VERSION    JDK feature versions to provide (default: 21 25)
Prints "jdkNN JAVA_HOME", "jdkNN SKIP reason" or "jdkNN FAIL reason" for each version.
EOF
  exit 2
}

# Reads the arguments into CACHE and VERSIONS; a first argument of digits only is a version.
parse_args() {
  if [ $# -gt 0 ] && ! [[ $1 =~ ^[0-9]+$ ]]; then
    case $1 in -h|--help) usage ;; esac
    CACHE=$1
    shift
  fi
  if [ -z "$CACHE" ]; then
    [ -n "${HOME:-}" ] || { log "HOME is not set: give CACHE_DIR"; usage; }
    CACHE=$HOME/.cache/asgst-jdks
  fi
  local v
  for v in "$@"; do
    [[ $v =~ ^[0-9]+$ ]] || { log "not a JDK version: $v"; usage; }
    VERSIONS+=("$v")
  done
  [ ${#VERSIONS[@]} -gt 0 ] || VERSIONS=("${DEFAULT_VERSIONS[@]}")
  mkdir -p "$CACHE"
  CACHE=$(cd "$CACHE" && pwd -P)
  # The path is written into generated shell scripts between single quotes.
  case $CACHE in *"'"*) log "CACHE_DIR must not contain a single quote: $CACHE"; exit 2 ;; esac
  LOG=$CACHE/provision.log
}

# Prints "SKIP reason" or "FAIL reason" when this machine cannot run the recipe at all,
# nothing when it can. Another architecture is a skip (the JDKs are amd64 builds; the arm64
# suite has its own root); a missing tool on amd64 is a failure.
host_problem() {
  local arch tool
  arch=$(dpkg --print-architecture 2>/dev/null || true)
  if [ "$arch" != "$ARCH" ]; then
    echo "SKIP only $ARCH is supported (this machine: ${arch:-not Debian})"
    return
  fi
  for tool in apt-get apt-cache dpkg-deb flock realpath timeout; do
    command -v "$tool" >/dev/null || { echo "FAIL $tool is missing"; return; }
  done
}

# Paths of one JDK in the cache.
jdk_dir() { echo "$CACHE/jdk$1"; }
jdk_home() { echo "$CACHE/jdk$1/home"; }
jdk_stamp() { echo "$CACHE/jdk$1/.provisioned"; }
libc_root() { echo "$CACHE/libc-$SUITE"; }
libc_dir() { echo "$(libc_root)/usr/lib/$TRIPLET"; }

# The Debian suite that carries JDK $1 and sets SUITE: 11 from bullseye (older than the host,
# so it runs on the host's glibc), 8 and 26 and newer from sid, the others from trixie.
suite_of() {
  case $1 in
    11) SUITE=bullseye ;;
    8 | 2[6-9] | [3-9][0-9]) SUITE=sid ;;
    *) SUITE=trixie ;;
  esac
}

# True when the suite's binaries need the suite's own glibc (newer than the host's).
needs_libc() { [ "$SUITE" != bullseye ]; }

# True when JDK $1 was fully provisioned by an earlier run (its stamp is written last).
jdk_ready() {
  suite_of "$1"
  [ -f "$(jdk_stamp "$1")" ] && [ -x "$(jdk_home "$1")/bin/java" ] || return 1
  [ "$1" != 8 ] || [ -f "$(jdk_home "$1")/release" ] || return 1 # made by provision_jdk
  ! needs_libc || { [ -f "$(libc_root)/.provisioned" ] && [ -x "$(libc_dir)/$LOADER" ]; }
}

# Prints the host's Debian archive source as two lines, its URIs and its keyring file, taken
# from the first deb822 stanza (or one-line entry) for the host's own release.
host_source() {
  local codename
  # shellcheck source=/dev/null
  codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")
  if [ -f /etc/apt/sources.list.d/debian.sources ]; then
    awk -v suite="$codename" '
      function flush() {
        if (!done && types ~ /(^| )deb( |$)/ && (" " suites " ") ~ (" " suite " ") && uris != "") {
          print uris; print signed; done = 1
        }
        types = suites = uris = signed = ""; field = ""
      }
      /^[ \t]*$/ { flush(); next }
      /^#/ { next }
      /^[ \t]/ { next }   # continuation lines (an inline key) are not used
      {
        field = $1; sub(/:$/, "", field); value = $0; sub(/^[^:]*:[ \t]*/, "", value)
        if (field == "Types") types = value
        else if (field == "Suites") suites = value
        else if (field == "URIs") uris = value
        else if (field == "Signed-By") signed = value
      }
      END { flush() }' /etc/apt/sources.list.d/debian.sources
  elif [ -f /etc/apt/sources.list ]; then
    awk -v suite="$codename" '
      $1 == "deb" {
        signed = ""; i = 2
        if ($2 ~ /^\[/) {
          for (; i <= NF; i++) {
            if ($i ~ /^signed-by=/) { signed = $i; sub(/^signed-by=/, "", signed); sub(/\]$/, "", signed) }
            if ($i ~ /\]$/) { i++; break }
          }
        }
        if ($(i + 1) == suite) { print $i; print signed; exit }
      }' /etc/apt/sources.list
  fi
}

# Runs apt-get or apt-cache ($1) on the private trixie configuration kept in CACHE/apt: its
# own sources, lists, package cache and an empty dpkg status, no pinning from the system.
apt_private() {
  local tool=$1 apt=$CACHE/apt-$SUITE
  shift
  "$tool" -q \
    -o Dir::Etc::SourceList=/dev/null \
    -o Dir::Etc::SourceParts="$apt/sources.list.d" \
    -o Dir::Etc::Preferences=/dev/null \
    -o Dir::Etc::PreferencesParts="$apt/preferences.d" \
    -o Dir::State="$apt/state" \
    -o Dir::State::Lists="$apt/lists" \
    -o Dir::State::status=/dev/null \
    -o Dir::Cache="$apt/cache" \
    -o Acquire::Languages=none \
    -o APT::Sandbox::User=root \
    "$@"
}

# Writes the private sources list for trixie and runs apt-get update, once per run: later
# steps of the same run find the outcome (ok or a skip reason) in CACHE/apt/run-state.
prepare_apt() {
  local apt=$CACHE/apt-$SUITE state line uris keyring
  state=$apt/run-state
  if [ -f "$state" ] && read -r line <"$state" && [ "${line%% *}" = "$RUN_ID" ]; then
    line=${line#* }
    [ "$line" = ok ] && return 0
    fail "$line"
  fi
  mkdir -p "$apt/sources.list.d" "$apt/preferences.d" "$apt/state" "$apt/lists/partial" \
    "$apt/cache/archives/partial"
  { read -r uris && read -r keyring; } < <(host_source; echo; echo) || true
  if [ -z "$uris" ]; then
    echo "$RUN_ID no Debian archive found in the system's apt sources" >"$state"
    fail "no Debian archive found in the system's apt sources"
  fi
  # An inline key or no Signed-By at all: Debian's archive keyring (it holds trixie's keys).
  case $keyring in /*) ;; *) keyring=/usr/share/keyrings/debian-archive-keyring.gpg ;; esac
  cat >"$apt/sources.list.d/$SUITE.sources" <<EOF
Types: deb
URIs: $uris
Suites: $SUITE
Components: main
Architectures: $ARCH
Signed-By: $keyring
EOF
  log "apt-get update for $SUITE (private lists in $apt)"
  if ! quietly apt_private apt-get update --error-on=any; then
    echo "$RUN_ID apt-get update for $SUITE failed (see $LOG)" >"$state"
    fail "apt-get update for $SUITE failed (see $LOG)"
  fi
  echo "$RUN_ID ok" >"$state"
}

# Downloads the named packages from trixie into the new directory $1.
download() {
  local dir=$1 pkg
  shift
  for pkg in "$@"; do
    apt_private apt-cache show "$pkg" >/dev/null 2>&1 || fail "$SUITE has no package $pkg"
  done
  rm -rf "$dir"
  mkdir -p "$dir"
  log "downloading $* from $SUITE"
  (cd "$dir" && quietly apt_private apt-get download "$@") || fail "downloading $* failed (see $LOG)"
}

# Makes CACHE/libc-SUITE: the suite's libc6, libgcc-s1 and libstdc++6 unpacked, whose
# loader runs that suite's JDKs (sid's libjvm also wants a libstdc++ newer than the host's).
# Kept once per suite.
ensure_libc() {
  local root tmp=$CACHE/libc.tmp debs=$CACHE/libc.debs version deb
  root=$(libc_root)
  [ -f "$root/.provisioned" ] && [ -x "$(libc_dir)/$LOADER" ] && return 0
  prepare_apt
  download "$debs" libc6 libgcc-s1 libstdc++6
  rm -rf "$tmp" "$root"
  mkdir -p "$tmp"
  for deb in "$debs"/*.deb; do dpkg-deb -x "$deb" "$tmp"; done
  version=$(dpkg-deb -f "$debs"/libc6_*.deb Version)
  [ -x "$tmp/usr/lib/$TRIPLET/$LOADER" ] || fail "libc6 from $SUITE has no $LOADER"
  echo "libc6 $version" >"$tmp/.provisioned"
  mv "$tmp" "$root"
  rm -rf "$debs"
  log "$SUITE libc6 $version in $root"
}

# Adds the suite's libc6-dbg, of exactly the version of its libc6, to CACHE/libc-SUITE: the
# separate debug files (by build id, under usr/lib/debug of that root) that name glibc's
# internal functions, such as __nscd_getai, in the demo profiler's C frames (it looks in the
# library's own root too). Once per suite: CACHE/libc-SUITE/.debug records the outcome, and
# a suite that no longer carries that version is recorded as such rather than asked again.
ensure_libc_debug() {
  local root version tmp=$CACHE/libc-debug.tmp
  root=$(libc_root)
  [ -f "$root/.provisioned" ] && [ ! -f "$root/.debug" ] || return 0
  version=$(sed -n 's/^libc6 //p' "$root/.provisioned")
  echo "none: libc6-dbg $version could not be had from $SUITE (see $LOG)" >"$root/.debug"
  prepare_apt
  download "$tmp" "libc6-dbg=$version"
  dpkg-deb -x "$tmp"/libc6-dbg_*.deb "$root"
  rm -rf "$tmp"
  echo "libc6-dbg $version" >"$root/.debug"
  log "$SUITE libc6-dbg $version in $root"
}

# Re-points the absolute symlinks of an unpacked tree $1 (into /etc, ...): to the same file
# in the tree when the packages ship it, to the system's file when only the system has it
# (the cacerts that ca-certificates-java generates), and removes those that lead nowhere.
fix_symlinks() {
  local root=$1 link target
  find "$root" -type l -lname '/*' -print0 | while IFS= read -r -d '' link; do
    target=$(readlink "$link")
    if [ -e "$root$target" ] || [ -L "$root$target" ]; then
      ln -sfn "$(realpath -s -m --relative-to="$(dirname "$link")" "$root$target")" "$link"
    elif [ ! -e "$target" ]; then
      rm -f "$link"
    fi
  done
}

# True when file $1 is an ELF object.
is_elf() {
  [ -f "$1" ] && [ "$(LC_ALL=C head -c 4 "$1" | od -An -c | tr -d ' ')" = '177ELF' ]
}

# Writes the script $1 that runs the trixie executable $2 through trixie's loader, called by
# the symlink $3 (named like the program, so that the process has the program's name in ps
# and /proc/PID/comm, not the loader's), with trixie's libc first in the library path (then
# the caller's LD_LIBRARY_PATH, then the system's libraries: zlib, libstdc++ of bookworm
# serve the JDK well). --argv0 keeps the script's own path as the program name the JDK
# sees. $4, for a launcher, is its JVM's directory: see launcher_env.
write_wrapper() {
  local script=$1 real=$2 loader=$3 jvm_dir=${4:-}
  ln -sfn "$(libc_dir)/$LOADER" "$loader"
  cat >"$script" <<EOF
#!/bin/sh
# Made by tests/jdks/provision.sh: Debian $SUITE's ${script##*/} needs $SUITE's glibc, so it runs
# through that glibc's own loader (the system's loader and libraries are left as they are),
# called by a link named like the program, which names the process so.
EOF
  [ -z "$jvm_dir" ] || launcher_env "$jvm_dir" >>"$script"
  cat >>"$script" <<EOF
libc='$(libc_dir)'
exec '$loader' --library-path "\$libc\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}" \\
  --argv0 "\$0" '$real' "\$@"
EOF
  chmod 755 "$script"
}

# Prints the wrapper's line for a launcher whose JVM is in directory $1. When LD_LIBRARY_PATH
# names a directory holding a libjvm.so, the launcher re-executes itself with its own JVM's
# directory put first; through the loader that fails (/proc/self/exe is the loader, which
# takes the first argument for the program). The wrapper puts the directory first itself,
# as the re-execution would have, and the launcher then has no reason to re-execute.
launcher_env() {
  printf '%s\n' "[ -z \"\${LD_LIBRARY_PATH:-}\" ] || export LD_LIBRARY_PATH='$1':\"\$LD_LIBRARY_PATH\""
}

# Replaces the executables of JDK $1 by wrappers, in place, so that the JDK is consistent
# with itself (a JVM that starts java.home/bin/java or lib/jspawnhelper gets a wrapper too);
# the loader's links go to directory $2. The real launchers move to bin.real/, where their
# RPATH $ORIGIN/../lib still finds lib/libjli.so. The launcher finds its JDK from
# libjli.so's path (dladdr), not /proc/self/exe (the loader).
wrap_executables() {
  local jdk=$1 loaders=$2 exe name
  mkdir -p "$jdk/bin.real" "$loaders"
  for exe in "$jdk"/bin/*; do
    is_elf "$exe" || continue
    name=${exe##*/}
    mv "$exe" "$jdk/bin.real/"
    write_wrapper "$exe" "$jdk/bin.real/$name" "$loaders/$name" "$jdk/lib/server"
  done
  # ProcessBuilder starts children through lib/jspawnhelper, a trixie executable as well.
  if is_elf "$jdk/lib/jspawnhelper"; then
    mv "$jdk/lib/jspawnhelper" "$jdk/lib/jspawnhelper.real"
    write_wrapper "$jdk/lib/jspawnhelper" "$jdk/lib/jspawnhelper.real" "$loaders/jspawnhelper"
  fi
}

# Checks that JAVA_HOME $1 works: the files the tests use, java -version, javac compiling a
# class, and java running it with diagnostic options and starting a child process.
smoke_test() {
  local home=$1 v=$2 tmp out
  local f jvm=lib/server/libjvm.so
  [ "$v" != 8 ] || jvm=jre/lib/$ARCH/server/libjvm.so
  for f in bin/java bin/javac include/jni.h "$jvm"; do
    [ -e "$home/$f" ] || fail "the JDK has no $f"
  done
  quietly timeout 120 "$home/bin/java" -version || fail "java -version fails (see $LOG)"
  tmp=$(mktemp -d)
  cat >"$tmp/Smoke.java" <<'EOF'
public class Smoke {
    public static void main(String[] args) throws Exception {
        int child = new ProcessBuilder("true").start().waitFor();
        String v = System.getProperty("java.specification.version");
        System.out.println("smoke " + v.replaceFirst("^1[.]", "") + " child " + child);
    }
}
EOF
  if ! quietly timeout 300 "$home/bin/javac" -d "$tmp" "$tmp/Smoke.java"; then
    rm -rf "$tmp"
    fail "javac fails (see $LOG)"
  fi
  out=$(timeout 120 "$home/bin/java" -XX:+UnlockDiagnosticVMOptions -XX:+DebugNonSafepoints \
    -cp "$tmp" Smoke 2>>"$LOG" || true)
  rm -rf "$tmp"
  [ "$out" = "smoke $v child 0" ] || fail "a compiled class does not run as expected (see $LOG)"
}

# Gives every ELF executable of JDK 8 ($1) the suite's loader as its interpreter and the
# suite's libraries first in its RPATH. JDK 8's launcher finds its home from /proc/self/exe,
# so it cannot run through the loader as a wrapper (it then looks beside the loader and
# fails: "could not find libjava.so"). The executables' RPATH (not RUNPATH) also serves the
# libraries they load, libjvm.so included. Needs patchelf.
patch_executables() {
  local jdk=$1 exe rpath
  command -v patchelf >/dev/null || fail "patchelf is missing (apt-get install patchelf)"
  while IFS= read -r -d '' exe; do
    is_elf "$exe" || continue
    patchelf --print-interpreter "$exe" >/dev/null 2>&1 || continue # a library
    rpath=$(patchelf --print-rpath "$exe")
    patchelf --set-interpreter "$(libc_dir)/$LOADER" \
      --force-rpath --set-rpath "$(libc_dir)${rpath:+:$rpath}" "$exe"
  done < <(find "$jdk/bin" "$jdk/jre/bin" "$jdk/jre/lib/$ARCH" -maxdepth 1 -type f -print0)
}

# Provisions JDK $1 into CACHE/jdkNN: downloads and unpacks the suite's openjdk-NN-jre-headless
# and -jdk-headless, repairs the tree, makes its executables run here (nothing to do for an
# older suite; JDK 8 patched; the others wrapped), tests it, and stamps it.
provision_jdk() {
  local v=$1 dir root jdk debs pkgs version
  JDK_V=$v
  suite_of "$v"
  dir=$(jdk_dir "$v")
  root=$dir/root
  debs=$dir/debs
  jdk=$root/usr/lib/jvm/java-$v-openjdk-$ARCH
  prepare_apt
  rm -rf "$dir"
  pkgs=("openjdk-$v-jre-headless" "openjdk-$v-jdk-headless")
  download "$debs" "${pkgs[@]}"
  ! needs_libc || ensure_libc
  mkdir -p "$root"
  local pkg
  for pkg in "${pkgs[@]}"; do
    log "unpacking $pkg"
    dpkg-deb -x "$debs/${pkg}"_*.deb "$root"
  done
  version=$(dpkg-deb -f "$debs/${pkgs[1]}"_*.deb Version)
  [ -x "$jdk/bin/java" ] || fail "${pkgs[1]} has no java-$v-openjdk-$ARCH"
  fix_symlinks "$root"
  # jmods (85 MB in 21, 353 MB in 25) only serve jlink, which the tests do not use.
  rm -rf "$jdk/jmods"
  if ! needs_libc; then
    :
  elif [ "$v" = 8 ]; then
    patch_executables "$jdk"
    # Debian's JDK 8 has no release file, which the tests read for the version (JDK 8
    # builds that ship one spell it so).
    [ -f "$jdk/release" ] || echo "JAVA_VERSION=\"1.8.0_${version#8u}\"" | sed 's/-.*"$/"/' >"$jdk/release"
  else
    wrap_executables "$jdk" "$dir/loader"
  fi
  ln -sfn "${jdk#"$dir"/}" "$dir/home"
  log "testing jdk$v ($version)"
  smoke_test "$dir/home" "$v"
  echo "openjdk-$v $version" >"$(jdk_stamp "$v")"
  rm -rf "$debs"
  log "jdk$v: openjdk-$v $version ready"
  echo "jdk$v $dir/home"
}

# The feature versions the host's own release carries (bookworm: 17). For these the newest
# update the host's apt sources offer (security updates included) is provisioned, when it
# differs from the installed openjdk-NN: updates move fields of the VM's structures, and a
# fresh machine installs the newest one. Same glibc, so no wrapping.
host_carries() {
  [ -n "$(apt-cache policy "openjdk-$1-jdk-headless" 2>/dev/null | sed -n 's/^ *Candidate: *//p' |
    grep -v '(none)')" ]
}

# Provisions the newest update of the host's JDK $1 into CACHE/jdkNN with the system's own
# apt lists (read only: run apt-get update first for the newest), or skips it when the
# system's installed openjdk-NN is that update already.
provision_host_jdk() {
  local v=$1 dir root jdk debs pkgs candidate installed pkg
  JDK_V=$v
  dir=$(jdk_dir "$v")
  root=$dir/root
  debs=$dir/debs
  jdk=$root/usr/lib/jvm/java-$v-openjdk-$ARCH
  pkgs=("openjdk-$v-jre-headless" "openjdk-$v-jdk-headless")
  candidate=$(apt-cache policy "${pkgs[1]}" | sed -n 's/^ *Candidate: *//p')
  installed=$(dpkg-query -W -f '${Status} ${Version}' "${pkgs[1]}" 2>/dev/null |
    sed -n 's/^install ok installed //p')
  [ "$candidate" != "$installed" ] ||
    skip "the system's ${pkgs[1]} ($installed) is the newest update its apt lists know (apt-get update refreshes them)"
  if [ -f "$(jdk_stamp "$v")" ] && [ "$(cat "$(jdk_stamp "$v")")" = "openjdk-$v $candidate" ]; then
    echo "jdk$v $(jdk_home "$v")"
    return 0
  fi
  rm -rf "$dir"
  mkdir -p "$debs" "$root"
  log "downloading ${pkgs[*]} $candidate with the system's apt sources"
  (cd "$debs" && quietly apt-get -q -o APT::Sandbox::User=root download "${pkgs[@]/%/=$candidate}") ||
    fail "downloading ${pkgs[*]} $candidate failed (see $LOG)"
  for pkg in "${pkgs[@]}"; do
    log "unpacking $pkg"
    dpkg-deb -x "$debs/${pkg}"_*.deb "$root"
  done
  [ -x "$jdk/bin/java" ] || fail "${pkgs[1]} has no java-$v-openjdk-$ARCH"
  fix_symlinks "$root"
  rm -rf "$jdk/jmods"
  ln -sfn "${jdk#"$dir"/}" "$dir/home"
  log "testing jdk$v ($candidate)"
  smoke_test "$dir/home" "$v"
  echo "openjdk-$v $candidate" >"$(jdk_stamp "$v")"
  rm -rf "$debs"
  log "jdk$v: openjdk-$v $candidate ready"
  echo "jdk$v $dir/home"
}

# Runs "$@" in a subshell with errexit in force, and keeps its exit status in STEP_RC
# (a call inside if/||/&& would switch errexit off within the function; a skip's status
# must not trip the ERR trap out here).
run_isolated() {
  trap - ERR
  set +e
  (
    trap 'on_error "$LINENO" "$BASH_COMMAND"' ERR
    set -e
    "$@"
  )
  STEP_RC=$?
  set -e
  trap 'on_error "$LINENO" "$BASH_COMMAND"' ERR
}

# Provides each version asked for, reusing what the cache holds, and prints its line.
main() {
  parse_args "$@"
  local v problem
  problem=$(host_problem)
  if [ -n "$problem" ]; then
    for v in "${VERSIONS[@]}"; do echo "jdk$v $problem"; done
    return 0
  fi
  # One provisioning at a time per cache.
  exec 9>"$CACHE/.lock"
  flock 9
  for v in "${VERSIONS[@]}"; do
    jdk_ready "$v" && ! host_carries "$v" ||
      { echo "== provision.sh run $RUN_ID, $(date -u +%FT%TZ)" >"$LOG"; break; }
  done
  for v in "${VERSIONS[@]}"; do
    if [[ " ${ASGST_TEST_BREAK_JDK:-} " == *" $v "* ]]; then
      run_isolated broken_on_purpose "$v"
      continue
    elif host_carries "$v"; then
      run_isolated provision_host_jdk "$v"
    elif jdk_ready "$v"; then
      echo "jdk$v $(jdk_home "$v")"
      STEP_RC=0
    else
      run_isolated provision_jdk "$v"
    fi
    case $STEP_RC in
      0 | "$PRINTED_RC") ;;
      *)
        echo "jdk$v FAIL unexpected failure (exit $STEP_RC, see $LOG)"
        EXIT_CODE=1
        ;;
    esac
    # Debug files are a bonus: without them only glibc's internal names are missing, so
    # their outcome goes to the log, never into the JDK's line.
    suite_of "$v"
    ! needs_libc || [ "$STEP_RC" != 0 ] || run_isolated ensure_libc_debug >>"$LOG"
  done
  return "$EXIT_CODE"
}

main "$@"
