# asgstJdk.cmake - which JDK a build takes its headers from (asgst.h includes jni.h). The
# library's own build and its installed CMake package (asgstConfig.cmake) both use it, so
# an agent finds its JDK the way the library's build found one.
#
# asgst_java_home(OUT WHY [FALLBACK...]) sets OUT to a JDK home holding include/jni.h:
#   1. JAVA_HOME given to CMake (-DJAVA_HOME=...), else JAVA_HOME in the environment;
#   2. else the first FALLBACK that holds include/jni.h (the installed package passes the
#      JDK the library was built with);
#   3. else the JDK whose javac is first on PATH: Debian leaves JAVA_HOME unset, and its
#      /usr/bin/javac leads through the alternatives' links into the JDK's bin/.
# Without one, OUT is empty and WHY says in one line what to set. (N)
function(asgst_java_home out why)
  set(${out} "" PARENT_SCOPE)
  set(given "${JAVA_HOME}")
  if(NOT given AND DEFINED ENV{JAVA_HOME})
    set(given "$ENV{JAVA_HOME}")
  endif()
  if(given)
    if(EXISTS "${given}/include/jni.h")
      set(${out} "${given}" PARENT_SCOPE)
    else()
      set(${why} "asgst: JAVA_HOME=${given} has no include/jni.h: set JAVA_HOME to a JDK (not a JRE)" PARENT_SCOPE)
    endif()
    return()
  endif()
  foreach(home IN LISTS ARGN)
    if(home AND EXISTS "${home}/include/jni.h")
      set(${out} "${home}" PARENT_SCOPE)
      return()
    endif()
  endforeach()
  find_program(ASGST_JAVAC javac)
  if(ASGST_JAVAC)
    get_filename_component(javac "${ASGST_JAVAC}" REALPATH)
    get_filename_component(home "${javac}" DIRECTORY)
    get_filename_component(home "${home}" DIRECTORY)
    if(EXISTS "${home}/include/jni.h")
      set(${out} "${home}" PARENT_SCOPE)
      return()
    endif()
  endif()
  set(${why} "asgst: no JDK found (JAVA_HOME unset, no javac on PATH): set JAVA_HOME to a JDK, e.g. -DJAVA_HOME=/usr/lib/jvm/java-17-openjdk-amd64" PARENT_SCOPE)
endfunction()
