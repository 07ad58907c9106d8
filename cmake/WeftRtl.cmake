# Builds verilated weft_top configurations as plugins (sim/include/weft/sim/rtl_plugin_abi.h).
#
#   weft_rtl_plugin(<target> KEY <rtl key> BUS_BYTES <n> PARAMS <-GName=value ...>
#                   OUTPUT_DIR <dir> [TRACE])
#
# produces <dir>/weft_rtl_<key>_<digest>.so (..._trace.so with TRACE). Used for the default
# configurations by rtl/CMakeLists.txt and, for any other configuration, by the on-demand
# project in sim/rtl_plugin/.
#
# <digest> (weft_rtl_digest) fingerprints the RTL sources, the generated package and the plugin
# adapter: a plugin built from other RTL has another name, so an edited RTL is never simulated
# by a stale model (on-demand plugins outlive the build that made them).
include_guard(GLOBAL)

# Sets <out> to the first 12 hex digits of a SHA-256 over the RTL plugin's inputs, and makes
# the calling project reconfigure when one of them changes.
function(weft_rtl_digest out)
  set(_files ${WEFT_RTL_SOURCES} ${WEFT_SOURCE_DIR}/sim/rtl_plugin/adapter.cpp
             ${WEFT_SOURCE_DIR}/sim/include/weft/sim/rtl_plugin_abi.h)
  set(_all "")
  foreach(_f IN LISTS _files)
    file(SHA256 ${_f} _h)
    string(APPEND _all ${_h})
  endforeach()
  string(SHA256 _digest "${_all}")
  string(SUBSTRING ${_digest} 0 12 _digest)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${_files})
  set(${out} ${_digest} PARENT_SCOPE)
endfunction()

function(weft_rtl_plugin target)
  cmake_parse_arguments(A "TRACE" "KEY;BUS_BYTES;OUTPUT_DIR" "PARAMS" ${ARGN})
  if(NOT WEFT_RTL_SOURCES)
    message(FATAL_ERROR "weft_rtl_plugin: WEFT_RTL_SOURCES is empty (include rtl/sources.cmake)")
  endif()
  weft_rtl_digest(_digest)
  set(_name weft_rtl_${A_KEY}_${_digest})
  set(_trace_args)
  set(_trace 0)
  if(A_TRACE)
    set(_name ${_name}_trace)
    set(_trace_args TRACE_FST)
    set(_trace 1)
  endif()
  add_library(${target} MODULE ${WEFT_SOURCE_DIR}/sim/rtl_plugin/adapter.cpp)
  set_target_properties(${target} PROPERTIES
    PREFIX "" OUTPUT_NAME ${_name} LIBRARY_OUTPUT_DIRECTORY ${A_OUTPUT_DIR}
    CXX_VISIBILITY_PRESET hidden)
  target_compile_definitions(${target} PRIVATE
    WEFT_RTL_KEY="${A_KEY}" WEFT_RTL_BUS_BYTES=${A_BUS_BYTES} WEFT_RTL_TRACE=${_trace})
  target_include_directories(${target} PRIVATE ${WEFT_SOURCE_DIR}/sim/include)
  # -O2 keeps the verilated C++ compile reasonable; --output-split-cfuncs is the measured
  # speed and build-time win (TOOLCHAIN.md).
  # Verilator writes its sources' names into the model (the file of every $fatal and region
  # check): given relative to the directory it runs in (the caller's source directory), they
  # are the same in every clone, and so is the generated C++ (the compiler cache serves CI).
  set(_sources)
  foreach(_s IN LISTS WEFT_RTL_SOURCES)
    file(RELATIVE_PATH _rel ${CMAKE_CURRENT_SOURCE_DIR} ${_s})
    list(APPEND _sources ${_rel})
  endforeach()
  verilate(${target} ${_trace_args}
    PREFIX Vweft_top TOP_MODULE weft_top
    SOURCES ${_sources}
    VERILATOR_ARGS ${A_PARAMS} -Wall --output-split-cfuncs 1000 -O2)
  # Verilator's generated C++ is not ours to warn about.
  target_compile_options(${target} PRIVATE -w)
  target_link_libraries(${target} PRIVATE Threads::Threads)
endfunction()
