// weft accelerator top: a Rows x Cols int8 weight-stationary systolic array and a Cols-lane
// vector unit with their scratchpads, accumulator, DMA units, controller and registers
// (hw/README.md, hw/spec/*.json, rtl/README.md for the cycle-level behaviour). With Fp16 the
// array, the accumulator and the store unit also compute in binary16/binary32 (GEMM fp16,
// STORE mode fp16).
module weft_top
  import weft_pkg::*;
  import weft_rtl_pkg::*;
#(
  parameter int unsigned Rows           = DefaultRows,
  parameter int unsigned Cols           = DefaultCols,
  parameter int unsigned InSpadRows     = DefaultInSpadRows,
  parameter int unsigned WSpadRows      = DefaultWSpadRows,
  parameter int unsigned AccRows        = DefaultAccRows,
  parameter int unsigned VecSpadRows    = DefaultVecSpadRows,
  parameter int unsigned ParamRows      = DefaultParamRows,
  parameter int unsigned BusBytes       = DefaultBusBytes,
  parameter int unsigned MaxOutstanding = DefaultMaxOutstanding,
  parameter int unsigned CmdQueueDepth  = DefaultCmdQueueDepth,
  parameter int unsigned TokenDepth     = DefaultTokenDepth,
  parameter int unsigned Dataflow       = DefaultDataflow,
  parameter int unsigned Fp16           = DefaultFp16
) (
  input  logic                  clk_i,
  input  logic                  rst_ni,
  // register bus
  input  logic                  reg_req_i,
  input  logic                  reg_we_i,
  input  logic [11:0]           reg_addr_i,
  input  logic [31:0]           reg_wdata_i,
  output logic                  reg_rvalid_o,
  output logic [31:0]           reg_rdata_o,
  // DRAM read port
  output logic                  mem_rd_req_valid_o,
  input  logic                  mem_rd_req_ready_i,
  output logic [39:0]           mem_rd_req_addr_o,
  output logic [11:0]           mem_rd_req_bytes_o,
  input  logic                  mem_rd_data_valid_i,
  input  logic [BusBytes*8-1:0] mem_rd_data_i,
  input  logic                  mem_rd_data_last_i,
  // DRAM write port
  output logic                  mem_wr_req_valid_o,
  input  logic                  mem_wr_req_ready_i,
  output logic [39:0]           mem_wr_req_addr_o,
  output logic [11:0]           mem_wr_req_bytes_o,
  output logic                  mem_wr_data_valid_o,
  input  logic                  mem_wr_data_ready_i,
  output logic [BusBytes*8-1:0] mem_wr_data_o,
  output logic                  mem_wr_data_last_o,
  input  logic                  mem_wr_ack_i,
  // interrupt
  output logic                  irq_o
);
  localparam int unsigned RowMaxBytes = (Rows > 9 * Cols) ? Rows : 9 * Cols;

  // ---------------------------------------------------------------- registers and counters
  logic        enable, clr, halted, irq_done, irq_error, busy;
  logic [39:0] ring_base;
  logic [31:0] ring_size, ring_tail, ring_head;
  logic [7:0]  error;
  logic [NumCounters*64-1:0] cnt;  // counter i in bits [i*64 +: 64]

  weft_csr #(
    .Rows(Rows), .Cols(Cols), .InSpadRows(InSpadRows), .WSpadRows(WSpadRows),
    .AccRows(AccRows), .VecSpadRows(VecSpadRows), .ParamRows(ParamRows), .BusBytes(BusBytes),
    .MaxOutstanding(MaxOutstanding), .CmdQueueDepth(CmdQueueDepth), .TokenDepth(TokenDepth),
    .Dataflow(Dataflow), .Fp16(Fp16)
  ) u_csr (
    .clk_i, .rst_ni,
    .reg_req_i, .reg_we_i, .reg_addr_i, .reg_wdata_i, .reg_rvalid_o, .reg_rdata_o,
    .enable_o   (enable),
    .soft_rst_o (clr),
    .ring_base_o(ring_base),
    .ring_size_o(ring_size),
    .ring_tail_o(ring_tail),
    .ring_head_i(ring_head),
    .busy_i     (busy),
    .halted_i   (halted),
    .error_i    (error),
    .irq_done_i (irq_done),
    .irq_error_i(irq_error),
    .cnt_i      (cnt),
    .irq_o
  );

  // ---------------------------------------------------------------- fetch and decode
  logic fetch_req_valid, fetch_req_odd, fetch_accept, fetch_beat, fetch_busy, ring_err;
  logic [DramAw-1:0]    fetch_req_addr;
  logic [ReqBytesW-1:0] fetch_req_bytes;
  logic fetched_valid, fetched_pop;
  cmd_t fetched;
  rd_tag_t rd_tag;

  weft_fetch #(.BusBytes(BusBytes)) u_fetch (
    .clk_i, .rst_ni, .clr_i(clr),
    .enable_i    (enable),
    .stop_i      (halted),
    .ring_base_i (ring_base),
    .ring_size_i (ring_size),
    .ring_tail_i (ring_tail),
    .ring_head_o (ring_head),
    .ring_err_o  (ring_err),
    .req_valid_o (fetch_req_valid),
    .req_addr_o  (fetch_req_addr),
    .req_bytes_o (fetch_req_bytes),
    .req_odd_o   (fetch_req_odd),
    .req_accept_i(fetch_accept),
    .beat_valid_i(fetch_beat),
    .beat_data_i (mem_rd_data_i),
    .beat_last_i (mem_rd_data_last_i),
    .beat_odd_i  (rd_tag.fetch_odd),
    .cmd_valid_o (fetched_valid),
    .cmd_o       (fetched),
    .cmd_pop_i   (fetched_pop),
    .busy_o      (fetch_busy)
  );

  cmd_t disp_cmd;
  logic [NumFifoUnits-1:0] disp, q_full, q_empty, q_pop;
  cmd_t unit_cmd [NumFifoUnits];
  logic drained, ctrl_busy, ctrl_retire;
  logic snap_sel, sn_req_valid, sn_req_accept, sn_data_valid, sn_data_last, sn_data_accept, sn_ack;
  logic [DramAw-1:0]     sn_req_addr;
  logic [ReqBytesW-1:0]  sn_req_bytes;
  logic [BusBytes*8-1:0] sn_data;
  logic ld_idle, cp_idle, st_idle, vc_idle, wr_idle;

  assign drained = (&q_empty) && ld_idle && cp_idle && st_idle && vc_idle && wr_idle;

  weft_ctrl #(
    .Rows(Rows), .Cols(Cols), .InSpadRows(InSpadRows), .WSpadRows(WSpadRows),
    .AccRows(AccRows), .VecSpadRows(VecSpadRows), .ParamRows(ParamRows), .BusBytes(BusBytes),
    .MaxOutstanding(MaxOutstanding), .CmdQueueDepth(CmdQueueDepth), .TokenDepth(TokenDepth),
    .Dataflow(Dataflow), .Fp16(Fp16)
  ) u_ctrl (
    .clk_i, .rst_ni, .clr_i(clr),
    .cmd_valid_i     (fetched_valid),
    .cmd_i           (fetched),
    .cmd_pop_o       (fetched_pop),
    .ring_err_i      (ring_err),
    .disp_cmd_o      (disp_cmd),
    .disp_o          (disp),
    .full_i          (q_full),
    .drained_i       (drained),
    .cnt_i           (cnt),
    .snap_active_o   (snap_sel),
    .wr_req_valid_o  (sn_req_valid),
    .wr_req_addr_o   (sn_req_addr),
    .wr_req_bytes_o  (sn_req_bytes),
    .wr_req_accept_i (sn_req_accept),
    .wr_data_valid_o (sn_data_valid),
    .wr_data_o       (sn_data),
    .wr_data_last_o  (sn_data_last),
    .wr_data_accept_i(sn_data_accept),
    .wr_ack_i        (sn_ack),
    .halted_o        (halted),
    .error_o         (error),
    .irq_done_o      (irq_done),
    .irq_error_o     (irq_error),
    .retire_o        (ctrl_retire),
    .busy_o          (ctrl_busy)
  );

  // ---------------------------------------------------------------- unit queues and tokens
  for (genvar u = 0; u < NumFifoUnits; u++) begin : g_queue
    weft_fifo #(.Width(CmdBits), .Depth(CmdQueueDepth)) u_q (
      .clk_i, .rst_ni, .clr_i(clr), .push_i(disp[u]), .wdata_i(disp_cmd), .pop_i(q_pop[u]),
      .rdata_o(unit_cmd[u]), .empty_o(q_empty[u]), .full_o(q_full[u]));
  end

  logic [NumTokQ-1:0] tok_rsv, tok_push, tok_pop, tok_avail, tok_space;

  weft_tokens #(.TokenDepth(TokenDepth)) u_tokens (
    .clk_i, .rst_ni, .clr_i(clr),
    .rsv_i(tok_rsv), .push_i(tok_push), .pop_i(tok_pop),
    .avail_o(tok_avail), .space_o(tok_space)
  );

  // Each unit's two wait and two signal ports, wired to the queues its header bits name
  // (hw/spec/isa.json units; every queue has one producer port and one consumer port).
  logic [1:0] wait_avail [NumFifoUnits];
  logic [1:0] sig_space  [NumFifoUnits];
  logic [1:0] wait_pop   [NumFifoUnits];
  logic [1:0] sig_rsv    [NumFifoUnits];
  logic [1:0] sig_push   [NumFifoUnits];
  for (genvar u = 0; u < NumFifoUnits; u++) begin : g_unit_tok
    for (genvar p = 0; p < 2; p++) begin : g_port
      localparam int unsigned WaitQ = tok_wait_queue(u, p);
      localparam int unsigned SigQ  = tok_signal_queue(u, p);
      assign wait_avail[u][p] = tok_avail[WaitQ];
      assign sig_space[u][p]  = tok_space[SigQ];
      assign tok_pop[WaitQ]   = wait_pop[u][p];
      assign tok_rsv[SigQ]    = sig_rsv[u][p];
      assign tok_push[SigQ]   = sig_push[u][p];
    end
  end

  // ---------------------------------------------------------------- DRAM read port and load
  logic ld_req_valid, ld_accept, ld_beat;
  logic [DramAw-1:0] ld_req_addr;
  rd_tag_t ld_req_tag;
  logic [ReqBytesW-1:0] ld_req_bytes;
  logic [ReqBytesW-1:0] rd_bytes;
  logic rd_idle;

  weft_rd_arb #(.MaxOutstanding(MaxOutstanding)) u_rd_arb (
    .clk_i, .rst_ni, .clr_i(clr),
    .fetch_valid_i   (fetch_req_valid),
    .fetch_addr_i    (fetch_req_addr),
    .fetch_bytes_i   (fetch_req_bytes),
    .fetch_odd_i     (fetch_req_odd),
    .fetch_accept_o  (fetch_accept),
    .load_valid_i    (ld_req_valid),
    .load_addr_i     (ld_req_addr),
    .load_bytes_i    (ld_req_bytes),
    .load_tag_i      (ld_req_tag),
    .load_accept_o   (ld_accept),
    .mem_req_valid_o (mem_rd_req_valid_o),
    .mem_req_ready_i (mem_rd_req_ready_i),
    .mem_req_addr_o  (mem_rd_req_addr_o),
    .mem_req_bytes_o (mem_rd_req_bytes_o),
    .mem_data_valid_i(mem_rd_data_valid_i),
    .mem_data_last_i (mem_rd_data_last_i),
    .fetch_beat_o    (fetch_beat),
    .load_beat_o     (ld_beat),
    .tag_o           (rd_tag),
    .accepted_bytes_o(rd_bytes),
    .idle_o          (rd_idle)
  );

  logic ld_wr_valid, ld_active, ld_stall_tok, ld_stall_dram, ld_retire;
  mem_e ld_wr_dst;
  logic [RowAw-1:0] ld_wr_addr;
  logic [RowMaxBytes*8-1:0] ld_wr_data;
  logic ld_wr_pack;
  logic [7:0] ld_wr_off, ld_wr_nbytes;

  weft_load #(.Rows(Rows), .Cols(Cols), .BusBytes(BusBytes)) u_load (
    .clk_i, .rst_ni, .clr_i(clr),
    .cmd_valid_i  (!q_empty[UnitLoad]),
    .cmd_i        (unit_cmd[UnitLoad]),
    .cmd_pop_o    (q_pop[UnitLoad]),
    .wait_avail_i (wait_avail[UnitLoad]),
    .sig_space_i  (sig_space[UnitLoad]),
    .wait_pop_o   (wait_pop[UnitLoad]),
    .sig_rsv_o    (sig_rsv[UnitLoad]),
    .sig_push_o   (sig_push[UnitLoad]),
    .req_valid_o  (ld_req_valid),
    .req_addr_o   (ld_req_addr),
    .req_bytes_o  (ld_req_bytes),
    .req_tag_o    (ld_req_tag),
    .req_accept_i (ld_accept),
    .beat_valid_i (ld_beat),
    .beat_data_i  (mem_rd_data_i),
    .beat_last_i  (mem_rd_data_last_i),
    .beat_tag_i   (rd_tag),
    .wr_valid_o   (ld_wr_valid),
    .wr_dst_o     (ld_wr_dst),
    .wr_addr_o    (ld_wr_addr),
    .wr_data_o    (ld_wr_data),
    .wr_pack_o    (ld_wr_pack),
    .wr_off_o     (ld_wr_off),
    .wr_nbytes_o  (ld_wr_nbytes),
    .active_o     (ld_active),
    .stall_token_o(ld_stall_tok),
    .stall_dram_o (ld_stall_dram),
    .retire_o     (ld_retire),
    .idle_o       (ld_idle)
  );

  // ---------------------------------------------------------------- memories
  logic w_re;
  logic [RowAw-1:0] w_raddr;
  logic [Cols*8-1:0] w_rdata;

  weft_ram #(.Width(Cols * 8), .Depth(WSpadRows)) u_w_spad (
    .clk_i,
    .we_i   (ld_wr_valid && ld_wr_dst == MemW),
    .waddr_i(ld_wr_addr[$clog2(WSpadRows)-1:0]),
    .wdata_i(ld_wr_data[Cols*8-1:0]),
    .re_i   (w_re),
    .raddr_i(w_raddr[$clog2(WSpadRows)-1:0]),
    .rdata_o(w_rdata)
  );

  logic param_re;
  logic [RowAw-1:0] param_raddr;
  logic [72*Cols-1:0] param_rdata;

  weft_ram #(.Width(72 * Cols), .Depth(ParamRows)) u_param_mem (
    .clk_i,
    .we_i   (ld_wr_valid && ld_wr_dst == MemParam),
    .waddr_i(ld_wr_addr[$clog2(ParamRows)-1:0]),
    .wdata_i(ld_wr_data[72*Cols-1:0]),
    .re_i   (param_re),
    .raddr_i(param_raddr[$clog2(ParamRows)-1:0]),
    .rdata_o(param_rdata)
  );

  // ---------------------------------------------------------------- vector unit
  // The vector scratchpad has two read ports (operand rows a and b in one cycle), built as two
  // copies that the load unit writes together.
  logic vs_a_re, vs_b_re;
  logic [RowAw-1:0] vs_a_raddr, vs_b_raddr;
  logic [Cols*8-1:0] vs_a_rdata, vs_b_rdata;
  logic vs_we;
  assign vs_we = ld_wr_valid && ld_wr_dst == MemVec;

  weft_ram #(.Width(Cols * 8), .Depth(VecSpadRows)) u_vec_spad_a (
    .clk_i,
    .we_i   (vs_we),
    .waddr_i(ld_wr_addr[$clog2(VecSpadRows)-1:0]),
    .wdata_i(ld_wr_data[Cols*8-1:0]),
    .re_i   (vs_a_re),
    .raddr_i(vs_a_raddr[$clog2(VecSpadRows)-1:0]),
    .rdata_o(vs_a_rdata)
  );
  weft_ram #(.Width(Cols * 8), .Depth(VecSpadRows)) u_vec_spad_b (
    .clk_i,
    .we_i   (vs_we),
    .waddr_i(ld_wr_addr[$clog2(VecSpadRows)-1:0]),
    .wdata_i(ld_wr_data[Cols*8-1:0]),
    .re_i   (vs_b_re),
    .raddr_i(vs_b_raddr[$clog2(VecSpadRows)-1:0]),
    .rdata_o(vs_b_rdata)
  );

  logic [Cols*8-1:0]  lut_idx;   // lane l in bits [l*8 +: 8]
  logic [Cols*32-1:0] lut_data;  // lane l in bits [l*32 +: 32]

  weft_vec_lut #(.Cols(Cols)) u_vec_lut (
    .clk_i,
    .we_i   (ld_wr_valid && ld_wr_dst == MemLut),
    .waddr_i(ld_wr_addr),
    .wdata_i(ld_wr_data[Cols*32-1:0]),
    .idx_i  (lut_idx),
    .data_o (lut_data)
  );

  logic             vc_acc_we;
  logic [RowAw-1:0] vc_acc_addr;
  logic [Cols*32-1:0] vc_acc_data;
  logic             vc_active, vc_stall_tok, vc_slot, vc_retire;

  weft_vector #(.Cols(Cols), .Fp16(Fp16)) u_vector (
    .clk_i, .rst_ni, .clr_i(clr),
    .cmd_valid_i  (!q_empty[UnitVector]),
    .cmd_i        (unit_cmd[UnitVector]),
    .cmd_pop_o    (q_pop[UnitVector]),
    .wait_avail_i (wait_avail[UnitVector]),
    .sig_space_i  (sig_space[UnitVector]),
    .wait_pop_o   (wait_pop[UnitVector]),
    .sig_rsv_o    (sig_rsv[UnitVector]),
    .sig_push_o   (sig_push[UnitVector]),
    .a_re_o       (vs_a_re),
    .a_raddr_o    (vs_a_raddr),
    .a_rdata_i    (vs_a_rdata),
    .b_re_o       (vs_b_re),
    .b_raddr_o    (vs_b_raddr),
    .b_rdata_i    (vs_b_rdata),
    .lut_idx_o    (lut_idx),
    .lut_data_i   (lut_data),
    .acc_we_o     (vc_acc_we),
    .acc_addr_o   (vc_acc_addr),
    .acc_data_o   (vc_acc_data),
    .active_o     (vc_active),
    .stall_token_o(vc_stall_tok),
    .slot_o       (vc_slot),
    .retire_o     (vc_retire),
    .idle_o       (vc_idle)
  );

  // ---------------------------------------------------------------- compute
  // The array and its compute unit per Dataflow; both hand the accumulator the same column
  // sums and write-back descriptors (weft_acc), skewed one cycle a column.
  row_meta_t  row;
  logic       pipe_en, gemm_done;
  logic [1:0] gemm_done_sig;
  logic       cp_active, cp_stall_tok, array_row, fp_row, cp_retire, cp_start;
  logic [Rows*OperandW-1:0] x;  // lane r in bits [r*OperandW +: OperandW]
  logic [Rows-1:0]          x_sel;
  logic [Rows-1:0]          x_fp;   // Fp16: lanes carrying binary16 bytes
  acc_meta_t   acc_meta, spad_acc_meta;
  logic [Cols*32-1:0] psum;  // column c in bits [c*32 +: 32]

  weft_in_spad #(.Rows(Rows), .InSpadRows(InSpadRows), .Dataflow(Dataflow), .Fp16(Fp16)) u_in_spad (
    .clk_i, .rst_ni, .clr_i(clr),
    .en_i     (pipe_en),
    .wr_en_i  (ld_wr_valid && ld_wr_dst == MemIn),
    .wr_addr_i(ld_wr_addr),
    .wr_data_i(ld_wr_data[Rows*8-1:0]),
    .wr_pack_i(ld_wr_pack),
    .wr_off_i (ld_wr_off),
    .wr_nbytes_i(ld_wr_nbytes),
    .row_i    (row),
    .x_o      (x),
    .sel_o    (x_sel),
    .fp_o     (x_fp),
    .acc_o    (spad_acc_meta)
  );

  if (Dataflow == DataflowOS) begin : g_os
    logic [Cols*OperandW-1:0] w_bus;  // column c in bits [c*OperandW +: OperandW]
    logic                     slot_valid;
    logic [$clog2(Rows)-1:0]  slot_row;

    weft_compute_os #(.Rows(Rows), .Cols(Cols)) u_compute (
      .clk_i, .rst_ni, .clr_i(clr),
      .cmd_valid_i    (!q_empty[UnitCompute]),
      .cmd_i          (unit_cmd[UnitCompute]),
      .cmd_pop_o      (q_pop[UnitCompute]),
      .wait_avail_i (wait_avail[UnitCompute]),
      .sig_space_i  (sig_space[UnitCompute]),
      .wait_pop_o   (wait_pop[UnitCompute]),
      .sig_rsv_o    (sig_rsv[UnitCompute]),
      .sig_push_o   (sig_push[UnitCompute]),
      .w_re_o         (w_re),
      .w_raddr_o      (w_raddr),
      .w_rdata_i      (w_rdata),
      .w_o            (w_bus),
      .row_o          (row),
      .slot_valid_o   (slot_valid),
      .slot_row_o     (slot_row),
      .meta_o         (acc_meta),
      .pipe_en_o      (pipe_en),
      .done_i         (gemm_done),
      .done_sig_i     (gemm_done_sig),
      .active_o       (cp_active),
      .stall_token_o  (cp_stall_tok),
      .array_row_o    (array_row),
      .retire_o       (cp_retire),
      .cmd_start_o    (cp_start),
      .idle_o         (cp_idle)
    );

    weft_array_os #(.Rows(Rows), .Cols(Cols)) u_array (
      .clk_i, .rst_ni, .clr_i(clr),
      .en_i        (pipe_en),
      .slot_valid_i(slot_valid),
      .slot_row_i  (slot_row),
      .x_i         (x),
      .w_i         (w_bus),
      .psum_o      (psum)
    );

    assign fp_row = 1'b0;  // no fp16 datapath (Fp16 needs WS)
    logic unused_os;
    assign unused_os = ^{x_sel, x_fp, spad_acc_meta};
  end else begin : g_ws
    logic [Rows*2-1:0]        w_row_we;  // row r in bits [r*2 +: 2]
    logic                     w_t;       // the write selects a column (w_transposed)
    logic [Cols*OperandW-1:0] w_bus;     // column c in bits [c*OperandW +: OperandW]

    weft_compute #(.Rows(Rows), .Cols(Cols), .Fp16(Fp16)) u_compute (
      .clk_i, .rst_ni, .clr_i(clr),
      .cmd_valid_i    (!q_empty[UnitCompute]),
      .cmd_i          (unit_cmd[UnitCompute]),
      .cmd_pop_o      (q_pop[UnitCompute]),
      .wait_avail_i (wait_avail[UnitCompute]),
      .sig_space_i  (sig_space[UnitCompute]),
      .wait_pop_o   (wait_pop[UnitCompute]),
      .sig_rsv_o    (sig_rsv[UnitCompute]),
      .sig_push_o   (sig_push[UnitCompute]),
      .w_re_o         (w_re),
      .w_raddr_o      (w_raddr),
      .w_rdata_i      (w_rdata),
      .w_row_we_o     (w_row_we),
      .w_t_o          (w_t),
      .w_o            (w_bus),
      .row_o          (row),
      .pipe_en_o      (pipe_en),
      .done_i         (gemm_done),
      .done_sig_i     (gemm_done_sig),
      .active_o       (cp_active),
      .stall_token_o  (cp_stall_tok),
      .array_row_o    (array_row),
      .fp_row_o       (fp_row),
      .retire_o       (cp_retire),
      .cmd_start_o    (cp_start),
      .idle_o         (cp_idle)
    );

    weft_array #(.Rows(Rows), .Cols(Cols), .Fp16(Fp16)) u_array (
      .clk_i,
      .en_i      (pipe_en),
      .x_i       (x),
      .sel_i     (x_sel),
      .fp_i      (x_fp),
      .w_row_we_i(w_row_we),
      .w_t_i     (w_t),
      .w_i       (w_bus),
      .psum_o    (psum)
    );

    assign acc_meta = spad_acc_meta;
  end

  logic acc_re;
  logic [RowAw-1:0] acc_raddr;
  logic [Cols*32-1:0] acc_rdata;

  // Fp16 needs Dataflow WS (hw/spec/params.json), so the OS array never hands it fp16 rows.
  weft_acc #(.Cols(Cols), .AccRows(AccRows), .Fp16(Fp16)) u_acc (
    .clk_i, .rst_ni, .clr_i(clr),
    .en_i           (pipe_en),
    .meta_i         (acc_meta),
    .psum_i         (psum),
    .done_o         (gemm_done),
    .done_sig_o     (gemm_done_sig),
    .vec_we_i       (vc_acc_we),
    .vec_addr_i     (vc_acc_addr),
    .vec_data_i     (vc_acc_data),
    .rd_en_i        (acc_re),
    .rd_addr_i      (acc_raddr),
    .rd_data_o      (acc_rdata)
  );

  // ---------------------------------------------------------------- store and DRAM write port
  logic st_req_valid, st_req_accept, st_data_valid, st_data_last, st_data_accept, st_ack;
  logic [DramAw-1:0]     st_req_addr;
  logic [ReqBytesW-1:0]  st_req_bytes;
  logic [BusBytes*8-1:0] st_data;
  logic st_active, st_stall_tok, st_stall_dram, st_retire;

  weft_store #(.Cols(Cols), .BusBytes(BusBytes), .Fp16(Fp16)) u_store (
    .clk_i, .rst_ni, .clr_i(clr),
    .cmd_valid_i     (!q_empty[UnitStore]),
    .cmd_i           (unit_cmd[UnitStore]),
    .cmd_pop_o       (q_pop[UnitStore]),
    .wait_avail_i (wait_avail[UnitStore]),
    .sig_space_i  (sig_space[UnitStore]),
    .wait_pop_o   (wait_pop[UnitStore]),
    .sig_rsv_o    (sig_rsv[UnitStore]),
    .sig_push_o   (sig_push[UnitStore]),
    .param_re_o      (param_re),
    .param_raddr_o   (param_raddr),
    .param_rdata_i   (param_rdata),
    .acc_re_o        (acc_re),
    .acc_raddr_o     (acc_raddr),
    .acc_rdata_i     (acc_rdata),
    .wr_req_valid_o  (st_req_valid),
    .wr_req_addr_o   (st_req_addr),
    .wr_req_bytes_o  (st_req_bytes),
    .wr_req_accept_i (st_req_accept),
    .wr_data_valid_o (st_data_valid),
    .wr_data_o       (st_data),
    .wr_data_last_o  (st_data_last),
    .wr_data_accept_i(st_data_accept),
    .wr_ack_i        (st_ack),
    .active_o        (st_active),
    .stall_token_o   (st_stall_tok),
    .stall_dram_o    (st_stall_dram),
    .retire_o        (st_retire),
    .idle_o          (st_idle)
  );

  logic [ReqBytesW-1:0] wr_bytes;

  weft_wr_mux #(.BusBytes(BusBytes)) u_wr_mux (
    .clk_i, .rst_ni, .clr_i(clr),
    .snap_sel_i      (snap_sel),
    .st_req_valid_i  (st_req_valid),
    .st_req_addr_i   (st_req_addr),
    .st_req_bytes_i  (st_req_bytes),
    .st_req_accept_o (st_req_accept),
    .st_data_valid_i (st_data_valid),
    .st_data_i       (st_data),
    .st_data_last_i  (st_data_last),
    .st_data_accept_o(st_data_accept),
    .st_ack_o        (st_ack),
    .sn_req_valid_i  (sn_req_valid),
    .sn_req_addr_i   (sn_req_addr),
    .sn_req_bytes_i  (sn_req_bytes),
    .sn_req_accept_o (sn_req_accept),
    .sn_data_valid_i (sn_data_valid),
    .sn_data_i       (sn_data),
    .sn_data_last_i  (sn_data_last),
    .sn_data_accept_o(sn_data_accept),
    .sn_ack_o        (sn_ack),
    .mem_req_valid_o (mem_wr_req_valid_o),
    .mem_req_ready_i (mem_wr_req_ready_i),
    .mem_req_addr_o  (mem_wr_req_addr_o),
    .mem_req_bytes_o (mem_wr_req_bytes_o),
    .mem_data_valid_o(mem_wr_data_valid_o),
    .mem_data_ready_i(mem_wr_data_ready_i),
    .mem_data_o      (mem_wr_data_o),
    .mem_data_last_o (mem_wr_data_last_o),
    .mem_ack_i       (mem_wr_ack_i),
    .accepted_bytes_o(wr_bytes),
    .idle_o          (wr_idle)
  );

  // ---------------------------------------------------------------- status and counters
  assign busy = fetch_busy || ctrl_busy || !(&q_empty) || ld_active || cp_active || st_active || vc_active;

  weft_counters u_counters (
    .clk_i, .rst_ni,
    .busy_i               (busy),
    .load_active_i        (ld_active),
    .compute_active_i     (cp_active),
    .store_active_i       (st_active),
    .vector_active_i      (vc_active),
    .array_row_i          (array_row),
    .fp_row_i             (fp_row),
    .vector_slot_i        (vc_slot),
    .w_rd_row_i           (w_re),
    .rd_bytes_i           (rd_bytes),
    .wr_bytes_i           (wr_bytes),
    .rd_req_i             (rd_bytes != '0),
    .wr_req_i             (wr_bytes != '0),
    .stall_load_token_i   (ld_stall_tok),
    .stall_compute_token_i(cp_stall_tok),
    .stall_store_token_i  (st_stall_tok),
    .stall_vector_token_i (vc_stall_tok),
    .stall_dram_rd_i      (ld_stall_dram),
    .stall_dram_wr_i      (st_stall_dram),
    .retired_i            (3'(ld_retire) + 3'(cp_retire) + 3'(st_retire) + 3'(vc_retire) + 3'(ctrl_retire)),
    .cnt_o                (cnt)
  );

  logic unused;
  assign unused = ^{rd_idle, w_raddr, param_raddr, ld_wr_addr, vs_a_raddr, vs_b_raddr};

  // Observation only (drives nothing): this cycle's command handshakes, which the simulation
  // harness reads to build per-command timelines (sim/README.md "Command timelines").
  //   [0] a command enters decode   [4:1] dispatch per unit   [8:5] start per unit
  //   [12:9] retire per unit        [13] controller retire    [14] soft reset
  //   [15] the BARRIER in decode finds the machine drained and executes
  //   [19:16] opcode of the command entering decode
  logic obs_bar_go;
  logic [19:0] obs_cmd_events /*verilator public_flat_rd*/;
  assign obs_bar_go = ctrl_busy && !snap_sel && !halted && drained &&
                      disp_cmd[HdrOpcodeLsb +: HdrOpcodeW] == HdrOpcodeW'(OpBarrier);
  // A unit starts a command when it pops it, but a GEMM of several steps at its first step.
  logic [NumFifoUnits-1:0] obs_start;
  always_comb begin
    obs_start = q_pop;
    obs_start[UnitCompute] = cp_start;
  end
  assign obs_cmd_events = {fetched[HdrOpcodeLsb +: HdrOpcodeW], obs_bar_go, clr, ctrl_retire,
                           vc_retire, st_retire, cp_retire, ld_retire, obs_start, disp, fetched_pop};
endmodule
