# ccache as the compiler launcher, with the source root as its base directory: ccache rewrites the
# absolute paths CMake puts on every command line into paths relative to the build directory, so
# a clone of the same commit in another folder (CI's) hits the cache a build here filled.
# hash_dir off: the -g builds would otherwise hash the working directory; -ffile-prefix-map (set
# by the project) keeps their debug information free of it. Paths compiled into code live in a
# few dedicated or generated files, so only those miss (tests/README.md, "CI and the compiler
# cache"). Used by the main build and by the on-demand RTL plugin project (sim/rtl_plugin/).
#
#   weft_use_ccache(<source root>)
include_guard(GLOBAL)

function(weft_use_ccache root)
  find_program(CCACHE_PROGRAM ccache)
  if(NOT CCACHE_PROGRAM)
    return()
  endif()
  set(_launcher ${CMAKE_COMMAND} -E env CCACHE_BASEDIR=${root} CCACHE_NOHASHDIR=1 ${CCACHE_PROGRAM})
  set(CMAKE_C_COMPILER_LAUNCHER ${_launcher} PARENT_SCOPE)
  set(CMAKE_CXX_COMPILER_LAUNCHER ${_launcher} PARENT_SCOPE)
endfunction()
