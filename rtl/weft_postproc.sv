// Post-processing of one accumulator column, bit-exact with hw/include/weft/hw/postproc.h:
//   v = acc + bias (wrapping); raw32 mode writes v;
//   requant8: shift saturated to [-31, 31]; v << left (wrapping); saturating rounding doubling
//   high multiply by the multiplier (the 64-bit quotient rounded toward zero, as gemmlowp);
//   rounding divide by 2^right (half away from zero); + out_zp; clamp to [clamp_min, clamp_max].
// Two register stages: stage 1 (edge after en1_i) holds the biased value and the 64-bit
// product, stage 2 (edge after en2_i) the result.
module weft_postproc (
  input  logic        clk_i,
  input  logic        en1_i,
  input  logic        en2_i,
  input  logic [31:0] acc_i,
  input  logic [31:0] bias_i,
  input  logic [31:0] mult_i,
  input  logic [7:0]  shift_i,
  input  logic        raw_i,       // stage 2: raw32 mode
  input  logic [15:0] out_zp_i,    // stage 2
  input  logic [15:0] clamp_min_i, // stage 2
  input  logic [15:0] clamp_max_i, // stage 2
  output logic [31:0] out_o
);
  logic [31:0]        raw_q;
  logic signed [63:0] prod_q;
  logic               sat_q;
  logic [4:0]         right_q;
  logic [31:0]        out_q;

  always_ff @(posedge clk_i) begin
    if (en1_i) begin
      logic signed [7:0]  shift;
      logic signed [7:0]  s;
      logic [31:0]        biased, shifted;
      shift   = signed'(shift_i);
      s       = (shift > 8'sd31) ? 8'sd31 : ((shift < -8'sd31) ? -8'sd31 : shift);
      biased  = acc_i + bias_i;
      shifted = (s > 8'sd0) ? biased << s[4:0] : biased;
      raw_q   <= biased;
      prod_q  <= 64'(signed'(shifted)) * 64'(signed'(mult_i));
      sat_q   <= (shifted == 32'h8000_0000) && (mult_i == 32'h8000_0000);
      right_q <= (s > 8'sd0) ? 5'd0 : 5'(-s);
    end
  end

  always_ff @(posedge clk_i) begin
    if (en2_i) begin
      logic signed [63:0] nudged, v;
      /* verilator lint_off UNUSEDSIGNAL */
      logic signed [63:0] quotient;  // fits 32 bits except in the saturating case
      /* verilator lint_on UNUSEDSIGNAL */
      logic signed [31:0] high, mask, rem, thr, rounded;
      // (ab + nudge) / 2^31, rounded toward zero like C++ integer division.
      nudged   = prod_q + ((prod_q >= 0) ? 64'sd1073741824 : -64'sd1073741823);
      quotient = (nudged + ((nudged < 0) ? 64'sd2147483647 : 64'sd0)) >>> 31;
      high     = sat_q ? 32'sh7fff_ffff : quotient[31:0];
      mask     = signed'((32'd1 << right_q) - 32'd1);
      rem      = high & mask;
      thr      = (mask >>> 1) + ((high < 0) ? 32'sd1 : 32'sd0);
      rounded  = (high >>> right_q) + ((rem > thr) ? 32'sd1 : 32'sd0);
      v        = 64'(rounded) + 64'(signed'(out_zp_i));
      if (v < 64'(signed'(clamp_min_i)))      v = 64'(signed'(clamp_min_i));
      else if (v > 64'(signed'(clamp_max_i))) v = 64'(signed'(clamp_max_i));
      out_q <= raw_i ? raw_q : v[31:0];
    end
  end

  assign out_o = out_q;
endmodule
