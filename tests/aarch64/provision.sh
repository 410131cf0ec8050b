#!/usr/bin/env bash
# provision.sh SYSROOT - an arm64 (aarch64) root with Debian's arm64 OpenJDK 17, 21 and 25,
# for running them on this amd64 machine under qemu-user and cross-building against them:
#   qemu-aarch64-static -L SYSROOT SYSROOT/usr/lib/jvm/java-17-openjdk-arm64/bin/java -version
#
# Nothing is installed into the system's dpkg state for the arm64 side: the packages are
# downloaded with a private apt configuration (SYSROOT/.apt: its own sources, lists, cache and
# an empty dpkg status, APT::Architecture arm64) and unpacked with dpkg-deb -x. The Debian
# mirror is the one the system's own apt sources name (read at run time). JDK 17 comes from
# the host's release (bookworm, its security updates included), 21 and 25 from trixie (sid
# when trixie lacks one); the C libraries, and the headers and libraries a cross build links
# (libc6-dev, cmocka, zlib), come from trixie: 21 and 25 need its glibc, and a newer glibc
# runs bookworm's 17 as well. One root, one glibc.
#
# On the host side qemu-user-static and gcc/g++-aarch64-linux-gnu are installed with apt when
# missing (as root; build.sh has no place for optional dependencies, so this script does it).
#
# A second run finds SYSROOT/.provisioned and does nothing (it says so). Delete SYSROOT to
# start over. Progress on stderr; apt's output in SYSROOT/.apt/log. Exit status 0 on success.
set -euo pipefail

readonly ARCH=arm64
readonly TRIPLET=aarch64-linux-gnu
readonly JDK_VERSIONS=(17 21 25)
readonly NEWER=trixie # the suite of 21 and 25 and of the C libraries
readonly LATEST=sid   # where a JDK missing from $NEWER is looked for
# The root's C runtime and what a cross build links against (all from $NEWER).
readonly LIBS=(libc6 libgcc-s1 libstdc++6 zlib1g libc6-dev linux-libc-dev zlib1g-dev
  libcmocka0 libcmocka-dev)
readonly HOST_TOOLS=("qemu-user-static:qemu-aarch64-static" "gcc-aarch64-linux-gnu:aarch64-linux-gnu-gcc"
  "g++-aarch64-linux-gnu:aarch64-linux-gnu-g++")

ROOT=""      # the sysroot, absolute
APT=""       # the private apt directory
HOST_SUITE="" # the host's Debian release (bookworm)
START=$(date +%s.%N)

# Progress, on stderr. (N)
log() { printf 'aarch64/provision: %s\n' "$*" >&2; }

# Stops with a message. (N)
die() {
  log "$*"
  exit 1
}

# Seconds since the script started, one decimal. (N)
elapsed() { awk -v s="$START" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }'; }

