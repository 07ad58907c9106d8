// Row buffer of the store unit and its DRAM write channel. Entries are tiles; the tiles of one
// output row make one write request (address, bytes) followed by their data beats, in order.
// A request becomes valid once its last tile is in (so its beats never wait for data);
// requests run ahead of data, and a request's beats start in the cycle after its acceptance.
// A tile is popped with its last beat.
//
// A soft reset drops the tiles whose request was not yet accepted (including a row still
// coming in) but still sends the beats of every accepted request, which DRAM is owed (their
// acknowledgements are dropped by weft_wr_mux).
module weft_wr_fifo
  import weft_pkg::*;
  import weft_rtl_pkg::*;
#(
  parameter int unsigned Cols     = DefaultCols,
  parameter int unsigned BusBytes = DefaultBusBytes,
  parameter int unsigned Fp16     = DefaultFp16,
  localparam int unsigned CntW    = $clog2(StoreFifoDepth + 1)
) (
  input  logic                   clk_i,
  input  logic                   rst_ni,
  input  logic                   clr_i,
  // tiles from the post-processing pipeline; the first of a row carries the row's request
  input  logic                   push_i,
  input  logic                   raw_i,
  input  logic                   fp_i,   // Fp16: two bytes a column (fp16)
  input  logic                   last_i,
  input  logic [DramAw-1:0]      addr_i,
  input  logic [ReqBytesW-1:0]   nbytes_i,
  input  logic [ReqBytesW-1:0]   tbytes_i,
  input  logic [StoreTilesW-1:0] ntiles_i,
  input  logic [Cols*32-1:0]     row_i,  // column c in bits [c*32 +: 32]
  output logic [CntW-1:0]        used_o,
  // DRAM write channel
  output logic                   wr_req_valid_o,
  output logic [DramAw-1:0]      wr_req_addr_o,
  output logic [ReqBytesW-1:0]   wr_req_bytes_o,
  input  logic                   wr_req_accept_i,
  output logic                   wr_data_valid_o,
  output logic [BusBytes*8-1:0]  wr_data_o,
  output logic                   wr_data_last_o,
  input  logic                   wr_data_accept_i
);
  localparam int unsigned PtrW = $clog2(StoreFifoDepth);
  localparam int unsigned RowBeats = (4 * Cols + BusBytes - 1) / BusBytes;
  localparam int unsigned RowBits = RowBeats * BusBytes * 8;
  localparam int unsigned BeatW = (RowBeats > 1) ? $clog2(RowBeats) : 1;

  logic [RowBits-1:0]     data_q   [StoreFifoDepth];
  logic [DramAw-1:0]      addr_q   [StoreFifoDepth];
  logic [ReqBytesW-1:0]   bytes_q  [StoreFifoDepth];  // the row's request (first tile)
  logic [ReqBytesW-1:0]   tbytes_q [StoreFifoDepth];  // the tile's own bytes
  logic [StoreTilesW-1:0] ntiles_q [StoreFifoDepth];  // tiles of the row (first tile)
  logic                   last_q   [StoreFifoDepth];
  logic [PtrW-1:0]        wr_ptr_q, req_ptr_q, rd_ptr_q;
  logic [CntW-1:0]        used_q, unreq_q, ready_q;  // tiles held, tiles not yet requested, whole rows not yet requested
  logic [BeatW-1:0]       beat_q;

  logic push, tile_end, pop, accept;
  assign push     = push_i && !clr_i;
  assign tile_end = (32'(beat_q) + 1) * BusBytes >= 32'(tbytes_q[rd_ptr_q]);
  assign pop      = wr_data_accept_i && tile_end;
  assign accept = wr_req_accept_i;

  // Packs a post-processed tile: one byte a column (requant8), two (fp16, Fp16 only) or four
  // (raw32).
  if (Fp16 != 0) begin : g_pack_fp
    always_ff @(posedge clk_i) begin
      if (push) begin
        logic [RowBits-1:0] row;
        row = '0;
        for (int unsigned c = 0; c < Cols; c++) begin
          if (raw_i)     row[32 * c +: 32] = row_i[32 * c +: 32];
          else if (fp_i) row[16 * c +: 16] = row_i[32 * c +: 16];
          else           row[8 * c +: 8]   = row_i[32 * c +: 8];
        end
        data_q[wr_ptr_q] <= row;
      end
    end
  end else begin : g_pack
    always_ff @(posedge clk_i) begin
      if (push) begin
        logic [RowBits-1:0] row;
        row = '0;
        for (int unsigned c = 0; c < Cols; c++) begin
          if (raw_i) row[32 * c +: 32] = row_i[32 * c +: 32];
          else       row[8 * c +: 8]   = row_i[32 * c +: 8];
        end
        data_q[wr_ptr_q] <= row;
      end
    end
    logic unused_fp;
    assign unused_fp = fp_i;
  end

  always_ff @(posedge clk_i) begin
    if (push) begin
      addr_q[wr_ptr_q]   <= addr_i;
      bytes_q[wr_ptr_q]  <= nbytes_i;
      tbytes_q[wr_ptr_q] <= tbytes_i;
      ntiles_q[wr_ptr_q] <= ntiles_i;
      last_q[wr_ptr_q]   <= last_i;
    end
  end

  logic [PtrW-1:0] req_ptr_d;
  logic [CntW-1:0] used_d, unreq_d, ready_d;
  assign req_ptr_d = req_ptr_q + (accept ? PtrW'(ntiles_q[req_ptr_q]) : '0);
  assign used_d    = used_q + CntW'(push) - CntW'(pop);
  assign unreq_d   = unreq_q + CntW'(push) - (accept ? CntW'(ntiles_q[req_ptr_q]) : '0);
  assign ready_d   = ready_q + CntW'(push && last_i) - CntW'(accept);

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      wr_ptr_q  <= '0;
      req_ptr_q <= '0;
      rd_ptr_q  <= '0;
      used_q    <= '0;
      unreq_q   <= '0;
      ready_q   <= '0;
      beat_q    <= '0;
    end else begin
      req_ptr_q <= req_ptr_d;
      if (pop) rd_ptr_q <= rd_ptr_q + 1'b1;
      if (wr_data_accept_i) beat_q <= pop ? '0 : beat_q + 1'b1;
      if (clr_i) begin
        wr_ptr_q <= req_ptr_d;
        used_q   <= used_d - unreq_d;
        unreq_q  <= '0;
        ready_q  <= '0;
      end else begin
        if (push) wr_ptr_q <= wr_ptr_q + 1'b1;
        used_q  <= used_d;
        unreq_q <= unreq_d;
        ready_q <= ready_d;
      end
    end
  end

  assign used_o          = used_q;
  assign wr_req_valid_o  = (ready_q != '0);
  assign wr_req_addr_o   = addr_q[req_ptr_q];
  assign wr_req_bytes_o  = bytes_q[req_ptr_q];
  assign wr_data_valid_o = (used_q != unreq_q);
  assign wr_data_o       = data_q[rd_ptr_q][32'(beat_q) * BusBytes * 8 +: BusBytes * 8];
  assign wr_data_last_o  = tile_end && last_q[rd_ptr_q];
endmodule
