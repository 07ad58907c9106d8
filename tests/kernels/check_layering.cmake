# Proves the layering driver -> kernels_ref -> canonical types: nothing compiled from kernels_ref/
# (the kernels and kernels_ref/nn, the types) may see the driver. Fails when a kernels_ref
# compile command names a driver/ directory, or a kernels_ref source includes a driver header
# (weft/hal, weft/runtime, weft/cpu, weft/accel, android/) or a path into driver/.
#   cmake -DSOURCE_DIR=<source tree> -DCOMPILE_COMMANDS=<build>/compile_commands.json -P check_layering.cmake
file(READ "${COMPILE_COMMANDS}" json)
# Unity batches (cmake/WeftUnity.cmake) are compiled from the build tree's kernels_ref/.
get_filename_component(binary_dir "${COMPILE_COMMANDS}" DIRECTORY)
string(JSON entries LENGTH "${json}")
math(EXPR last "${entries} - 1")
set(checked 0)
foreach(i RANGE ${last})
  string(JSON file GET "${json}" ${i} file)
  string(FIND "${file}" "${SOURCE_DIR}/kernels_ref/" at)
  string(FIND "${file}" "${binary_dir}/kernels_ref/" generated)
  if(NOT at EQUAL 0 AND NOT generated EQUAL 0)
    continue()
  endif()
  string(JSON command GET "${json}" ${i} command)
  string(FIND "${command}" "${SOURCE_DIR}/driver" driver)
  if(NOT driver EQUAL -1)
    message(FATAL_ERROR "kernels_ref sees the driver: the compile command of ${file} names ${SOURCE_DIR}/driver")
  endif()
  math(EXPR checked "${checked} + 1")
endforeach()
if(checked LESS 5)
  message(FATAL_ERROR "only ${checked} kernels_ref compile commands in ${COMPILE_COMMANDS}: is the build configured?")
endif()

file(GLOB_RECURSE sources "${SOURCE_DIR}/kernels_ref/*.h" "${SOURCE_DIR}/kernels_ref/*.cpp" "${SOURCE_DIR}/kernels_ref/*.def")
foreach(source IN LISTS sources)
  file(STRINGS "${source}" includes REGEX "^[ \t]*#[ \t]*include")
  foreach(line IN LISTS includes)
    if(line MATCHES "weft/(hal|runtime|cpu|accel)/|android/|driver/")
      message(FATAL_ERROR "${source} includes a driver header: ${line}")
    endif()
  endforeach()
endforeach()
message(STATUS "kernels_ref: ${checked} compile commands and every include free of the driver")