# Installs the host's qemu and cross compilers when missing (root only). (N)
ensure_host_tools() {
  local t missing=()
  for t in "${HOST_TOOLS[@]}"; do command -v "${t#*:}" >/dev/null || missing+=("${t%%:*}"); done
  [ ${#missing[@]} -eq 0 ] && return 0
  [ "$(id -u)" = 0 ] || die "missing ${missing[*]}: run apt-get install -y ${missing[*]}"
  log "installing ${missing[*]} on the host (apt-get)"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" </dev/null >>"$APT/log" 2>&1 ||
    die "apt-get install ${missing[*]} failed (see $APT/log)"
}

# Prints the Debian archive URI(s) the system's apt uses for the host's release and its
# security suite, one "URI SUITE" a line, from apt's own view of its sources. (N)
system_sources() {
  # shellcheck disable=SC2016 # apt's own $(FIELD) placeholders, not shell
  apt-get indextargets --format '$(REPO_URI) $(RELEASE)' 'Identifier: Packages' 2>/dev/null |
    awk -v s="$HOST_SUITE" '$2 == s || $2 == s "-updates" || $2 == s "-security"' | sort -u
}

# Runs apt-get or apt-cache ($1) on the private arm64 configuration in $APT. (N)
apt_private() {
  local tool=$1
  shift
  "$tool" -q \
    -o APT::Architecture="$ARCH" \
    -o APT::Architectures::="$ARCH" \
    -o Dir::Etc::SourceList=/dev/null \
    -o Dir::Etc::SourceParts="$APT/sources.list.d" \
    -o Dir::Etc::Preferences=/dev/null \
    -o Dir::Etc::PreferencesParts="$APT/preferences.d" \
    -o Dir::State="$APT/state" \
    -o Dir::State::Lists="$APT/lists" \
    -o Dir::State::status=/dev/null \
    -o Dir::Cache="$APT/cache" \
    -o Acquire::Languages=none \
    -o APT::Sandbox::User=root \
    "$@"
}

# Writes one deb822 stanza for SUITE $2 of URI $1 into the private sources. (N)
add_source() {
  cat >>"$APT/sources.list.d/arm64.sources" <<EOF
Types: deb
URIs: $1
Suites: $2
Components: main
Architectures: $ARCH
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

EOF
}

# Writes the private sources (the system's host-release suites, $NEWER and, when asked,
# $LATEST on the system's main Debian URI) and fetches their arm64 lists. (N)
prepare_apt() {
  local with_latest=${1:-} uri suite main_uri=""
  mkdir -p "$APT/sources.list.d" "$APT/preferences.d" "$APT/state" "$APT/lists/partial" \
    "$APT/cache/archives/partial"
  : >"$APT/sources.list.d/arm64.sources"
  while read -r uri suite; do
    add_source "$uri" "$suite"
    [ "$suite" != "$HOST_SUITE" ] || main_uri=$uri
  done < <(system_sources)
  [ -n "$main_uri" ] || die "no Debian source for $HOST_SUITE in the system's apt sources"
  add_source "$main_uri" "$NEWER"
  [ -z "$with_latest" ] || add_source "$main_uri" "$LATEST"
  log "apt-get update ($HOST_SUITE, $NEWER${with_latest:+, $LATEST}; arm64; lists in $APT)"
  apt_private apt-get update --error-on=any >>"$APT/log" 2>&1 || die "apt-get update failed (see $APT/log)"
}

# Prints the newest version of package $1 in suites whose name starts with $2 ("" if none). (N)
newest_in() {
  apt_private apt-cache madison "$1" 2>/dev/null |
    awk -F' *[|] *' -v s="$2" '{ split($3, a, " "); split(a[2], b, "/"); if (index(b[1], s) == 1) print $2 }' |
    sort -V | tail -n 1
}

# Prints "pkg=version" for package $1 from the first suite of $2... that has it. (N)
pin() {
  local pkg=$1 suite v
  shift
  for suite in "$@"; do
    v=$(newest_in "$pkg" "$suite")
    [ -z "$v" ] || { echo "$pkg=$v"; return 0; }
  done
  return 1
}

# Makes the lib, bin and sbin of the root links into usr/ (merged /usr, as trixie's packages
# expect; the arm64 java's ELF interpreter is /lib/ld-linux-aarch64.so.1), moving whatever a
# package unpacked into a real /lib first. (N)
merge_usr() {
  local d
  for d in lib bin sbin; do
    mkdir -p "$ROOT/usr/$d"
    if [ -d "$ROOT/$d" ] && [ ! -L "$ROOT/$d" ]; then
      cp -a "$ROOT/$d/." "$ROOT/usr/$d/"
      rm -rf "${ROOT:?}/$d"
    fi
    [ -L "$ROOT/$d" ] || ln -s "usr/$d" "$ROOT/$d"
  done
}

# Re-points the absolute symlinks of the root (into /etc, /usr/lib, ...) relatively to the
# same path inside the root; those leading nowhere in the root are removed. (N)
fix_symlinks() {
  local link target
  find "$ROOT" -path "$APT" -prune -o -type l -lname '/*' -print0 | while IFS= read -r -d '' link; do
    target=$(readlink "$link")
    if [ -e "$ROOT$target" ] || [ -L "$ROOT$target" ]; then
      ln -sfn "$(realpath -s -m --relative-to="$(dirname "$link")" "$ROOT$target")" "$link"
    else
      rm -f "$link"
    fi
  done
}

# Lists the NEEDED libraries of the root's JDKs that the root does not hold. (N)
missing_libs() {
  local f lib
  find "$ROOT/usr/lib/jvm" -name '*.so' -o -path '*/bin/*' -type f | while read -r f; do
    aarch64-linux-gnu-readelf -d "$f" 2>/dev/null | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p'
  done | sort -u | while read -r lib; do
    [ -e "$ROOT/usr/lib/$TRIPLET/$lib" ] || [ -n "$(find "$ROOT/usr/lib/jvm" -name "$lib" -print -quit)" ] ||
      echo "$lib"
  done
}

# Runs java -version of each JDK under qemu; fails on the first that does not start. (N)
check_jdks() {
  local v java
  for v in "${JDK_VERSIONS[@]}"; do
    java=$ROOT/usr/lib/jvm/java-$v-openjdk-$ARCH/bin/java
    qemu-aarch64-static -L "$ROOT" "$java" -version >>"$APT/log" 2>&1 ||
      die "jdk$v: java -version fails under qemu (see $APT/log)"
    log "jdk$v: $(qemu-aarch64-static -L "$ROOT" "$java" -version 2>&1 | sed -n 2p)"
  done
}

# Downloads the pinned packages into $APT/debs and unpacks them into the root. (N)
download_and_unpack() {
  local debs=$APT/debs deb
  rm -rf "$debs"
  mkdir -p "$debs"
  log "downloading ${#PINS[@]} arm64 packages"
  (cd "$debs" && apt_private apt-get download "${PINS[@]}" >>"$APT/log" 2>&1) ||
    die "apt-get download failed (see $APT/log)"
  for deb in "$debs"/*.deb; do
    log "unpacking ${deb##*/}"
    dpkg-deb -x "$deb" "$ROOT"
  done
  rm -rf "$debs"
}

PINS=()

# Chooses the packages: 17 from the host's release, 21 and 25 from $NEWER (else $LATEST), the
# libraries from $NEWER. Fetches $LATEST's lists only when a JDK is missing from $NEWER. (N)
choose_packages() {
  local v p pkg
  prepare_apt
  for v in 21 25; do
    [ -n "$(newest_in "openjdk-$v-jdk-headless" "$NEWER")" ] || { prepare_apt latest; break; }
  done
  for v in "${JDK_VERSIONS[@]}"; do
    for pkg in "openjdk-$v-jre-headless" "openjdk-$v-jdk-headless"; do
      if [ "$v" = 17 ]; then p=$(pin "$pkg" "$HOST_SUITE"); else p=$(pin "$pkg" "$NEWER" "$LATEST"); fi ||
        die "no arm64 $pkg in the suites searched"
      PINS+=("$p")
    done
  done
  for pkg in "${LIBS[@]}"; do
    p=$(pin "$pkg" "$NEWER") || die "no arm64 $pkg in $NEWER"
    PINS+=("$p")
  done
}

main() {
  [ $# -eq 1 ] || { echo "usage: provision.sh SYSROOT" >&2; exit 2; }
  mkdir -p "$1"
  ROOT=$(cd "$1" && pwd -P)
  APT=$ROOT/.apt
  mkdir -p "$APT"
  [ "$(dpkg --print-architecture)" = amd64 ] || die "only an amd64 host was tried"
  # The host's tools first: a root provisioned earlier is of no use without qemu.
  ensure_host_tools
  if [ -f "$ROOT/.provisioned" ]; then
    log "$ROOT is provisioned already, nothing to do ($(elapsed) s): $(tr '\n' ' ' <"$ROOT/.provisioned")"
    return 0
  fi
  # shellcheck source=/dev/null
  HOST_SUITE=$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")
  choose_packages
  download_and_unpack
  merge_usr
  fix_symlinks
  local v
  for v in "${JDK_VERSIONS[@]}"; do rm -rf "$ROOT/usr/lib/jvm/java-$v-openjdk-$ARCH/jmods"; done
  local missing
  missing=$(missing_libs | tr '\n' ' ')
  [ -z "$missing" ] || log "libraries the JDKs name but the root lacks (loaded lazily if ever): $missing"
  check_jdks
  printf '%s\n' "${PINS[@]}" >"$ROOT/.provisioned"
  log "done in $(elapsed) s: ${PINS[*]}"
  log "run: qemu-aarch64-static -L $ROOT $ROOT/usr/lib/jvm/java-17-openjdk-$ARCH/bin/java -version"
}

main "$@"
