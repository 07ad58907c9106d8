// The 64-bit performance counters of hw/spec/regs.json, in register order (weft_pkg counter_e).
// Reset only by the hardware reset; every unit reports one cycle's events.
module weft_counters
  import weft_pkg::*;
(
  input  logic                 clk_i,
  input  logic                 rst_ni,
  input  logic                 busy_i,
  input  logic                 load_active_i,
  input  logic                 compute_active_i,
  input  logic                 store_active_i,
  input  logic                 vector_active_i,
  input  logic                 array_row_i,
  input  logic                 fp_row_i,       // the row entering the array is a GEMM fp16 row
  input  logic                 vector_slot_i,
  input  logic                 w_rd_row_i,     // the compute unit read a weight-scratchpad row
  input  logic [11:0]          rd_bytes_i,     // bytes of the read request accepted this cycle
  input  logic [11:0]          wr_bytes_i,     // bytes of the write request accepted this cycle
  input  logic                 rd_req_i,
  input  logic                 wr_req_i,
  input  logic                 stall_load_token_i,
  input  logic                 stall_compute_token_i,
  input  logic                 stall_store_token_i,
  input  logic                 stall_vector_token_i,
  input  logic                 stall_dram_rd_i,
  input  logic                 stall_dram_wr_i,
  input  logic [2:0]           retired_i,      // commands completed this cycle
  output logic [NumCounters*64-1:0] cnt_o  // counter i in bits [i*64 +: 64]
);
  logic [63:0] inc [NumCounters];
  logic [63:0] cnt_q [NumCounters];

  always_comb begin
    inc[CntCycles]            = 64'd1;
    inc[CntBusy]              = 64'(busy_i);
    inc[CntLoadActive]        = 64'(load_active_i);
    inc[CntComputeActive]     = 64'(compute_active_i);
    inc[CntStoreActive]       = 64'(store_active_i);
    inc[CntArrayRows]         = 64'(array_row_i);
    inc[CntDmaRdBytes]        = 64'(rd_bytes_i);
    inc[CntDmaWrBytes]        = 64'(wr_bytes_i);
    inc[CntDmaRdReqs]         = 64'(rd_req_i);
    inc[CntDmaWrReqs]         = 64'(wr_req_i);
    inc[CntStallLoadToken]    = 64'(stall_load_token_i);
    inc[CntStallComputeToken] = 64'(stall_compute_token_i);
    inc[CntStallStoreToken]   = 64'(stall_store_token_i);
    inc[CntStallDramRd]       = 64'(stall_dram_rd_i);
    inc[CntStallDramWr]       = 64'(stall_dram_wr_i);
    inc[CntCmdsRetired]       = 64'(retired_i);
    inc[CntVectorActive]      = 64'(vector_active_i);
    inc[CntVectorSlots]       = 64'(vector_slot_i);
    inc[CntStallVectorToken]  = 64'(stall_vector_token_i);
    inc[CntWspadRdRows]       = 64'(w_rd_row_i);
    inc[CntFp16Rows]          = 64'(fp_row_i);
  end

  for (genvar i = 0; i < NumCounters; i++) begin : g_cnt
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) cnt_q[i] <= '0;
      else         cnt_q[i] <= cnt_q[i] + inc[i];
    end
    assign cnt_o[i*64 +: 64] = cnt_q[i];
  end
endmodule
