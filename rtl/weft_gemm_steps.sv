// The steps of a GEMM over K (k_steps, hw/spec/isa.json): the compute unit starts the head
// GEMM once per step, and this tells it which step it is starting and where that step's inputs
// and weights are. Step s reads from in_addr + s*in_kstride and w_addr + s*w_kstride (running
// offsets, no multiplier) and accumulates from step 1 on. Only the first step waits for and
// reserves tokens; only the last pops the command and completes it. Both compute units
// (weft_compute, weft_compute_os) share it, so a step is a GEMM to either array.
module weft_gemm_steps
  import weft_pkg::*;
  import weft_rtl_pkg::*;
(
  input  logic             clk_i,
  input  logic             rst_ni,
  input  logic             clr_i,
  input  gemm_cmd_t        head_i,
  input  logic             start_i,  // a step of the head starts
  output logic             first_o,  // the step starting is the head's first
  output logic             final_o,  // ... its last
  output logic [RowAw-1:0] in_addr_o,
  output logic [RowAw-1:0] w_addr_o,
  output logic             accumulate_o
);
  logic [GemmKStepsW-1:0] step_q;
  logic [RowAw-1:0]       in_off_q, w_off_q;

  assign first_o      = (step_q == '0);
  // Decode rejects k_steps == 0.
  assign final_o      = (step_q == head_i.k_steps - 1'b1);
  assign in_addr_o    = head_i.in_addr + in_off_q;
  assign w_addr_o     = head_i.w_addr + w_off_q;
  assign accumulate_o = head_i.accumulate || !first_o;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      step_q   <= '0;
      in_off_q <= '0;
      w_off_q  <= '0;
    end else if (clr_i || (start_i && final_o)) begin
      step_q   <= '0;
      in_off_q <= '0;
      w_off_q  <= '0;
    end else if (start_i) begin
      step_q   <= step_q + 1'b1;
      in_off_q <= in_off_q + RowAw'(head_i.in_kstride);
      w_off_q  <= w_off_q + RowAw'(head_i.w_kstride);
    end
  end

  logic unused;  // the rest of the command is the compute unit's
  assign unused = ^head_i;
endmodule
