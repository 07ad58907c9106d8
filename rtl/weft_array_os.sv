// Rows x Cols output-stationary systolic array. PE (r, c) computes output channel c of the
// r-th pixel of a block of Rows pixels: the pixel's Rows input bytes (the K lanes of one input
// row) enter row r one a cycle from the left, the block's weight rows enter column c one a
// cycle from the top, each skewed by one cycle a row / column so that byte k and weight row k
// meet in every PE. A block's sums are captured in the PEs as they finish and leave through a
// per-column shift chain at the bottom, bottom row first, one pixel a cycle.
//
// Timing for a block whose slot j (pixel j) was issued by weft_compute_os at edge s+j:
//   - slot_i carries slot j from edge s+j; x_i holds its input row from edge s+j+1 (the input
//     scratchpad's read), and row j's feeder loads it at edge s+j+2;
//   - w_i holds weight row k (zero past k_rows) from edge s+k+2; column c delays it c cycles;
//   - PE (r, c) consumes byte k and weight row k at edge s+r+c+k+3, the last at s+r+c+Rows+2;
//   - column c's chain loads the block at edge s+2*Rows+c+2, one edge after its bottom PE
//     finished, and psum_o[c] holds pixel p from edge s+3*Rows+c+1-p.
// A new block may start Rows cycles after the previous one: each feeder row is busy Rows
// cycles, and the chain takes Rows cycles to empty.
module weft_array_os
  import weft_rtl_pkg::*;
#(
  parameter int unsigned Rows = 16,
  parameter int unsigned Cols = 16
) (
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic        clr_i,
  input  logic        en_i,
  input  logic        slot_valid_i,                    // a block slot issued (valid pixel or not)
  input  logic [$clog2(Rows)-1:0] slot_row_i,          // its array row
  input  logic [Rows*OperandW-1:0] x_i,                // the slot's input row, lane k in bits [k*OperandW +: OperandW]
  input  logic [Cols*OperandW-1:0] w_i,                // weight row, column c in bits [c*OperandW +: OperandW]
  output logic [Cols*32-1:0]       psum_o              // column c in bits [c*32 +: 32]
);
  localparam int unsigned RowIdxW = $clog2(Rows);

  // ---------------------------------------------------------------- row feeders
  logic               ld_q;
  logic [RowIdxW-1:0] ld_row_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni)    ld_q <= 1'b0;
    else if (clr_i) ld_q <= 1'b0;
    else if (en_i)  ld_q <= slot_valid_i;
  end
  always_ff @(posedge clk_i) begin
    if (en_i) ld_row_q <= slot_row_i;
  end

  operand_t x     [Rows][Cols+1];
  logic     first [Rows][Cols+1];
  logic     last  [Rows][Cols+1];
  operand_t w     [Rows+1][Cols];
  logic [31:0] res [Rows][Cols];
  logic     bottom_last [Cols];

  for (genvar r = 0; r < Rows; r++) begin : g_feed
    // A shift register of the pixel's Rows operands: element 0 enters the array each cycle.
    operand_t           sr_q [Rows];
    logic [RowIdxW-1:0] pos_q;
    logic               act_q;
    logic               load;
    assign load = ld_q && ld_row_q == RowIdxW'(r);

    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni)    act_q <= 1'b0;
      else if (clr_i) act_q <= 1'b0;
      else if (en_i)  act_q <= load || (act_q && pos_q != RowIdxW'(Rows - 1));
    end
    always_ff @(posedge clk_i) begin
      if (en_i) begin
        pos_q <= load ? '0 : pos_q + 1'b1;
        for (int unsigned k = 0; k < Rows; k++) begin
          if (load)              sr_q[k] <= x_i[k*OperandW +: OperandW];
          else if (k + 1 < Rows) sr_q[k] <= sr_q[k+1];
          else                   sr_q[k] <= '0;
        end
      end
    end
    assign x[r][0]     = sr_q[0];
    assign first[r][0] = act_q && pos_q == '0;
    assign last[r][0]  = act_q && pos_q == RowIdxW'(Rows - 1);
  end

  // ---------------------------------------------------------------- weight skew
  for (genvar c = 0; c < Cols; c++) begin : g_skew
    if (c == 0) begin : g_direct
      assign w[0][c] = w_i[c*OperandW +: OperandW];
    end else begin : g_delay
      operand_t dl_q [c];
      always_ff @(posedge clk_i) begin
        if (en_i) begin
          dl_q[0] <= w_i[c*OperandW +: OperandW];
          for (int unsigned i = 1; i < c; i++) dl_q[i] <= dl_q[i-1];
        end
      end
      assign w[0][c] = dl_q[c-1];
    end
  end

  // ---------------------------------------------------------------- PEs
  for (genvar r = 0; r < Rows; r++) begin : g_row
    for (genvar c = 0; c < Cols; c++) begin : g_col
      weft_pe_os u_pe (
        .clk_i,
        .en_i,
        .x_i    (x[r][c]),
        .first_i(first[r][c]),
        .last_i (last[r][c]),
        .w_i    (w[r][c]),
        .x_o    (x[r][c+1]),
        .first_o(first[r][c+1]),
        .last_o (last[r][c+1]),
        .w_o    (w[r+1][c]),
        .res_o  (res[r][c])
      );
    end
  end

  // ---------------------------------------------------------------- drain chains
  // Column c loads every PE's finished sum one edge after its bottom PE finished (that PE's
  // last flag, passed on to the right, is high in between), then shifts down a row a cycle.
  for (genvar c = 0; c < Cols; c++) begin : g_drain
    logic [31:0] sh_q [Rows];
    assign bottom_last[c] = last[Rows-1][c+1];
    always_ff @(posedge clk_i) begin
      if (en_i) begin
        for (int unsigned r = 0; r < Rows; r++) begin
          if (bottom_last[c]) sh_q[r] <= res[r][c];
          else if (r == 0)    sh_q[r] <= '0;
          else                sh_q[r] <= sh_q[r-1];
        end
      end
    end
    assign psum_o[c*32 +: 32] = sh_q[Rows-1];
  end

  // The operands leaving the right and bottom edges are not used.
  logic unused;
  always_comb begin
    unused = 1'b0;
    for (int unsigned r = 0; r < Rows; r++) unused = unused ^ (^x[r][Cols]) ^ first[r][Cols];
    for (int unsigned r = 0; r + 1 < Rows; r++) unused = unused ^ last[r][Cols];
    for (int unsigned c = 0; c < Cols; c++) unused = unused ^ (^w[Rows][c]);
  end
endmodule
