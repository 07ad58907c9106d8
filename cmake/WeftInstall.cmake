# `cmake --install <build> --prefix P`: weft as a Linux SDK, laid out as the programs expect to
# find it relative to themselves (common/include/weft/common/locations.h):
#
#   P/bin/weft                                   the tool (RUNPATH $ORIGIN/../lib)
#   P/lib/libneuralnetworks.so                   the NNAPI runtime (SONAME libneuralnetworks.so, as on Android)
#   P/lib/weft/libweft-accel.so                  the accelerator driver module the runtime loads
#   P/lib/weft/rtl/weft_rtl_*.so                 verilated models of the default configurations
#   P/lib/cmake/weft/weftConfig*.cmake           find_package(weft) -> weft::neuralnetworks
#   P/lib/pkgconfig/neuralnetworks.pc
#   P/include/android/NeuralNetworks*.h, P/include/weft/WeftExtension.h
#   P/share/weft/traces/, scripts/weft_report.py  bundled networks, layer sets, baselines, HTML report
#   P/share/weft/examples/                       examples/: NNAPI applications built with find_package(weft)
#   P/share/weft/rtl-project/                    the RTL and the plugin project, for models of other
#                                                configurations built on demand (into the user's cache)
#
# Fixed directory names (not GNUInstallDirs' multiarch lib/<triplet>): the programs find each
# other by these relative paths.
include_guard(GLOBAL)
include(CMakePackageConfigHelpers)

set_target_properties(weft PROPERTIES INSTALL_RPATH "$ORIGIN/../lib")
install(TARGETS weft RUNTIME DESTINATION bin COMPONENT tool)
install(TARGETS neuralnetworks LIBRARY DESTINATION lib COMPONENT runtime)
install(TARGETS weft_accel_module LIBRARY DESTINATION lib/weft COMPONENT runtime)
foreach(_cfg IN LISTS WEFT_RTL_DEFAULT_CONFIGS)
  install(TARGETS weft_rtl_${_cfg} LIBRARY DESTINATION lib/weft/rtl COMPONENT runtime)
endforeach()

install(FILES ${WEFT_SOURCE_DIR}/driver/include/android/NeuralNetworks.h
              ${WEFT_SOURCE_DIR}/driver/include/android/NeuralNetworksTypes.h
              ${WEFT_SOURCE_DIR}/driver/include/android/NeuralNetworksExtensions.h
        DESTINATION include/android COMPONENT development)
install(FILES ${WEFT_SOURCE_DIR}/driver/include/weft/WeftExtension.h DESTINATION include/weft COMPONENT development)

set(_pkg ${CMAKE_BINARY_DIR}/install-package)
configure_file(${WEFT_SOURCE_DIR}/cmake/install/weftConfig.cmake.in ${_pkg}/weftConfig.cmake @ONLY)
write_basic_package_version_file(${_pkg}/weftConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${_pkg}/weftConfig.cmake ${_pkg}/weftConfigVersion.cmake DESTINATION lib/cmake/weft COMPONENT development)
configure_file(${WEFT_SOURCE_DIR}/cmake/install/neuralnetworks.pc.in ${_pkg}/neuralnetworks.pc @ONLY)
install(FILES ${_pkg}/neuralnetworks.pc DESTINATION lib/pkgconfig COMPONENT development)

install(DIRECTORY ${WEFT_SOURCE_DIR}/traces/networks ${WEFT_SOURCE_DIR}/traces/validation ${WEFT_SOURCE_DIR}/traces/dram
                  ${WEFT_SOURCE_DIR}/traces/baselines
        DESTINATION share/weft/traces COMPONENT tool)
install(FILES ${WEFT_SOURCE_DIR}/traces/README.md DESTINATION share/weft/traces COMPONENT tool)
install(PROGRAMS ${WEFT_SOURCE_DIR}/scripts/weft_report.py DESTINATION share/weft/scripts COMPONENT tool)
install(FILES ${CMAKE_BINARY_DIR}/tools/weft/installed_nnapi_extensions_app_allowlist DESTINATION share/weft
        RENAME nnapi_extensions_app_allowlist COMPONENT tool)

install(DIRECTORY ${WEFT_SOURCE_DIR}/examples/ DESTINATION share/weft/examples COMPONENT development)

# The on-demand RTL project, laid out as in the source tree so that sim/rtl_plugin/CMakeLists.txt
# runs unchanged with WEFT_SOURCE_DIR=share/weft/rtl-project. The files are byte-identical copies,
# so the RTL digest in a model's name (cmake/WeftRtl.cmake) is the one the library looks for.
set(_rtl_project share/weft/rtl-project)
foreach(_src IN LISTS WEFT_RTL_SOURCES)
  if(NOT _src STREQUAL WEFT_PKG_SV)
    install(FILES ${_src} DESTINATION ${_rtl_project}/rtl COMPONENT runtime)
  endif()
endforeach()
install(FILES ${WEFT_SOURCE_DIR}/rtl/sources.cmake DESTINATION ${_rtl_project}/rtl COMPONENT runtime)
install(FILES ${WEFT_PKG_SV} DESTINATION ${_rtl_project}/generated COMPONENT runtime)
install(FILES ${WEFT_SOURCE_DIR}/sim/rtl_plugin/CMakeLists.txt ${WEFT_SOURCE_DIR}/sim/rtl_plugin/adapter.cpp
        DESTINATION ${_rtl_project}/sim/rtl_plugin COMPONENT runtime)
install(FILES ${WEFT_SOURCE_DIR}/sim/include/weft/sim/rtl_plugin_abi.h
        DESTINATION ${_rtl_project}/sim/include/weft/sim COMPONENT runtime)
install(FILES ${WEFT_SOURCE_DIR}/cmake/WeftRtl.cmake ${WEFT_SOURCE_DIR}/cmake/WeftCcache.cmake
        DESTINATION ${_rtl_project}/cmake COMPONENT runtime)
