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
// Fp16: a GEMM fp16 row (meta fp) accumulates in binary32 (weft_fp_pkg fp32_add) instead of
// int32; the descriptor's fp bit exists only with Fp16.
module weft_acc
  import weft_pkg::*;
  import weft_rtl_pkg::*;
  import weft_fp_pkg::*;
#(
  parameter int unsigned Cols    = DefaultCols,
  parameter int unsigned AccRows = DefaultAccRows,
  parameter int unsigned Fp16    = DefaultFp16
) (
  input  logic             clk_i,
  input  logic             rst_ni,
  input  logic             clr_i,
  input  logic             en_i,
  input  acc_meta_t        meta_i,
  input  logic [Cols*32-1:0] psum_i,      // column c in bits [c*32 +: 32]
  output logic             done_o,
  output logic [1:0]       done_sig_o,
  // vector unit write port
  input  logic             vec_we_i,
  input  logic [RowAw-1:0] vec_addr_i,
  input  logic [Cols*32-1:0] vec_data_i,
  // store read port
  input  logic             rd_en_i,
  input  logic [RowAw-1:0] rd_addr_i,
  output logic [Cols*32-1:0] rd_data_o
);
  localparam int unsigned Aw = $clog2(AccRows);

  logic [31:0] bank_q [Cols][AccRows];
  acc_meta_t   meta_q;
  logic [31:0] old_q [Cols];
  logic [31:0] rd_q  [Cols];
  // The write-back descriptor at column c, one array per acc_meta_t field (yosys 0.23 cannot
  // select a member of an array element; rtl/README.md).
  logic             col_valid_q [Cols];
  logic [RowAw-1:0] col_addr_q  [Cols];
  logic             col_accum_q [Cols];
  logic             col_last_q  [Cols];
  logic [1:0]       col_sig_q   [Cols];
  logic             col_fp      [Cols];  // Fp16: a register, else constant 0

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni)    meta_q <= '0;
    else if (clr_i) meta_q.valid <= 1'b0;
    else if (en_i) begin
      meta_q <= meta_i;
      if (Fp16 == 0) meta_q.fp <= 1'b0;  // no register without Fp16
    end
  end

  for (genvar c = 0; c < Cols; c++) begin : g_col
    // The descriptor arriving from the left (meta_q for column 0).
    logic             in_valid, in_accum, in_last;
    logic [RowAw-1:0] in_addr;
    logic [1:0]       in_sig;
    logic [RowAw-1:0] addr;  // col_addr_q[c]
    if (c == 0) begin : g_first
      assign in_valid = meta_q.valid;
      assign in_addr  = meta_q.acc_addr;
      assign in_accum = meta_q.accumulate;
      assign in_last  = meta_q.last;
      assign in_sig   = meta_q.sig;
    end else begin : g_next
      assign in_valid = col_valid_q[c-1];
      assign in_addr  = col_addr_q[c-1];
      assign in_accum = col_accum_q[c-1];
      assign in_last  = col_last_q[c-1];
      assign in_sig   = col_sig_q[c-1];
    end

    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        col_valid_q[c] <= 1'b0;
        col_addr_q[c]  <= '0;
        col_accum_q[c] <= 1'b0;
        col_last_q[c]  <= 1'b0;
        col_sig_q[c]   <= '0;
      end else if (clr_i) begin
        col_valid_q[c] <= 1'b0;
      end else if (en_i) begin
        col_valid_q[c] <= in_valid;
        col_addr_q[c]  <= in_addr;
        col_accum_q[c] <= in_accum;
        col_last_q[c]  <= in_last;
        col_sig_q[c]   <= in_sig;
      end
    end

    assign addr = col_addr_q[c];
    if (Fp16 != 0) begin : g_fp
      logic in_fp;
      if (c == 0) begin : g_first
        assign in_fp = meta_q.fp;
      end else begin : g_next
        assign in_fp = col_fp[c-1];
      end
      always_ff @(posedge clk_i) begin
        if (en_i) col_fp[c] <= in_fp;  // read only with col_valid_q
      end
      // The written word is computed in the process, not in a continuous assignment or an
      // always_comb, which the simulator turns into a select of both sums, evaluating the binary32
      // adder every cycle; here it runs only while the array runs, for fp16 rows that accumulate.
      always_ff @(posedge clk_i) begin
        if (en_i) begin
          logic [31:0] wdata;
          if (col_fp[c] && col_accum_q[c]) wdata = fp32_add(old_q[c], psum_i[c*32 +: 32]);
          else wdata = psum_i[c*32 +: 32] + (col_accum_q[c] ? old_q[c] : 32'd0);
          if (col_valid_q[c]) bank_q[c][addr[Aw-1:0]] <= wdata;
          if (in_valid) begin
            old_q[c] <= (col_valid_q[c] && addr == in_addr)
                        ? wdata : bank_q[c][in_addr[Aw-1:0]];
          end
        end
        if (vec_we_i) bank_q[c][vec_addr_i[Aw-1:0]] <= vec_data_i[c*32 +: 32];
        if (rd_en_i) rd_q[c] <= bank_q[c][rd_addr_i[Aw-1:0]];
      end
    end else begin : g_int
      logic [31:0] wdata;
      assign col_fp[c] = 1'b0;  // no hardware: the int8-only accumulator
      assign wdata = psum_i[c*32 +: 32] + (col_accum_q[c] ? old_q[c] : 32'd0);
      always_ff @(posedge clk_i) begin
        if (en_i) begin
          if (col_valid_q[c]) bank_q[c][addr[Aw-1:0]] <= wdata;
          if (in_valid) begin
            old_q[c] <= (col_valid_q[c] && addr == in_addr)
                        ? wdata : bank_q[c][in_addr[Aw-1:0]];
          end
        end
        if (vec_we_i) bank_q[c][vec_addr_i[Aw-1:0]] <= vec_data_i[c*32 +: 32];
        if (rd_en_i) rd_q[c] <= bank_q[c][rd_addr_i[Aw-1:0]];
      end
    end
    assign rd_data_o[c*32 +: 32] = rd_q[c];
  end

  assign done_o          = col_valid_q[Cols-1] && col_last_q[Cols-1];
  assign done_sig_o      = col_sig_q[Cols-1];

  logic unused;
  assign unused = ^{rd_addr_i, vec_addr_i, meta_q.last, meta_q.sig, meta_q.fp, col_fp[Cols-1]};
endmodule
