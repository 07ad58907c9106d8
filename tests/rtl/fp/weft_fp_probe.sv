// The functions of weft_fp_pkg as one combinational module, for rtl_fp_test.
module weft_fp_probe
  import weft_fp_pkg::*;
(
  input  logic [31:0] a_i,
  input  logic [31:0] b_i,
  input  logic [31:0] c_i,
  output logic [31:0] add_o,     // fp32_add(a, b)
  output logic [31:0] mul_o,     // fp16_mul(a[15:0], b[15:0])
  output logic [31:0] widen_o,   // fp16_to_fp32(a[15:0])
  output logic [15:0] narrow_o,  // fp32_to_fp16(a)
  output logic        greater_o, // fp32_greater(a, b)
  output logic [31:0] div_o,     // fp32_div_count(a, b[16:0])
  output logic [15:0] u8_o,      // u8_to_fp16(a[7:0])
  output logic [26:0] split_o,   // softmax_exp_split(a, b)
  output logic [31:0] exp_o,     // softmax_exp(a[26:0], b)
  output logic [31:0] smx_o,     // softmax_fp_out(a, b, c)
  output logic [31:0] fmul_o     // fp32_mul(a, b)
);
  assign add_o    = fp32_add(a_i, b_i);
  assign mul_o    = fp16_mul(a_i[15:0], b_i[15:0]);
  assign widen_o  = fp16_to_fp32(a_i[15:0]);
  assign narrow_o = fp32_to_fp16(a_i);
  assign greater_o = fp32_greater(a_i, b_i);
  assign div_o     = fp32_div_count(a_i, b_i[16:0]);
  assign u8_o      = u8_to_fp16(a_i[7:0]);
  assign split_o   = softmax_exp_split(a_i, b_i);
  assign exp_o     = softmax_exp(a_i[26:0], b_i);
  assign smx_o     = softmax_fp_out(a_i, b_i, c_i);
  assign fmul_o    = fp32_mul(a_i, b_i);
endmodule
