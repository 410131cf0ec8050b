#!/usr/bin/env bash
# fake_home.sh SYSROOT VERSION DIR - makes DIR a JAVA_HOME whose java is the root's arm64 JDK
# VERSION under qemu-user, so that the JVM test scripts run it unchanged:
#   bin/java   qemu-aarch64-static -cpu "$ASGST_QEMU_CPU" (default max: pointer
#              authentication on) -L SYSROOT SYSROOT/usr/lib/jvm/java-VERSION-openjdk-arm64/bin/java
#   bin/javac, bin/jar, bin/jcmd, bin/javap  the host's JDK 17 tools (HOST_JAVA_HOME):
#              classes compiled for 17 load on 21 and 25; javap reads class files, whatever
#              JVM runs them; jcmd attaches through the target's socket, whatever its
#              architecture, and is not slowed down by qemu
#   release, include  links to the arm64 JDK's (tests/jdks/feature.sh, agent builds)
# Cheap and idempotent: rewritten on every call.
set -euo pipefail
ROOT=${1:?sysroot} V=${2:?JDK version} DIR=${3:?directory}
HOST=${HOST_JAVA_HOME:-/usr/lib/jvm/java-17-openjdk-amd64}
JDK=$ROOT/usr/lib/jvm/java-$V-openjdk-arm64
[ -x "$JDK/bin/java" ] || { echo "fake_home.sh: no arm64 JDK $V at $JDK" >&2; exit 1; }
mkdir -p "$DIR/bin"
cat >"$DIR/bin/java" <<EOF
#!/bin/sh
# arm64 JDK $V under qemu-user (tests/aarch64/fake_home.sh)
exec qemu-aarch64-static -cpu "\${ASGST_QEMU_CPU:-max}" -L "$ROOT" "$JDK/bin/java" "\$@"
EOF
chmod +x "$DIR/bin/java"
for tool in javac jar jcmd javap; do ln -sfn "$HOST/bin/$tool" "$DIR/bin/$tool"; done
ln -sfn "$JDK/release" "$DIR/release"
ln -sfn "$JDK/include" "$DIR/include"
