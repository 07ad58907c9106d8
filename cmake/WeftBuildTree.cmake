# The build tree's marker (common/include/weft/common/locations.h): a small JSON file that tells
# the programs and libraries built here where the source tree, the verilated models, the generated
# RTL package and cmake are, so that no binary carries those paths. Written at the top of the build
# (beside `weft`) and beside libneuralnetworks.so and libweft-accel.so; an installed tree has none
# and finds everything relative to itself.
#
#   weft_write_build_tree_marker(<directory>...)
include_guard(GLOBAL)

function(weft_write_build_tree_marker)
  set(_json "{\n  \"source\": \"${WEFT_SOURCE_DIR}\",\n  \"rtl_models\": \"${WEFT_RTL_OUTPUT_DIR}\",\n")
  string(APPEND _json "  \"rtl_package\": \"${WEFT_PKG_SV}\",\n  \"cmake\": \"${CMAKE_COMMAND}\",\n")
  string(APPEND _json "  \"area_cache\": \"${WEFT_AREA_CACHE_DIR}\"\n}\n")
  foreach(_dir IN LISTS ARGN)
    file(CONFIGURE OUTPUT ${_dir}/weft-build-tree.json CONTENT "${_json}")
  endforeach()
endfunction()
