# libneuralnetworks.so is a clean drop-in NNAPI library. Fails when it
#  - exports a symbol outside its contract (the ANeuralNetworks* functions, weft::runtime's
#    Profile.h functions and weft_abi_stamp): no sc_main, nothing of the simulator, the kernels or the driver;
#  - needs a simulator symbol or library (SystemC, Verilator): those are the accelerator module's
#    (libweft-accel.so), loaded at run time;
#  - carries a path of the source or build tree (RUNPATH, __FILE__ strings, configuration paths).
#   cmake -DLIBRARY=<lib> -DSOURCE_DIR=<tree> -DBINARY_DIR=<build> -P check_exported_symbols.cmake
execute_process(COMMAND nm -D --defined-only ${LIBRARY} OUTPUT_VARIABLE symbols RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "nm failed on ${LIBRARY}")
endif()
string(REPLACE "\n" ";" lines "${symbols}")
set(count 0)
foreach(line IN LISTS lines)
  if(line STREQUAL "")
    continue()
  endif()
  string(REGEX REPLACE "^.* " "" name "${line}")
  if(name MATCHES "^ANeuralNetworks" OR name MATCHES "^_ZN4weft7runtime" OR name STREQUAL "weft_abi_stamp")
    math(EXPR count "${count} + 1")
  else()
    message(FATAL_ERROR "unexpected exported symbol: ${name}")
  endif()
endforeach()
if(count LESS 76)
  message(FATAL_ERROR "only ${count} symbols exported; the NNAPI C API alone has 73 functions")
endif()

execute_process(COMMAND nm -D --undefined-only ${LIBRARY} OUTPUT_VARIABLE undefined RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "nm --undefined-only failed on ${LIBRARY}")
endif()
string(REPLACE "\n" ";" lines "${undefined}")
foreach(line IN LISTS lines)
  string(REGEX REPLACE "^.* " "" name "${line}")
  # sc_core / sc_dt namespaces, sc_main, Verilator's runtime.
  if(name MATCHES "^sc_main$|_ZN7sc_core|_ZN5sc_dt|Verilated|^_ZN4weft3sim")
    message(FATAL_ERROR "libneuralnetworks.so needs the simulator symbol ${name}")
  endif()
endforeach()

execute_process(COMMAND readelf -d ${LIBRARY} OUTPUT_VARIABLE dynamic RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "readelf -d failed on ${LIBRARY}")
endif()
if(dynamic MATCHES "libsystemc|libverilated")
  message(FATAL_ERROR "libneuralnetworks.so links a simulator library:\n${dynamic}")
endif()

# Every printable string of the file (RUNPATH, __FILE__, configuration defaults) is searched for
# the two trees.
foreach(tree IN ITEMS "${SOURCE_DIR}" "${BINARY_DIR}")
  file(STRINGS "${LIBRARY}" hits REGEX "${tree}")
  if(hits)
    list(GET hits 0 first)
    message(FATAL_ERROR "libneuralnetworks.so carries the path ${tree}, e.g. in \"${first}\"")
  endif()
endforeach()
message(STATUS "${count} exported symbols, all expected; no simulator dependency, no build-tree path")
