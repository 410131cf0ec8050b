# CMake toolchain file: cross-build for arm64 (aarch64) Linux on an amd64 Debian host.
#   cmake -S . -B build-aarch64 -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake \
#         -DASGST_ARM64_SYSROOT=<root made by tests/aarch64/provision.sh>
# Compilers: Debian's gcc/g++-aarch64-linux-gnu. The sysroot holds the arm64 C library and its
# headers, cmocka, zlib and the arm64 JDKs; JNI headers and libjvm.so come from its JDK 17
# (ASGST_ARM64_JAVA_HOME to use another). The results run under qemu-aarch64-static -L <root>.

set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)

set(ASGST_ARM64_SYSROOT "" CACHE PATH "arm64 root made by tests/aarch64/provision.sh")
# try_compile projects get a fresh cache: hand the sysroot down to them.
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES ASGST_ARM64_SYSROOT)
if(NOT ASGST_ARM64_SYSROOT OR NOT EXISTS "${ASGST_ARM64_SYSROOT}/usr/include/${CMAKE_SYSTEM_PROCESSOR}-linux-gnu")
  message(FATAL_ERROR "ASGST_ARM64_SYSROOT must name a root made by tests/aarch64/provision.sh "
                      "(got '${ASGST_ARM64_SYSROOT}')")
endif()

set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(CMAKE_SYSROOT "${ASGST_ARM64_SYSROOT}")
set(CMAKE_FIND_ROOT_PATH "${ASGST_ARM64_SYSROOT}")
# Programs (cmake's helpers, pkg-config) are the host's; everything linked is the root's.
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# The host's pkg-config, reading only the root's .pc files and prefixing their paths with it.
set(ENV{PKG_CONFIG_LIBDIR}
    "${ASGST_ARM64_SYSROOT}/usr/lib/${CMAKE_SYSTEM_PROCESSOR}-linux-gnu/pkgconfig:${ASGST_ARM64_SYSROOT}/usr/share/pkgconfig")
set(ENV{PKG_CONFIG_SYSROOT_DIR} "${ASGST_ARM64_SYSROOT}")
set(ENV{PKG_CONFIG_PATH} "")

# JNI: the root's JDK 17, named outright (FindJNI's search knows only the host's layout).
set(ASGST_ARM64_JAVA_HOME "${ASGST_ARM64_SYSROOT}/usr/lib/jvm/java-17-openjdk-arm64"
    CACHE PATH "arm64 JDK whose JNI headers and libjvm.so the build uses")
set(JAVA_HOME "${ASGST_ARM64_JAVA_HOME}" CACHE PATH "" FORCE)
set(JAVA_INCLUDE_PATH "${ASGST_ARM64_JAVA_HOME}/include" CACHE PATH "" FORCE)
set(JAVA_INCLUDE_PATH2 "${ASGST_ARM64_JAVA_HOME}/include/linux" CACHE PATH "" FORCE)
set(JAVA_AWT_INCLUDE_PATH "${ASGST_ARM64_JAVA_HOME}/include" CACHE PATH "" FORCE)
set(JAVA_JVM_LIBRARY "${ASGST_ARM64_JAVA_HOME}/lib/server/libjvm.so" CACHE FILEPATH "" FORCE)
set(JAVA_AWT_LIBRARY "${ASGST_ARM64_JAVA_HOME}/lib/libjawt.so" CACHE FILEPATH "" FORCE)

# Under qemu, for CMake's own run-time checks and tests.
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64-static -L "${ASGST_ARM64_SYSROOT}")

# Link against the root's libraries before the cross compiler's own arm64 libc (Debian's
# libc6-dev-arm64-cross, an older glibc): the root's libstdc++ (UBSan's runtime needs it)
# asks for symbols of the root's newer glibc, which the cross libc lacks.
foreach(kind EXE SHARED MODULE)
  set(CMAKE_${kind}_LINKER_FLAGS_INIT
      "-L${ASGST_ARM64_SYSROOT}/usr/lib/${CMAKE_SYSTEM_PROCESSOR}-linux-gnu -L${ASGST_ARM64_SYSROOT}/lib/${CMAKE_SYSTEM_PROCESSOR}-linux-gnu -Wl,-rpath-link,${ASGST_ARM64_SYSROOT}/usr/lib/${CMAKE_SYSTEM_PROCESSOR}-linux-gnu")
endforeach()
