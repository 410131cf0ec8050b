#!/usr/bin/env bash
# env.sh - provisions the arm64 sysroot (provision.sh) into its fixed cache and prints, on
# stdout, the shell lines that name it: eval "$(./build.sh aarch64-env)". The cache sits
# next to the JDK cache of tests/jdks (list.sh): /var/cache/asgst-arm64 as root, otherwise
# $HOME/.cache/asgst-arm64; ASGST_ARM64_SYSROOT chooses another. Progress goes to stderr.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
if [ -z "${ASGST_ARM64_SYSROOT:-}" ]; then
  if [ "$(id -u)" = 0 ]; then ASGST_ARM64_SYSROOT=/var/cache/asgst-arm64
  else ASGST_ARM64_SYSROOT=$HOME/.cache/asgst-arm64; fi
fi
bash "$HERE/provision.sh" "$ASGST_ARM64_SYSROOT" >&2
ROOT=$(cd "$ASGST_ARM64_SYSROOT" && pwd -P)
echo "export ASGST_ARM64_SYSROOT='$ROOT'"
for v in 17 21 25; do echo "export ASGST_ARM64_JAVA_HOME_$v='$ROOT/usr/lib/jvm/java-$v-openjdk-arm64'"; done
cat <<EOF
# run a JDK: qemu-aarch64-static [-cpu max|max,pauth=off] -L "\$ASGST_ARM64_SYSROOT" "\$ASGST_ARM64_JAVA_HOME_17/bin/java" -version
# configure: cmake -S . -B build-aarch64 -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake -DASGST_ARM64_SYSROOT="\$ASGST_ARM64_SYSROOT"
# probe AsyncGetCallTrace: bash tests/aarch64/probe.sh "\$ASGST_ARM64_SYSROOT"
EOF
