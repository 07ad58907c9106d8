// A binary32 product's rounding (weft_fp_pkg::fp32_mul_with) as a module of its own: the store's
// fp16_affine mode and the vector lane's fp16 layer norm round a product whose significands an
// existing multiplier formed. A module for the reason weft_fp32_adder gives: yosys's resource
// sharing would otherwise weigh its shifters against every other shifter of the unit under the
// unit's mode selects (it took half of weft16fp's synthesis time); here they stand alone.
module weft_fp32_mul_round
  import weft_fp_pkg::*;
(
  input  logic [31:0] a_i,
  input  logic [31:0] b_i,
  input  logic [47:0] prod_i,  // fp32_sig(a) * fp32_sig(b)
  output logic [31:0] p_o
);
  assign p_o = fp32_mul_with(a_i, b_i, prod_i);
endmodule
