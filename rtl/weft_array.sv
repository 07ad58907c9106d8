// Rows x Cols weight-stationary systolic array. Operands enter at the left of each row
// (already skewed by the feeder) and move right one PE a cycle; partial sums move down one PE
// a cycle; column sums leave at the bottom. PE (r, c) works on input row m at edge s+r+c+2
// when the row was issued at edge s, so psum_o[c] holds row m from edge s+Rows+c+1.
module weft_array
  import weft_rtl_pkg::*;
#(
  parameter int unsigned Rows = 16,
  parameter int unsigned Cols = 16
) (
  input  logic        clk_i,
  input  logic        en_i,
  input  logic [Rows*OperandW-1:0] x_i,         // lane r in bits [r*OperandW +: OperandW]
  input  logic [Rows-1:0]          sel_i,
  input  logic [Rows*2-1:0]        w_row_we_i,  // row r in bits [r*2 +: 2]
  input  logic [Cols*OperandW-1:0] w_i,         // column c in bits [c*OperandW +: OperandW]
  output logic [Cols*32-1:0]       psum_o       // column c in bits [c*32 +: 32]
);
  operand_t    x    [Rows][Cols+1];
  logic        sel  [Rows][Cols+1];
  logic [31:0] psum [Rows+1][Cols];

  for (genvar r = 0; r < Rows; r++) begin : g_row
    assign x[r][0]   = x_i[r*OperandW +: OperandW];
    assign sel[r][0] = sel_i[r];
    for (genvar c = 0; c < Cols; c++) begin : g_col
      weft_pe u_pe (
        .clk_i,
        .en_i,
        .x_i   (x[r][c]),
        .sel_i (sel[r][c]),
        .psum_i(psum[r][c]),
        .w_we_i(w_row_we_i[r*2 +: 2]),
        .w_i   (w_i[c*OperandW +: OperandW]),
        .x_o   (x[r][c+1]),
        .sel_o (sel[r][c+1]),
        .psum_o(psum[r+1][c])
      );
    end
  end

  for (genvar c = 0; c < Cols; c++) begin : g_out
    assign psum[0][c] = '0;
    assign psum_o[c*32 +: 32] = psum[Rows][c];
  end

  // The operands leaving the right edge are not used.
  logic unused;
  always_comb begin
    unused = 1'b0;
    for (int unsigned r = 0; r < Rows; r++) unused = unused ^ (^x[r][Cols]) ^ sel[r][Cols];
  end
endmodule
