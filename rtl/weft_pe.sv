// Processing element of the weight-stationary array: holds two weights (double buffer, so the
// next GEMM's weights load while the current one streams), multiplies the operand passing
// from the left with the weight its buffer bit selects and adds the partial sum from above.
// Datapath registers need no reset; en_i freezes the PE while the array is empty.
module weft_pe
  import weft_rtl_pkg::*;
(
  input  logic        clk_i,
  input  logic        en_i,
  input  operand_t    x_i,
  input  logic        sel_i,
  input  logic [31:0] psum_i,
  input  logic [1:0]  w_we_i,   // write buffer 0 / buffer 1
  input  operand_t    w_i,
  output operand_t    x_o,
  output logic        sel_o,
  output logic [31:0] psum_o
);
  // Two plain registers, not an array: Verilator would commit an array's non-blocking writes
  // through per-element flags every cycle.
  operand_t    w0_q, w1_q;
  operand_t    x_q;
  logic        sel_q;
  logic [31:0] psum_q;

  always_ff @(posedge clk_i) begin
    if (w_we_i[0]) w0_q <= w_i;
    if (w_we_i[1]) w1_q <= w_i;
    if (en_i) begin
      operand_t w;
      w = sel_i ? w1_q : w0_q;
      x_q    <= x_i;
      sel_q  <= sel_i;
      psum_q <= psum_i + 32'(x_i * w);  // 9 x 9 bit signed product, wrapping sum
    end
  end

  assign x_o    = x_q;
  assign sel_o  = sel_q;
  assign psum_o = psum_q;
endmodule
