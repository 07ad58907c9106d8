# `cpack -G DEB` (run in the build directory): the install of cmake/WeftInstall.cmake under /usr
# as one Debian package. Its Depends are computed by dpkg-shlibdeps from the ELF files (libsystemc,
# libfmt, libonnx, libprotobuf, libstdc++, ...: the Debian packages that provide the libraries
# weft links); what only some commands need is recommended, as Debian does: python3 and
# matplotlib for the HTML report, cmake, verilator and a C++ compiler for RTL models of
# configurations the package does not ship (built on demand into ~/.cache/weft), and they also
# build the bundled example against the package. scripts/check_deb.sh installs it in a clean
# Debian 12 root and runs the main job there.
include_guard(GLOBAL)

set(CPACK_PACKAGE_NAME weft)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "weft maintainers <weft@invalid>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "Android NNAPI on a simulated systolic-array accelerator")
set(CPACK_PACKAGE_DESCRIPTION "libneuralnetworks.so (the NNAPI NDK C API) and its headers, the weft tool, \
and an accelerator simulated from its SystemVerilog (Verilator and SystemC) or by a cycle-approximate \
model, with per-layer timing reports checked against a CPU reference.")
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # weft_<version>_<arch>.deb
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "python3, python3-numpy, python3-matplotlib, cmake, verilator, g++, make")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "yosys, ninja-build")
set(CPACK_RESOURCE_FILE_README ${WEFT_SOURCE_DIR}/README.md)
include(CPack)
