// Processing element of the weight-stationary array: holds two weights (double buffer, so the
// next GEMM's weights load while the current one streams), multiplies the operand passing
// from the left with the weight its buffer bit selects and adds the partial sum from above.
// Datapath registers need no reset; en_i freezes the PE while the array is empty.
//
// Fp16: PE rows 2j (PairHigh 0) and 2j+1 (PairHigh 1) of a column form one binary16 lane. An
// operand with fp_i set is a byte of a binary16 value: the low PE passes the partial sum down
// unchanged, and the high PE, which sees the same input row one edge later, multiplies
// {its byte, the low PE's byte} by {its weight byte, the low PE's weight byte} (weft_fp_pkg:
// exact binary32 product) and adds it to the binary32 partial sum. The low PE's byte is its
// registered operand (x_o, already passed right) and its weights are stationary, so the pair
// needs no extra registers but fp_q, which travels with the operand like sel. Without Fp16 the
// fp ports are unused and none of this logic exists.
module weft_pe
  import weft_rtl_pkg::*;
  import weft_fp_pkg::*;
#(
  parameter int unsigned Fp16     = 0,
  parameter int unsigned PairHigh = 0   // Fp16: the high PE (odd row) of its pair
) (
  input  logic        clk_i,
  input  logic        en_i,
  input  operand_t    x_i,
  input  logic        sel_i,
  input  logic        fp_i,     // Fp16: the operand is a byte of a binary16 value
  input  logic [31:0] psum_i,
  input  logic [1:0]  w_we_i,   // write buffer 0 / buffer 1
  input  operand_t    w_i,
  // Fp16, high PE: the low PE's registered operand and its two weights
  input  operand_t    xlo_i,
  input  operand_t    wlo0_i,
  input  operand_t    wlo1_i,
  output operand_t    x_o,
  output logic        sel_o,
  output logic        fp_o,
  output logic [31:0] psum_o,
  output operand_t    w0_o,     // the two weights, for the high PE of the pair
  output operand_t    w1_o
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
  end

  if (Fp16 == 0) begin : g_int
    always_ff @(posedge clk_i) begin
      if (en_i) begin
        operand_t w;
        w = sel_i ? w1_q : w0_q;
        x_q    <= x_i;
        sel_q  <= sel_i;
        psum_q <= psum_i + 32'(x_i * w);  // 9 x 9 bit signed product, wrapping sum
      end
    end
    assign fp_o = 1'b0;
    logic unused_fp;
    assign unused_fp = ^{fp_i, xlo_i, wlo0_i, wlo1_i};
  end else begin : g_fp
    logic fp_q;
    always_ff @(posedge clk_i) begin
      if (en_i) begin
        operand_t w;
        w = sel_i ? w1_q : w0_q;
        x_q   <= x_i;
        sel_q <= sel_i;
        fp_q  <= fp_i;
        if (!fp_i) begin
          psum_q <= psum_i + 32'(x_i * w);  // 9 x 9 bit signed product, wrapping sum
        end else if (PairHigh == 0) begin
          psum_q <= psum_i;  // the high PE adds the pair's product
        end else begin
          // The weights' and operands' low 8 bits are the bytes: zero points are 0 for a
          // GEMM fp16 (decode), and kept weights count as loaded whatever their zero point.
          logic [7:0] wlo;
          wlo = sel_i ? wlo1_i[7:0] : wlo0_i[7:0];
          psum_q <= fp32_add(psum_i, fp16_mul({x_i[7:0], xlo_i[7:0]}, {w[7:0], wlo}));
        end
      end
    end
    assign fp_o = fp_q;
    if (PairHigh == 0) begin : g_lo
      logic unused_lo;
      assign unused_lo = ^{xlo_i, wlo0_i, wlo1_i};
    end else begin : g_hi
      logic unused_hi;
      assign unused_hi = ^{xlo_i[8], wlo0_i[8], wlo1_i[8]};
    end
  end

  assign x_o    = x_q;
  assign sel_o  = sel_q;
  assign psum_o = psum_q;
  assign w0_o   = w0_q;
  assign w1_o   = w1_q;
endmodule
