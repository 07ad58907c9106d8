# The RTL of weft_top in compile order (the generated package first). Included by the main
# build and by the on-demand plugin project (sim/rtl_plugin/CMakeLists.txt).
set(WEFT_RTL_DIR ${CMAKE_CURRENT_LIST_DIR})
set(WEFT_RTL_SOURCES
  ${WEFT_PKG_SV}
  ${WEFT_RTL_DIR}/weft_top.sv
)
