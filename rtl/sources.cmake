# The RTL of weft_top in compile order (the generated package first). Included by the main
# build and by the on-demand plugin project (sim/rtl_plugin/CMakeLists.txt).
set(WEFT_RTL_DIR ${CMAKE_CURRENT_LIST_DIR})
set(WEFT_RTL_SOURCES
  ${WEFT_PKG_SV}
  ${WEFT_RTL_DIR}/weft_rtl_pkg.sv
  ${WEFT_RTL_DIR}/weft_fixed_pkg.sv
  ${WEFT_RTL_DIR}/weft_fp_pkg.sv
  ${WEFT_RTL_DIR}/weft_fifo.sv
  ${WEFT_RTL_DIR}/weft_ram.sv
  ${WEFT_RTL_DIR}/weft_tokens.sv
  ${WEFT_RTL_DIR}/weft_counters.sv
  ${WEFT_RTL_DIR}/weft_csr.sv
  ${WEFT_RTL_DIR}/weft_fetch.sv
  ${WEFT_RTL_DIR}/weft_ctrl.sv
  ${WEFT_RTL_DIR}/weft_rd_arb.sv
  ${WEFT_RTL_DIR}/weft_load.sv
  ${WEFT_RTL_DIR}/weft_gemm_steps.sv
  ${WEFT_RTL_DIR}/weft_compute.sv
  ${WEFT_RTL_DIR}/weft_compute_os.sv
  ${WEFT_RTL_DIR}/weft_in_spad.sv
  ${WEFT_RTL_DIR}/weft_pe.sv
  ${WEFT_RTL_DIR}/weft_array.sv
  ${WEFT_RTL_DIR}/weft_pe_os.sv
  ${WEFT_RTL_DIR}/weft_array_os.sv
  ${WEFT_RTL_DIR}/weft_acc.sv
  ${WEFT_RTL_DIR}/weft_postproc.sv
  ${WEFT_RTL_DIR}/weft_store.sv
  ${WEFT_RTL_DIR}/weft_wr_fifo.sv
  ${WEFT_RTL_DIR}/weft_wr_mux.sv
  ${WEFT_RTL_DIR}/weft_fp32_adder.sv
  ${WEFT_RTL_DIR}/weft_fp32_mul_round.sv
  ${WEFT_RTL_DIR}/weft_vec_lut.sv
  ${WEFT_RTL_DIR}/weft_vec_rsqrt.sv
  ${WEFT_RTL_DIR}/weft_vec_lane.sv
  ${WEFT_RTL_DIR}/weft_vector.sv
  ${WEFT_RTL_DIR}/weft_top.sv
)
