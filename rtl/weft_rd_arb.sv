// The DRAM read port: arbitration between command fetch and the load unit, the limit of
// MaxOutstanding requests in flight, and the routing of returned beats, which arrive in
// request order, by a FIFO of request tags.
//
// Fetch has priority: a fetch request is rare and short and keeps the command queues fed.
// A soft reset does not cut the port: requests already accepted are still answered by DRAM,
// so their beats are counted off and dropped (discard_q) and new requests follow them.
module weft_rd_arb
  import weft_pkg::*;
  import weft_rtl_pkg::*;
#(
  parameter int unsigned MaxOutstanding = DefaultMaxOutstanding
) (
  input  logic                  clk_i,
  input  logic                  rst_ni,
  input  logic                  clr_i,
  // fetch requests
  input  logic                  fetch_valid_i,
  input  logic [DramAw-1:0]     fetch_addr_i,
  input  logic [ReqBytesW-1:0]  fetch_bytes_i,
  input  logic                  fetch_odd_i,
  output logic                  fetch_accept_o,
  // load requests
  input  logic                  load_valid_i,
  input  logic [DramAw-1:0]     load_addr_i,
  input  logic [ReqBytesW-1:0]  load_bytes_i,
  input  rd_tag_t               load_tag_i,
  output logic                  load_accept_o,
  // DRAM read port
  output logic                  mem_req_valid_o,
  input  logic                  mem_req_ready_i,
  output logic [DramAw-1:0]     mem_req_addr_o,
  output logic [ReqBytesW-1:0]  mem_req_bytes_o,
  input  logic                  mem_data_valid_i,
  input  logic                  mem_data_last_i,
  // routed beats (data and last are the port's)
  output logic                  fetch_beat_o,
  output logic                  load_beat_o,
  output rd_tag_t               tag_o,
  // accepted request this cycle, for the counters
  output logic [ReqBytesW-1:0]  accepted_bytes_o,
  output logic                  idle_o
);
  localparam int unsigned PtrW = (MaxOutstanding > 1) ? $clog2(MaxOutstanding) : 1;
  localparam int unsigned CntW = $clog2(MaxOutstanding + 1);

  rd_tag_t         tag_q [MaxOutstanding];
  logic [PtrW-1:0] wr_ptr_q, rd_ptr_q;
  logic [CntW-1:0] outstanding_q, discard_q, outstanding_d;

  logic room, accept, done, drop;
  rd_tag_t new_tag;

  assign room            = (outstanding_q < CntW'(MaxOutstanding));
  assign mem_req_valid_o = room && (fetch_valid_i || load_valid_i);
  assign mem_req_addr_o  = fetch_valid_i ? fetch_addr_i : load_addr_i;
  assign mem_req_bytes_o = fetch_valid_i ? fetch_bytes_i : load_bytes_i;
  assign accept          = mem_req_valid_o && mem_req_ready_i;
  assign fetch_accept_o  = accept && fetch_valid_i;
  assign load_accept_o   = accept && !fetch_valid_i;
  assign accepted_bytes_o = accept ? mem_req_bytes_o : '0;

  always_comb begin
    new_tag = load_tag_i;
    if (fetch_valid_i) begin
      new_tag = '0;
      new_tag.is_fetch  = 1'b1;
      new_tag.fetch_odd = fetch_odd_i;
    end
  end

  assign drop  = (discard_q != '0);
  assign done  = mem_data_valid_i && mem_data_last_i;
  assign tag_o = tag_q[rd_ptr_q];
  assign fetch_beat_o = mem_data_valid_i && !drop && tag_o.is_fetch;
  assign load_beat_o  = mem_data_valid_i && !drop && !tag_o.is_fetch;

  function automatic logic [PtrW-1:0] inc(logic [PtrW-1:0] p);
    inc = (p == PtrW'(MaxOutstanding - 1)) ? '0 : p + 1'b1;
  endfunction

  assign outstanding_d = outstanding_q + CntW'(accept) - CntW'(done);

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      wr_ptr_q      <= '0;
      rd_ptr_q      <= '0;
      outstanding_q <= '0;
      discard_q     <= '0;
    end else begin
      if (accept) wr_ptr_q <= inc(wr_ptr_q);
      if (done)   rd_ptr_q <= inc(rd_ptr_q);
      outstanding_q <= outstanding_d;
      if (clr_i)     discard_q <= outstanding_d;
      else if (done && drop) discard_q <= discard_q - 1'b1;
    end
  end

  always_ff @(posedge clk_i) begin
    if (accept) tag_q[wr_ptr_q] <= new_tag;
  end

  assign idle_o = (outstanding_q == '0);
endmodule
