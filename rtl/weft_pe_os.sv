// Processing element of the output-stationary array: accumulates one output (its row's pixel
// times its column's weights) while operands pass through, the input to the right and the
// weight down. A block's Rows products arrive back to back, flagged first and last: first
// restarts the sum, last copies the finished sum to res_o, where it waits for the column's
// drain chain (weft_array_os) while the next block accumulates.
// Datapath registers need no reset; en_i freezes the PE while the array is empty.
module weft_pe_os
  import weft_rtl_pkg::*;
(
  input  logic        clk_i,
  input  logic        en_i,
  input  operand_t    x_i,
  input  logic        first_i,
  input  logic        last_i,
  input  operand_t    w_i,
  output operand_t    x_o,
  output logic        first_o,
  output logic        last_o,
  output operand_t    w_o,
  output logic [31:0] res_o
);
  operand_t    x_q, w_q;
  logic        first_q, last_q;
  logic [31:0] sum_q, res_q;
  logic [31:0] sum;

  // 9 x 9 bit signed product, wrapping sum (the WS array's arithmetic).
  assign sum = (first_i ? 32'd0 : sum_q) + 32'(x_i * w_i);

  always_ff @(posedge clk_i) begin
    if (en_i) begin
      x_q     <= x_i;
      w_q     <= w_i;
      first_q <= first_i;
      last_q  <= last_i;
      sum_q   <= sum;
      if (last_i) res_q <= sum;
    end
  end

  assign x_o     = x_q;
  assign w_o     = w_q;
  assign first_o = first_q;
  assign last_o  = last_q;
  assign res_o   = res_q;
endmodule
