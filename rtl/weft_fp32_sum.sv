// The binary32 sum of N words from +0 in order, as a chain of weft_fp32_adder (that module says
// why adders are modules): the vector unit's cross-lane sums in fp16 mode (the lanes' reductions,
// and LAYER_NORM's sums of squares).
module weft_fp32_sum #(
  parameter int unsigned N = 1
) (
  input  logic [N*32-1:0] v_i,  // word i in bits [i*32 +: 32]
  output logic [31:0]     sum_o
);
  logic [31:0] partial [N + 1];
  assign partial[0] = '0;
  for (genvar i = 0; i < N; i++) begin : g_add
    weft_fp32_adder u_add (.a_i(partial[i]), .b_i(v_i[i*32 +: 32]), .sum_o(partial[i+1]));
  end
  assign sum_o = partial[N];
endmodule
