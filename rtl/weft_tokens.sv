// The dependency-token queues between the units (VTA-style; hw/spec/isa.json token_queues). A token carries no data, so
// a queue is a count. A producer reserves a slot when a command that will push starts
// (rsv_i; allowed while space_o) and pushes at its completion (push_i), so a push never
// overflows and a completing unit never stalls. A consumer pops when a command that waits
// starts (pop_i; allowed while avail_o). All flags are registered state: a token pushed at
// edge e can be popped at edge e+1 at the earliest.
module weft_tokens
  import weft_pkg::*;
#(
  parameter int unsigned TokenDepth = 16
) (
  input  logic               clk_i,
  input  logic               rst_ni,
  input  logic               clr_i,
  input  logic [NumTokQ-1:0] rsv_i,
  input  logic [NumTokQ-1:0] push_i,
  input  logic [NumTokQ-1:0] pop_i,
  output logic [NumTokQ-1:0] avail_o,
  output logic [NumTokQ-1:0] space_o
);
  localparam int unsigned CntW = $clog2(TokenDepth + 1);

  logic [CntW-1:0] tok_q [NumTokQ];  // tokens waiting
  logic [CntW-1:0] rsv_q [NumTokQ];  // slots reserved by running producers

  for (genvar q = 0; q < NumTokQ; q++) begin : g_queue
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        tok_q[q] <= '0;
        rsv_q[q] <= '0;
      end else if (clr_i) begin
        tok_q[q] <= '0;
        rsv_q[q] <= '0;
      end else begin
        tok_q[q] <= tok_q[q] + CntW'(push_i[q]) - CntW'(pop_i[q]);
        rsv_q[q] <= rsv_q[q] + CntW'(rsv_i[q]) - CntW'(push_i[q]);
      end
    end
    assign avail_o[q] = (tok_q[q] != '0);
    assign space_o[q] = ((CntW+1)'(tok_q[q]) + (CntW+1)'(rsv_q[q])) < (CntW+1)'(TokenDepth);
  end
endmodule
