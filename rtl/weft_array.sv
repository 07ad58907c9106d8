// Rows x Cols weight-stationary systolic array. Operands enter at the left of each row
// (already skewed by the feeder) and move right one PE a cycle; partial sums move down one PE
// a cycle; column sums leave at the bottom. PE (r, c) works on input row m at edge s+r+c+2
// when the row was issued at edge s, so psum_o[c] holds row m from edge s+Rows+c+1.
// Fp16: rows 2j and 2j+1 pair up into binary16 lanes (weft_pe); fp_i marks the lanes whose
// operands are binary16 bytes and travels right with them. Without Fp16 fp_i is unused.
// Weights are written a PE row at a time (w_row_we_i selects the row, w_i carries a weight per
// column) or, with w_t_i and Rows == Cols, a PE column at a time: the enable of index c selects
// column c and w_i carries a weight per row (the transposer: a weight row in the scratchpad
// holds one output channel's weights along K).
module weft_array
  import weft_rtl_pkg::*;
#(
  parameter int unsigned Rows = 16,
  parameter int unsigned Cols = 16,
  parameter int unsigned Fp16 = 0
) (
  input  logic        clk_i,
  input  logic        en_i,
  input  logic [Rows*OperandW-1:0] x_i,         // lane r in bits [r*OperandW +: OperandW]
  input  logic [Rows-1:0]          sel_i,
  input  logic [Rows-1:0]          fp_i,
  input  logic [Rows*2-1:0]        w_row_we_i,  // row r in bits [r*2 +: 2]
  input  logic                     w_t_i,       // select columns instead of rows (Rows == Cols)
  input  logic [Cols*OperandW-1:0] w_i,         // column c in bits [c*OperandW +: OperandW]
  output logic [Cols*32-1:0]       psum_o       // column c in bits [c*32 +: 32]
);
  operand_t    x    [Rows][Cols+1];
  logic        sel  [Rows][Cols+1];
  logic        fp   [Rows][Cols+1];
  logic [31:0] psum [Rows+1][Cols];
  operand_t    w0   [Rows][Cols];  // each PE's weights, for the high PE of its pair
  operand_t    w1   [Rows][Cols];

  for (genvar r = 0; r < Rows; r++) begin : g_row
    // The low PE row of r's pair (r itself for a low row, whose pair inputs are unused).
    localparam int unsigned Lo = (Fp16 != 0 && r % 2 == 1) ? r - 1 : r;
    assign x[r][0]   = x_i[r*OperandW +: OperandW];
    assign sel[r][0] = sel_i[r];
    assign fp[r][0]  = fp_i[r];
    for (genvar c = 0; c < Cols; c++) begin : g_col
      logic [1:0] w_we;
      operand_t   w_in;
      if (Rows == Cols) begin : g_transposer
        assign w_we = w_t_i ? w_row_we_i[c*2 +: 2] : w_row_we_i[r*2 +: 2];
        assign w_in = w_t_i ? w_i[r*OperandW +: OperandW] : w_i[c*OperandW +: OperandW];
      end else begin : g_rows_only
        assign w_we = w_row_we_i[r*2 +: 2];
        assign w_in = w_i[c*OperandW +: OperandW];
      end
      weft_pe #(.Fp16(Fp16), .PairHigh((Fp16 != 0) ? r % 2 : 0)) u_pe (
        .clk_i,
        .en_i,
        .x_i   (x[r][c]),
        .sel_i (sel[r][c]),
        .fp_i  (fp[r][c]),
        .psum_i(psum[r][c]),
        .w_we_i(w_we),
        .w_i   (w_in),
        .xlo_i (x[Lo][c+1]),
        .wlo0_i(w0[Lo][c]),
        .wlo1_i(w1[Lo][c]),
        .x_o   (x[r][c+1]),
        .sel_o (sel[r][c+1]),
        .fp_o  (fp[r][c+1]),
        .psum_o(psum[r+1][c]),
        .w0_o  (w0[r][c]),
        .w1_o  (w1[r][c])
      );
    end
  end

  for (genvar c = 0; c < Cols; c++) begin : g_out
    assign psum[0][c] = '0;
    assign psum_o[c*32 +: 32] = psum[Rows][c];
  end

  // The operands leaving the right edge are not used, nor the high PEs' weights (the low PEs'
  // only with Fp16).
  logic unused;
  always_comb begin
    unused = (Rows == Cols) ? 1'b0 : w_t_i;
    for (int unsigned r = 0; r < Rows; r++) begin
      unused = unused ^ (^x[r][Cols]) ^ sel[r][Cols] ^ fp[r][Cols];
      for (int unsigned c = 0; c < Cols; c++) unused = unused ^ (^w0[r][c]) ^ (^w1[r][c]);
    end
  end
endmodule
