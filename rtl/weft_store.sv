// Store unit: executes STORE commands in order.
//
// Front end: starts a command (tokens, room in the completion queue), then issues one tile (an
// accumulator row and its parameter row, read together) a cycle while the row buffer has room,
// the tiles of an output row consecutively. Tiles flow through the accumulator and parameter
// read (1 cycle) and the two post-processing stages into the row buffer (weft_wr_fifo), which
// issues one DRAM write request per output row once all its tiles are in, then their beats. A
// command completes when DRAM has acknowledged its last row; later commands may run meanwhile.
// A column is one byte (requant8), two (fp16 and fp16_affine, Fp16 only) or four (raw32); the pipeline and its
// timing are the same in every mode, and the row buffer's beats follow the bytes.
module weft_store
  import weft_pkg::*;
  import weft_rtl_pkg::*;
#(
  parameter int unsigned Cols     = DefaultCols,
  parameter int unsigned BusBytes = DefaultBusBytes,
  parameter int unsigned Fp16     = DefaultFp16
) (
  input  logic                  clk_i,
  input  logic                  rst_ni,
  input  logic                  clr_i,
  // command queue
  input  logic                  cmd_valid_i,
  input  cmd_t                  cmd_i,
  output logic                  cmd_pop_o,
  // tokens: waits on compute->store, signals store->compute
  // tokens (weft_pkg Tok<Unit>Wait0/1, Signal0/1): the head's wait queues and signal queues
  input  logic [1:0]            wait_avail_i,
  input  logic [1:0]            sig_space_i,
  output logic [1:0]            wait_pop_o,
  output logic [1:0]            sig_rsv_o,
  output logic [1:0]            sig_push_o,
  // parameter memory read port (registered read)
  output logic                  param_re_o,
  output logic [RowAw-1:0]      param_raddr_o,
  input  logic [72*Cols-1:0]    param_rdata_i,
  // accumulator read port (registered read)
  output logic                  acc_re_o,
  output logic [RowAw-1:0]      acc_raddr_o,
  input  logic [Cols*32-1:0]    acc_rdata_i,  // column c in bits [c*32 +: 32]
  // DRAM writes
  output logic                  wr_req_valid_o,
  output logic [DramAw-1:0]     wr_req_addr_o,
  output logic [ReqBytesW-1:0]  wr_req_bytes_o,
  input  logic                  wr_req_accept_i,
  output logic                  wr_data_valid_o,
  output logic [BusBytes*8-1:0] wr_data_o,
  output logic                  wr_data_last_o,
  input  logic                  wr_data_accept_i,
  input  logic                  wr_ack_i,
  // status
  output logic                  active_o,
  output logic                  stall_token_o,
  output logic                  stall_dram_o,
  output logic                  retire_o,
  output logic                  idle_o
);
  localparam int unsigned NReqW = StoreCount0W + StoreCount1W + 1;

  store_cmd_t head;
  assign head = cmd_i;

  // ---------------------------------------------------------------- front end
  logic                   busy_q, sel_q, raw_q, fp_q, aff_q, latch_q;
  logic [RowAw-1:0]       acc_row_q, acc_tile_q;   // the row's first tile, the tile issued
  logic [RowAw-1:0]       param_q, tile_stride_q;
  logic [StoreTilesW-1:0] t_q, tiles_q;
  logic [ReqBytesW-1:0]   tile_bytes_q, last_bytes_q;  // bytes of a full tile (Cols columns), of the last
  logic [StoreCount0W-1:0] i0_q, i1_q, c0_q, c1_q;
  logic [DramAw-1:0]      addr0_q, addr1_q;
  logic [StoreStride0W-1:0] stride0_q;
  logic [StoreStride1W-1:0] stride1_q;
  logic [ReqBytesW-1:0]   nbytes_q;

  logic cq_full, cq_empty, fifo_room;
  logic tok_ok, start, issue, last_tile, last0, last_row;
  assign last_tile = (t_q == tiles_q - 1'b1);
  assign last0    = (i0_q == c0_q - 1'b1);
  assign last_row = last_tile && last0 && (i1_q == c1_q - 1'b1);
  assign issue    = busy_q && fifo_room;
  assign tok_ok   = tokens_ok(cmd_i, wait_avail_i, sig_space_i);
  assign start    = cmd_valid_i && tok_ok && !cq_full && (!busy_q || (issue && last_row));

  assign cmd_pop_o     = start;
  assign wait_pop_o    = {start && head.wait1, start && head.wait0};
  assign sig_rsv_o     = {start && head.signal1, start && head.signal0};
  assign param_re_o    = issue;
  assign param_raddr_o = param_q + RowAw'(t_q);
  assign acc_re_o      = issue;
  assign acc_raddr_o   = acc_tile_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      busy_q  <= 1'b0;
      sel_q   <= 1'b0;
      latch_q <= 1'b0;
    end else if (clr_i) begin
      busy_q  <= 1'b0;
      latch_q <= 1'b0;
    end else begin
      latch_q <= start;
      if (start) begin
        busy_q <= 1'b1;
        sel_q  <= !sel_q;
      end else if (issue && last_row) begin
        busy_q <= 1'b0;
      end
    end
  end

  always_ff @(posedge clk_i) begin
    if (start) begin
      logic [ReqBytesW-1:0] tile_bytes, last_bytes;
      logic                 fp;
      // A constant 0 without Fp16 (decode rejects fp16 stores there), so no fp16 logic exists.
      fp = (Fp16 != 0) && (head.mode == StoreModeFp16 || head.mode == StoreModeFp16Affine);
      tile_bytes = (head.mode == StoreModeRaw32) ? ReqBytesW'(4 * Cols)
                 : (fp ? ReqBytesW'(2 * Cols) : ReqBytesW'(Cols));
      last_bytes = (head.mode == StoreModeRaw32) ? ReqBytesW'(head.row_bytes) << 2
                 : (fp ? ReqBytesW'(head.row_bytes) << 1 : ReqBytesW'(head.row_bytes));
      raw_q     <= (head.mode == StoreModeRaw32);
      fp_q      <= fp;
      aff_q     <= (Fp16 != 0) && (head.mode == StoreModeFp16Affine);
      // A row's request: every tile but the last whole, the last row_bytes columns.
      nbytes_q  <= ReqBytesW'((32'(head.tiles) - 32'd1) * 32'(tile_bytes)) + last_bytes;
      tile_bytes_q  <= tile_bytes;
      last_bytes_q  <= last_bytes;
      acc_row_q     <= head.acc_addr;
      acc_tile_q    <= head.acc_addr;
      param_q       <= head.param_row;
      tile_stride_q <= head.tile_acc_stride;
      tiles_q       <= head.tiles;
      t_q           <= '0;
      c0_q      <= head.count0;
      c1_q      <= head.count1;
      i0_q      <= '0;
      i1_q      <= '0;
      stride0_q <= head.stride0;
      stride1_q <= head.stride1;
      addr0_q   <= head.dram_addr;
      addr1_q   <= head.dram_addr;
    end else if (issue && !last_tile) begin
      t_q        <= t_q + 1'b1;
      acc_tile_q <= acc_tile_q + tile_stride_q;
    end else if (issue) begin
      t_q        <= '0;
      acc_row_q  <= acc_row_q + 1'b1;
      acc_tile_q <= acc_row_q + 1'b1;
      if (!last0) begin
        i0_q    <= i0_q + 1'b1;
        addr0_q <= addr0_q + DramAw'(stride0_q);
      end else begin
        i0_q    <= '0;
        i1_q    <= i1_q + 1'b1;
        addr1_q <= addr1_q + DramAw'(stride1_q);
        addr0_q <= addr1_q + DramAw'(stride1_q);
      end
    end
  end

  // ---------------------------------------------------------------- command buffers
  // Two buffers of the command-wide settings: a command's load in the cycle after it starts,
  // while tiles of the previous command (the other buffer) are still in the pipeline. The
  // per-column parameters (bias, multiplier, shift) come with each tile from the parameter
  // memory, read beside its accumulator row.
  logic [15:0] out_zp_q [2];
  logic [15:0] clamp_min_q [2];
  logic [15:0] clamp_max_q [2];
  logic        mode_raw_q [2];

  logic [15:0] new_out_zp_q, new_clamp_min_q, new_clamp_max_q;

  always_ff @(posedge clk_i) begin
    if (start) begin
      new_out_zp_q    <= head.out_zp;
      new_clamp_min_q <= head.clamp_min;
      new_clamp_max_q <= head.clamp_max;
    end
    // Written in the cycle after the start, like the parameter row: a row of the command
    // before the previous one may still be in stage 2 at the start edge.
    if (latch_q) begin
      out_zp_q[sel_q]    <= new_out_zp_q;
      clamp_min_q[sel_q] <= new_clamp_min_q;
      clamp_max_q[sel_q] <= new_clamp_max_q;
      mode_raw_q[sel_q]  <= raw_q;
    end
  end

  // ---------------------------------------------------------------- row pipeline
  // A tile in the pipeline, with its row's request (addr, nbytes, ntiles: read from the row's
  // first tile).
  typedef struct packed {
    logic                   valid;
    logic                   sel;
    logic                   raw;
    logic                   fp;
    logic                   aff;      // fp16_affine: times the multiplier word first
    logic                   last;
    logic [DramAw-1:0]      addr;
    logic [ReqBytesW-1:0]   nbytes;
    logic [ReqBytesW-1:0]   tbytes;   // this tile's bytes within the request
    logic [StoreTilesW-1:0] ntiles;
  } row_t;

  row_t p0_q, p1_q, p2_q;  // acc read, post-processing stage 1, stage 2

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      p0_q <= '0;
      p1_q <= '0;
      p2_q <= '0;
    end else if (clr_i) begin
      p0_q.valid <= 1'b0;
      p1_q.valid <= 1'b0;
      p2_q.valid <= 1'b0;
    end else begin
      p0_q.valid <= issue;
      if (issue) begin
        p0_q.sel    <= sel_q;
        p0_q.raw    <= raw_q;
        p0_q.fp     <= fp_q;
        p0_q.aff    <= aff_q;
        p0_q.last   <= last_tile;
        p0_q.addr   <= addr0_q;
        p0_q.nbytes <= nbytes_q;
        p0_q.tbytes <= last_tile ? last_bytes_q : tile_bytes_q;
        p0_q.ntiles <= tiles_q;
      end
      p1_q <= p0_q;
      p2_q <= p1_q;
    end
  end

  logic [Cols*32-1:0] pp_out;  // column c in bits [c*32 +: 32]
  for (genvar c = 0; c < Cols; c++) begin : g_pp
    weft_postproc #(.Fp16(Fp16)) u_pp (
      .clk_i,
      .en1_i      (p0_q.valid),
      .en2_i      (p1_q.valid),
      .acc_i      (acc_rdata_i[c*32 +: 32]),
      .bias_i     (param_rdata_i[32 * c +: 32]),
      .mult_i     (param_rdata_i[32 * (Cols + c) +: 32]),
      .shift_i    (param_rdata_i[64 * Cols + 8 * c +: 8]),
      .raw_i      (mode_raw_q[p1_q.sel]),
      .fp2_i      (p1_q.fp),
      .aff1_i     (p0_q.aff),
      .aff2_i     (p1_q.aff),
      .out_zp_i   (out_zp_q[p1_q.sel]),
      .clamp_min_i(clamp_min_q[p1_q.sel]),
      .clamp_max_i(clamp_max_q[p1_q.sel]),
      .out_o      (pp_out[c*32 +: 32])
    );
  end

  // ---------------------------------------------------------------- row buffer and writes
  logic [$clog2(StoreFifoDepth+1)-1:0] pipe_rows;
  logic [$clog2(StoreFifoDepth+1)-1:0] fifo_used;
  assign pipe_rows = $bits(pipe_rows)'(p0_q.valid) + $bits(pipe_rows)'(p1_q.valid)
                   + $bits(pipe_rows)'(p2_q.valid);
  assign fifo_room = (fifo_used + pipe_rows) < $bits(pipe_rows)'(StoreFifoDepth);

  weft_wr_fifo #(.Cols(Cols), .BusBytes(BusBytes), .Fp16(Fp16)) u_wr_fifo (
    .clk_i, .rst_ni, .clr_i,
    .push_i          (p2_q.valid),
    .raw_i           (p2_q.raw),
    .fp_i            (p2_q.fp),
    .last_i          (p2_q.last),
    .addr_i          (p2_q.addr),
    .nbytes_i        (p2_q.nbytes),
    .tbytes_i        (p2_q.tbytes),
    .ntiles_i        (p2_q.ntiles),
    .row_i           (pp_out),
    .used_o          (fifo_used),
    .wr_req_valid_o,
    .wr_req_addr_o,
    .wr_req_bytes_o,
    .wr_req_accept_i,
    .wr_data_valid_o,
    .wr_data_o,
    .wr_data_last_o,
    .wr_data_accept_i
  );

  // ---------------------------------------------------------------- completion
  typedef struct packed {
    logic [NReqW-1:0] nreq;
    logic [1:0]       sig;
  } pending_t;
  pending_t cq_in, cq_head;
  logic [NReqW-1:0] acks_q;
  logic complete;

  assign cq_in.nreq = NReqW'(head.count0) * NReqW'(head.count1);
  assign cq_in.sig  = {head.signal1, head.signal0};
  assign complete   = wr_ack_i && !cq_empty && (acks_q + 1'b1 == cq_head.nreq);

  weft_fifo #(.Width($bits(cq_in)), .Depth(StoreCmdsInFlight)) u_cq (
    .clk_i, .rst_ni, .clr_i,
    .push_i (start),
    .wdata_i(cq_in),
    .pop_i  (complete),
    .rdata_o(cq_head),
    .empty_o(cq_empty),
    .full_o (cq_full)
  );

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni)       acks_q <= '0;
    else if (clr_i)    acks_q <= '0;
    else if (wr_ack_i) acks_q <= complete ? '0 : acks_q + 1'b1;
  end

  assign sig_push_o    = complete ? cq_head.sig : 2'b00;
  assign retire_o      = complete;
  assign active_o      = !cq_empty;
  assign idle_o        = cq_empty;
  assign stall_token_o = cmd_valid_i && !tok_ok;
  assign stall_dram_o  = (wr_req_valid_o && !wr_req_accept_i) || (wr_data_valid_o && !wr_data_accept_i);

  logic unused;
  assign unused = ^{head, p2_q.sel, p2_q.aff};
endmodule
