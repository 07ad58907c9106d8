// One binary32 adder (weft_fp_pkg::fp32_add) as a module of its own, for adders chained in one
// cycle (the vector unit's cross-lane sum in fp16 mode). Why a module: synthesis keeps modules
// apart (the coarse flow does not flatten), and yosys's resource sharing, which looks for
// shifters that are never needed at the same time, otherwise builds its satisfiability problem
// over the whole chain, every adder's shifter guarded by every earlier adder's result, and does
// not finish. Inside the module each adder's shifters are guarded by its own inputs only.
module weft_fp32_adder
  import weft_fp_pkg::*;
(
  input  logic [31:0] a_i,
  input  logic [31:0] b_i,
  output logic [31:0] sum_o
);
  assign sum_o = fp32_add(a_i, b_i);
endmodule
