// Post-processing of one accumulator column, bit-exact with hw/include/weft/hw/postproc.h:
//   v = acc + bias (wrapping); raw32 mode writes v;
//   requant8: shift saturated to [-31, 31]; v << left (wrapping); saturating rounding doubling
//   high multiply by the multiplier (the 64-bit quotient rounded toward zero, as gemmlowp);
//   rounding divide by 2^right (half away from zero); + out_zp; clamp to [clamp_min, clamp_max].
//   fp16 (Fp16 only, bit-exact with storeFp16 of hw/include/weft/hw/fp16.h): v = acc + bias as
//   binary32 (fp32_add); rounded to binary16; clamped to [clamp_min, clamp_max] read as binary16
//   values (numeric comparisons), a NaN left as it is; the result in the low 16 bits.
//   fp16_affine (storeFp16Affine): v = acc * mult + bias, each a binary32 operation, then as fp16.
// Two register stages: stage 1 (edge after en1_i) holds the biased value and the 64-bit
// product, stage 2 (edge after en2_i) the result. In the fp16 modes stage 1 holds the words
// (and in fp16_affine the significands' product, on the requantization's multiplier) and stage 2
// rounds the product (fp32_mul_with), adds the bias (the one binary32 adder), rounds to binary16
// and clamps.
module weft_postproc
  import weft_fp_pkg::*;
#(
  parameter int unsigned Fp16 = 0
) (
  input  logic        clk_i,
  input  logic        en1_i,
  input  logic        en2_i,
  input  logic [31:0] acc_i,
  input  logic [31:0] bias_i,
  input  logic [31:0] mult_i,
  input  logic [7:0]  shift_i,
  input  logic        raw_i,       // stage 2: raw32 mode
  input  logic        fp2_i,       // stage 2: fp16 mode
  input  logic        aff1_i,      // stage 1: fp16_affine mode
  input  logic        aff2_i,      // stage 2: fp16_affine mode (with fp2_i)
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

  // a < b for binary16 values, IEEE numeric: false when either is a NaN, -0 equals +0.
  // Sign-magnitude becomes an unsigned order by flipping the negatives.
  function automatic logic fp16_less(logic [15:0] a, logic [15:0] b);
    logic        a_nan, b_nan;
    logic [15:0] ka, kb;
    a_nan = a[14:10] == 5'h1f && a[9:0] != '0;
    b_nan = b[14:10] == 5'h1f && b[9:0] != '0;
    ka    = a[15] ? ~a : {1'b1, a[14:0]};
    kb    = b[15] ? ~b : {1'b1, b[14:0]};
    fp16_less = !a_nan && !b_nan && (a[14:0] != '0 || b[14:0] != '0) && ka < kb;
  endfunction

  // Stage 2's requant8 result from stage 1's registers.
  function automatic logic [31:0] requant(logic signed [63:0] prod, logic sat, logic [4:0] right,
                                          logic [15:0] out_zp, logic [15:0] lo, logic [15:0] hi);
    logic signed [63:0] nudged, v;
    /* verilator lint_off UNUSEDSIGNAL */
    logic signed [63:0] quotient;  // fits 32 bits except in the saturating case
    /* verilator lint_on UNUSEDSIGNAL */
    logic signed [31:0] high, mask, rem, thr, rounded;
    // (ab + nudge) / 2^31, rounded toward zero like C++ integer division.
    nudged   = prod + ((prod >= 0) ? 64'sd1073741824 : -64'sd1073741823);
    quotient = (nudged + ((nudged < 0) ? 64'sd2147483647 : 64'sd0)) >>> 31;
    high     = sat ? 32'sh7fff_ffff : quotient[31:0];
    mask     = signed'((32'd1 << right) - 32'd1);
    rem      = high & mask;
    thr      = (mask >>> 1) + ((high < 0) ? 32'sd1 : 32'sd0);
    rounded  = (high >>> right) + ((rem > thr) ? 32'sd1 : 32'sd0);
    v        = 64'(rounded) + 64'(signed'(out_zp));
    if (v < 64'(signed'(lo)))      v = 64'(signed'(lo));
    else if (v > 64'(signed'(hi))) v = 64'(signed'(hi));
    requant = v[31:0];
  endfunction

  // Two copies of the stages: with Fp16 the biased value and the result have an fp16 choice;
  // without, the fp ports are unused and no binary16/binary32 logic exists.
  if (Fp16 != 0) begin : g_fp
    logic [31:0] acc_q, mult_q, bias_q;  // fp16_affine: the words stage 2 finishes
    logic [31:0] scaled, sum;            // stage 2: acc * mult rounded; then plus the bias
    weft_fp32_mul_round u_scale (.a_i(acc_q), .b_i(mult_q), .prod_i(prod_q[47:0]), .p_o(scaled));
    weft_fp32_adder u_bias (.a_i(aff2_i ? scaled : acc_q), .b_i(bias_q), .sum_o(sum));

    always_ff @(posedge clk_i) begin
      if (en1_i) begin
        logic signed [7:0]  shift;
        logic signed [7:0]  s;
        logic [31:0]        biased, shifted;
        logic signed [63:0] opa, opb;
        shift   = signed'(shift_i);
        s       = (shift > 8'sd31) ? 8'sd31 : ((shift < -8'sd31) ? -8'sd31 : shift);
        biased  = acc_i + bias_i;
        shifted = (s > 8'sd0) ? biased << s[4:0] : biased;
        raw_q   <= biased;
        // One multiplier: requant8's product, or fp16_affine's significands.
        opa     = aff1_i ? 64'(fp32_sig(acc_i)) : 64'(signed'(shifted));
        opb     = aff1_i ? 64'(fp32_sig(mult_i)) : 64'(signed'(mult_i));
        prod_q  <= opa * opb;
        acc_q   <= acc_i;
        mult_q  <= mult_i;
        bias_q  <= bias_i;
        sat_q   <= (shifted == 32'h8000_0000) && (mult_i == 32'h8000_0000);
        right_q <= (s > 8'sd0) ? 5'd0 : 5'(-s);
      end
    end

    always_ff @(posedge clk_i) begin
      if (en2_i) begin
        if (fp2_i) begin
          logic [15:0] h;
          h = fp32_to_fp16(sum);  // a NaN is the canonical one, and stays
          if (fp16_less(h, clamp_min_i))      h = clamp_min_i;
          else if (fp16_less(clamp_max_i, h)) h = clamp_max_i;
          out_q <= {16'd0, h};
        end else begin
          out_q <= raw_i ? raw_q
                         : requant(prod_q, sat_q, right_q, out_zp_i, clamp_min_i, clamp_max_i);
        end
      end
    end
  end else begin : g_int
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
        out_q <= raw_i ? raw_q
                       : requant(prod_q, sat_q, right_q, out_zp_i, clamp_min_i, clamp_max_i);
      end
    end

    logic unused_fp;
    assign unused_fp = ^{fp2_i, aff1_i, aff2_i};
  end

  assign out_o = out_q;
endmodule
