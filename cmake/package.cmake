# package.cmake - how the library is found by what links it: pkg-config files (one for the
# build tree, one installed, relative to where it lies so an install can move) and a CMake
# package (find_package(asgst CONFIG), targets asgst::asgst and asgst::synthetic).
include(CMakePackageConfigHelpers)

# pkg-config. The build tree's points at the sources' headers and this tree's lib/; the
# installed one finds its prefix from its own directory (${pcfiledir}). Both put an rpath
# in Libs: a JVM loads an agent without LD_LIBRARY_PATH, from wherever the library is.
# Both carry the JNI include directories of the JDK this build used (asgst.h includes
# jni.h, and pkg-config cannot look for a JDK): a compile line needs no JAVA_HOME.
set(ASGST_PC_JNI_CFLAGS "-I${ASGST_JAVA_HOME}/include -I${ASGST_JAVA_HOME}/include/linux")
set(ASGST_PC_PREFIX "${CMAKE_BINARY_DIR}")
set(ASGST_PC_LIBDIR "\${prefix}/lib")
set(ASGST_PC_INCLUDEDIR "${CMAKE_SOURCE_DIR}/include")
configure_file(cmake/asgst.pc.in ${CMAKE_BINARY_DIR}/lib/pkgconfig/asgst.pc @ONLY)
set(ASGST_PC_PREFIX "\${pcfiledir}/../..")
set(ASGST_PC_LIBDIR "\${prefix}/${CMAKE_INSTALL_LIBDIR}")
set(ASGST_PC_INCLUDEDIR "\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}")
configure_file(cmake/asgst.pc.in ${CMAKE_BINARY_DIR}/install/asgst.pc @ONLY)

install(TARGETS asgst asgst_static asgst_synthetic EXPORT asgstTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(FILES include/asgst.h include/asgst_synthetic.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES ${CMAKE_BINARY_DIR}/install/asgst.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# The CMake package. The targets' JNI include directories are this machine's JDK; the
# package's config file chooses the JDK again where it is used (asgstJdk.cmake, the build's
# own rules, with this build's JDK as the fallback).
set_target_properties(asgst_static PROPERTIES EXPORT_NAME static)
set_target_properties(asgst_synthetic PROPERTIES EXPORT_NAME synthetic)
install(EXPORT asgstTargets NAMESPACE asgst:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/asgst)
configure_package_config_file(cmake/asgstConfig.cmake.in ${CMAKE_BINARY_DIR}/install/asgstConfig.cmake
                              INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/asgst)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/install/asgstConfigVersion.cmake
                                 COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_BINARY_DIR}/install/asgstConfig.cmake
              ${CMAKE_BINARY_DIR}/install/asgstConfigVersion.cmake
              ${CMAKE_SOURCE_DIR}/cmake/asgstJdk.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/asgst)
