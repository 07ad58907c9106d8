// Command fetch: reads commands from the ring in DRAM into a buffer of FetchSlots commands
// while CTRL.enable is set, the controller is not halted and RING_HEAD != RING_TAIL.
//
// One read request fetches up to the free buffer slots, never past RING_TAIL or the end of
// the ring. To keep requests large it waits until half the buffer is free unless every
// command up to RING_TAIL (or the ring's end) fits. RING_HEAD counts commands received.
module weft_fetch
  import weft_pkg::*;
  import weft_rtl_pkg::*;
#(
  parameter int unsigned BusBytes = DefaultBusBytes
) (
  input  logic                  clk_i,
  input  logic                  rst_ni,
  input  logic                  clr_i,
  input  logic                  enable_i,
  input  logic                  stop_i,
  input  logic [DramAw-1:0]     ring_base_i,
  input  logic [31:0]           ring_size_i,
  input  logic [31:0]           ring_tail_i,
  output logic [31:0]           ring_head_o,
  output logic                  ring_err_o,
  // read requests to the arbiter
  output logic                  req_valid_o,
  output logic [DramAw-1:0]     req_addr_o,
  output logic [ReqBytesW-1:0]  req_bytes_o,
  output logic                  req_odd_o,
  input  logic                  req_accept_i,
  // read data of fetch requests
  input  logic                  beat_valid_i,
  input  logic [BusBytes*8-1:0] beat_data_i,
  input  logic                  beat_last_i,
  input  logic                  beat_odd_i,
  // the oldest fetched command
  output logic                  cmd_valid_o,
  output cmd_t                  cmd_o,
  input  logic                  cmd_pop_i,
  output logic                  busy_o
);
  localparam int unsigned SlotW = $clog2(FetchSlots);
  localparam int unsigned CntW = SlotW + 1;
  localparam int unsigned CmdsPerBeat = (BusBytes > CmdBytes) ? BusBytes / CmdBytes : 1;
  localparam int unsigned BeatsPerCmd = (BusBytes > CmdBytes) ? 1 : CmdBytes / BusBytes;

  cmd_t            slot_q [FetchSlots];
  logic [SlotW-1:0] wr_ptr_q, rd_ptr_q;
  logic [CntW-1:0] count_q, inflight_q;
  logic [31:0]     req_idx_q, head_q;

  // ---------------------------------------------------------------- requests
  logic [CntW-1:0] free;
  logic [31:0]     avail;
  logic            pending, ring_bad;
  logic [CntW-1:0] n;

  assign free     = CntW'(FetchSlots) - count_q - inflight_q;
  assign pending  = (ring_tail_i != req_idx_q);
  assign ring_bad = (ring_size_i == '0) || (ring_tail_i >= ring_size_i) || (req_idx_q >= ring_size_i);
  assign avail    = (ring_tail_i > req_idx_q) ? ring_tail_i - req_idx_q : ring_size_i - req_idx_q;
  assign n        = (avail < 32'(free)) ? CntW'(avail) : free;

  assign ring_err_o  = enable_i && !stop_i && pending && ring_bad;
  assign req_valid_o = enable_i && !stop_i && pending && !ring_bad && (free != '0)
                       && (free >= CntW'(FetchSlots / 2) || avail <= 32'(free));
  assign req_addr_o  = ring_base_i + (DramAw'(req_idx_q) << $clog2(CmdBytes));
  assign req_bytes_o = ReqBytesW'(n) << $clog2(CmdBytes);
  assign req_odd_o   = n[0];

  function automatic logic [31:0] next_idx(logic [31:0] idx, logic [31:0] step, logic [31:0] size);
    logic [31:0] sum;
    sum = idx + step;
    next_idx = (sum >= size) ? sum - size : sum;
  endfunction

  // ---------------------------------------------------------------- data
  logic [CntW-1:0] received;  // commands completed by this cycle's beat

  if (CmdsPerBeat == 1) begin : g_narrow
    // A command arrives in BeatsPerCmd beats.
    localparam int unsigned BeatW = (BeatsPerCmd > 1) ? $clog2(BeatsPerCmd) : 1;
    logic [BeatW-1:0] beat_q;
    logic             cmd_done;

    assign cmd_done = beat_valid_i && (BeatsPerCmd == 1 || beat_q == BeatW'(BeatsPerCmd - 1));
    assign received = CntW'(cmd_done);

    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni)         beat_q <= '0;
      else if (clr_i)      beat_q <= '0;
      else if (beat_valid_i) beat_q <= cmd_done ? '0 : beat_q + 1'b1;
    end

    always_ff @(posedge clk_i) begin
      if (beat_valid_i) begin
        if (BeatsPerCmd == 1) slot_q[wr_ptr_q] <= CmdBits'(beat_data_i);
        else slot_q[wr_ptr_q][beat_q * BusBytes * 8 +: BusBytes * 8] <= beat_data_i;
      end
    end

    logic unused;
    assign unused = ^{beat_last_i, beat_odd_i};
  end else begin : g_wide
    // A beat carries CmdsPerBeat (= 2) commands; the last beat of an odd fetch carries one.
    logic second;
    assign second   = beat_valid_i && !(beat_last_i && beat_odd_i);
    assign received = CntW'(beat_valid_i) + CntW'(second);

    always_ff @(posedge clk_i) begin
      if (beat_valid_i) slot_q[wr_ptr_q] <= beat_data_i[CmdBits-1:0];
      if (second)       slot_q[wr_ptr_q + 1'b1] <= beat_data_i[2*CmdBits-1:CmdBits];
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      wr_ptr_q   <= '0;
      rd_ptr_q   <= '0;
      count_q    <= '0;
      inflight_q <= '0;
      req_idx_q  <= '0;
      head_q     <= '0;
    end else if (clr_i) begin
      wr_ptr_q   <= '0;
      rd_ptr_q   <= '0;
      count_q    <= '0;
      inflight_q <= '0;
      req_idx_q  <= '0;
      head_q     <= '0;
    end else begin
      if (req_accept_i) req_idx_q <= next_idx(req_idx_q, 32'(n), ring_size_i);
      if (received != '0) begin
        wr_ptr_q <= wr_ptr_q + SlotW'(received);
        head_q   <= next_idx(head_q, 32'(received), ring_size_i);
      end
      if (cmd_pop_i) rd_ptr_q <= rd_ptr_q + 1'b1;
      count_q    <= count_q + received - CntW'(cmd_pop_i);
      inflight_q <= inflight_q + (req_accept_i ? n : '0) - received;
    end
  end

  assign ring_head_o = head_q;
  assign cmd_valid_o = (count_q != '0);
  assign cmd_o       = slot_q[rd_ptr_q];
  // Commands left in the buffer of a halted controller will not run: they are not "busy".
  assign busy_o      = (inflight_q != '0) || (!stop_i && (count_q != '0 || (enable_i && pending)));
endmodule
