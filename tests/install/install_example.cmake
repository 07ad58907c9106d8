# The install test (tests/install/CMakeLists.txt): install the build into a fresh prefix, build
# examples/quantized_burst against it with find_package(weft) as an application developer would,
# run it (the rtl backend: the installed module and verilated models found relative to the
# installed library), run the installed `weft` on the installed data, and check the bad-input
# paths of an install: a missing share directory and a stale accelerator module.
#
#   cmake -DBUILD_DIR=... -DSOURCE_DIR=... -DWORK_DIR=... -DGENERATOR=... -P install_example.cmake
foreach(_var BUILD_DIR SOURCE_DIR WORK_DIR GENERATOR)
  if(NOT DEFINED ${_var})
    message(FATAL_ERROR "install_example.cmake: ${_var} is not set")
  endif()
endforeach()
set(prefix ${WORK_DIR}/prefix)
set(example_build ${WORK_DIR}/example-build)
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})

function(run what)
  cmake_parse_arguments(A "" "EXPECT_CODE;EXPECT_OUTPUT;WORKING_DIRECTORY" "COMMAND" ${ARGN})
  if(NOT DEFINED A_EXPECT_CODE)
    set(A_EXPECT_CODE 0)
  endif()
  if(NOT A_WORKING_DIRECTORY)
    set(A_WORKING_DIRECTORY ${WORK_DIR})
  endif()
  execute_process(COMMAND ${A_COMMAND} WORKING_DIRECTORY ${A_WORKING_DIRECTORY}
                  RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE out)
  message(STATUS "${what}: exit ${code}\n${out}")
  if(NOT code STREQUAL A_EXPECT_CODE)
    message(FATAL_ERROR "${what}: exit code ${code}, expected ${A_EXPECT_CODE}")
  endif()
  if(A_EXPECT_OUTPUT AND NOT out MATCHES "${A_EXPECT_OUTPUT}")
    message(FATAL_ERROR "${what}: the output does not match '${A_EXPECT_OUTPUT}'")
  endif()
endfunction()

run("install" COMMAND ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})
foreach(_f bin/weft lib/libneuralnetworks.so lib/weft/libweft-accel.so include/android/NeuralNetworks.h
           include/weft/WeftExtension.h lib/cmake/weft/weftConfig.cmake lib/pkgconfig/neuralnetworks.pc
           share/weft/traces/networks/mobilenet_v1_224_quant.json share/weft/scripts/weft_report.py
           share/weft/rtl-project/sim/rtl_plugin/CMakeLists.txt)
  if(NOT EXISTS ${prefix}/${_f})
    message(FATAL_ERROR "the install has no ${_f}")
  endif()
endforeach()
file(GLOB _models ${prefix}/lib/weft/rtl/weft_rtl_*.so)
if(NOT _models)
  message(FATAL_ERROR "the install has no verilated models in lib/weft/rtl")
endif()

# The application, configured against the prefix alone.
run("configure the example" COMMAND ${CMAKE_COMMAND} -S ${SOURCE_DIR}/examples/quantized_burst -B ${example_build}
    -G ${GENERATOR} -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_BUILD_TYPE=Release)
run("build the example" COMMAND ${CMAKE_COMMAND} --build ${example_build})
run("run the example on the rtl backend" COMMAND ${CMAKE_COMMAND} -E env WEFT_BACKEND=rtl ${example_build}/quantized_burst
    EXPECT_OUTPUT "burst execution 3: on hardware [0-9.]+ us.*matches")

# The installed tool on its installed data (approx: the reference check runs, in a second).
run("installed weft run" COMMAND ${CMAKE_COMMAND} -E env WEFT_YOSYS=none ${prefix}/bin/weft --backend approx run --json out/m.json --csv out/m.csv
    EXPECT_OUTPUT "reference check: PASS")

# A stale accelerator module beside the installed library: refused by its ABI stamp, by name.
file(WRITE ${WORK_DIR}/stale_module.cpp [=[
#include <cstdint>
struct Table { uint32_t abi; const char* build; void* create; void* progress; };
extern "C" __attribute__((visibility("default"))) const Table* weft_accelerator_module() {
  static const Table t{3, "0.0.0+stale", nullptr, nullptr};
  return &t;
}
]=])
# Not a full module: its table would be refused before create/progress are read anyway.
find_program(_cxx NAMES c++ g++ clang++)
if(_cxx)
  run("build a stale module" COMMAND ${_cxx} -shared -fPIC -o ${WORK_DIR}/libweft-accel-stale.so ${WORK_DIR}/stale_module.cpp)
  run("a stale module is named" COMMAND ${CMAKE_COMMAND} -E env WEFT_BACKEND=approx
      WEFT_ACCEL_DRIVER=${WORK_DIR}/libweft-accel-stale.so ${example_build}/quantized_burst
      EXPECT_CODE 1 EXPECT_OUTPUT "libweft-accel-stale.so is from another build of weft \\(ABI 0.0.0\\+stale")
endif()

# The share directory gone: an error naming it, exit code 2, no crash.
file(RENAME ${prefix}/share/weft ${prefix}/share/weft-moved)
run("weft without its share directory" COMMAND ${prefix}/bin/weft --backend approx run EXPECT_CODE 2
    EXPECT_OUTPUT "weft's data directory ${prefix}/share/weft is missing")
file(RENAME ${prefix}/share/weft-moved ${prefix}/share/weft)
