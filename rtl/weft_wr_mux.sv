// The DRAM write port, shared by the store unit and the controller's snapshot writes. The
// controller starts a snapshot only when every earlier write is acknowledged, so the two never
// overlap and the port simply follows snap_sel_i. Acknowledgements return in request order;
// those of requests accepted before a soft reset are counted off and dropped (discard_q).
module weft_wr_mux
  import weft_rtl_pkg::*;
#(
  parameter int unsigned BusBytes = 16
) (
  input  logic                  clk_i,
  input  logic                  rst_ni,
  input  logic                  clr_i,
  input  logic                  snap_sel_i,
  // store unit
  input  logic                  st_req_valid_i,
  input  logic [DramAw-1:0]     st_req_addr_i,
  input  logic [ReqBytesW-1:0]  st_req_bytes_i,
  output logic                  st_req_accept_o,
  input  logic                  st_data_valid_i,
  input  logic [BusBytes*8-1:0] st_data_i,
  input  logic                  st_data_last_i,
  output logic                  st_data_accept_o,
  output logic                  st_ack_o,
  // snapshot writer
  input  logic                  sn_req_valid_i,
  input  logic [DramAw-1:0]     sn_req_addr_i,
  input  logic [ReqBytesW-1:0]  sn_req_bytes_i,
  output logic                  sn_req_accept_o,
  input  logic                  sn_data_valid_i,
  input  logic [BusBytes*8-1:0] sn_data_i,
  input  logic                  sn_data_last_i,
  output logic                  sn_data_accept_o,
  output logic                  sn_ack_o,
  // DRAM write port
  output logic                  mem_req_valid_o,
  input  logic                  mem_req_ready_i,
  output logic [DramAw-1:0]     mem_req_addr_o,
  output logic [ReqBytesW-1:0]  mem_req_bytes_o,
  output logic                  mem_data_valid_o,
  input  logic                  mem_data_ready_i,
  output logic [BusBytes*8-1:0] mem_data_o,
  output logic                  mem_data_last_o,
  input  logic                  mem_ack_i,
  // for the counters and the barrier
  output logic [ReqBytesW-1:0]  accepted_bytes_o,
  output logic                  idle_o
);
  // Writes awaiting acknowledgement: up to one per cycle for the DRAM latency (<= 100000).
  localparam int unsigned CntW = 24;

  logic [CntW-1:0] pending_q, discard_q, pending_d;
  logic req_accept, ack;

  assign mem_req_valid_o  = snap_sel_i ? sn_req_valid_i  : st_req_valid_i;
  assign mem_req_addr_o   = snap_sel_i ? sn_req_addr_i   : st_req_addr_i;
  assign mem_req_bytes_o  = snap_sel_i ? sn_req_bytes_i  : st_req_bytes_i;
  assign mem_data_valid_o = snap_sel_i ? sn_data_valid_i : st_data_valid_i;
  assign mem_data_o       = snap_sel_i ? sn_data_i       : st_data_i;
  assign mem_data_last_o  = snap_sel_i ? sn_data_last_i  : st_data_last_i;

  assign req_accept       = mem_req_valid_o && mem_req_ready_i;
  assign st_req_accept_o  = req_accept && !snap_sel_i;
  assign sn_req_accept_o  = req_accept && snap_sel_i;
  assign st_data_accept_o = mem_data_valid_o && mem_data_ready_i && !snap_sel_i;
  assign sn_data_accept_o = mem_data_valid_o && mem_data_ready_i && snap_sel_i;
  assign accepted_bytes_o = req_accept ? mem_req_bytes_o : '0;

  assign ack      = mem_ack_i && (discard_q == '0);
  assign st_ack_o = ack && !snap_sel_i;
  assign sn_ack_o = ack && snap_sel_i;

  assign pending_d = pending_q + CntW'(req_accept) - CntW'(mem_ack_i);

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      pending_q <= '0;
      discard_q <= '0;
    end else begin
      pending_q <= pending_d;
      if (clr_i) discard_q <= pending_d;
      else if (mem_ack_i && discard_q != '0) discard_q <= discard_q - 1'b1;
    end
  end

  assign idle_o = (pending_q == '0);
endmodule
