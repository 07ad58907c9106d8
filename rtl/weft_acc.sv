// Accumulator memory: Cols banks of AccRows int32 words (bank c holds column c), so each
// column writes back on its own skewed cycle with no deskew registers. A row's write-back
// descriptor moves right one column a cycle alongside the column sums leaving the array.
//
// Timing for a row issued at edge s: the descriptor is in meta_q at edge s+Rows, in col_q[c]
// at edge s+Rows+1+c, when column c also reads the old value (accumulate); column c writes at
// edge s+Rows+2+c. The GEMM's last row completes at the write of column Cols-1 (done_o is
// high in the cycle before that edge). A read of the word written at the same edge gets the
// new value (bypass), so back-to-back accumulating GEMMs never see a stale sum.
// The store unit's read port reads a whole row (registered). The vector unit writes whole rows
// (vec_we_i); programs order its writes against the array's through tokens, so the two never
// write the same row in one cycle and a GEMM never accumulates onto a row the vector unit is
// writing.
module weft_acc
  import weft_pkg::*;
  import weft_rtl_pkg::*;
#(
  parameter int unsigned Cols    = DefaultCols,
  parameter int unsigned AccRows = DefaultAccRows
) (
  input  logic             clk_i,
  input  logic             rst_ni,
  input  logic             clr_i,
  input  logic             en_i,
  input  acc_meta_t        meta_i,
  input  logic [31:0]      psum_i [Cols],
  output logic             done_o,
  output logic [1:0]       done_sig_o,
  // vector unit write port
  input  logic             vec_we_i,
  input  logic [RowAw-1:0] vec_addr_i,
  input  logic [31:0]      vec_data_i [Cols],
  // store read port
  input  logic             rd_en_i,
  input  logic [RowAw-1:0] rd_addr_i,
  output logic [31:0]      rd_data_o [Cols]
);
  localparam int unsigned Aw = $clog2(AccRows);

  logic [31:0] bank_q [Cols][AccRows];
  acc_meta_t   meta_q;
  acc_meta_t   col_q [Cols];
  logic [31:0] old_q [Cols];
  logic [31:0] rd_q  [Cols];

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni)    meta_q <= '0;
    else if (clr_i) meta_q.valid <= 1'b0;
    else if (en_i)  meta_q <= meta_i;
  end

  for (genvar c = 0; c < Cols; c++) begin : g_col
    acc_meta_t in;
    logic [31:0] wdata;
    if (c == 0) begin : g_first
      assign in = meta_q;
    end else begin : g_next
      assign in = col_q[c-1];
    end

    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni)    col_q[c] <= '0;
      else if (clr_i) col_q[c].valid <= 1'b0;
      else if (en_i)  col_q[c] <= in;
    end

    always_ff @(posedge clk_i) begin
      if (en_i) begin
        if (col_q[c].valid) bank_q[c][col_q[c].acc_addr[Aw-1:0]] <= wdata;
        if (in.valid) begin
          old_q[c] <= (col_q[c].valid && col_q[c].acc_addr == in.acc_addr)
                      ? wdata : bank_q[c][in.acc_addr[Aw-1:0]];
        end
      end
      if (vec_we_i) bank_q[c][vec_addr_i[Aw-1:0]] <= vec_data_i[c];
      if (rd_en_i) rd_q[c] <= bank_q[c][rd_addr_i[Aw-1:0]];
    end

    assign wdata = psum_i[c] + (col_q[c].accumulate ? old_q[c] : 32'd0);
  end

  assign done_o          = col_q[Cols-1].valid && col_q[Cols-1].last;
  assign done_sig_o      = col_q[Cols-1].sig;
  assign rd_data_o       = rd_q;

  logic unused;
  assign unused = ^{rd_addr_i, vec_addr_i, meta_q.last, meta_q.sig};
endmodule
