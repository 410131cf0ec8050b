#!/usr/bin/env bash
# feature.sh JAVA_HOME - prints the JDK's feature version (8 for "1.8.0_x", 17 for
# "17.0.15") from its release file; prints nothing if the file or the line is missing.
sed -n 's/^JAVA_VERSION="\(1\.\)\{0,1\}\([0-9]*\).*/\2/p' "${1:?JAVA_HOME}/release" 2>/dev/null | head -1
