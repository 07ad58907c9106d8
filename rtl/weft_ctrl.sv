// Controller: decodes and validates fetched commands, dispatches them to the unit queues in
// order, executes NOP and BARRIER itself (with the snapshot record written through the DRAM
// write port) and halts on the first invalid command or a bad ring.
//
// Decode is one register stage: a command leaves the fetch buffer into dec_q with its
// validation result; from dec_q it is dispatched (one a cycle, when the unit queue has room),
// retired (NOP), executed (BARRIER) or, if invalid, dropped while the controller halts.
module weft_ctrl
  import weft_pkg::*;
  import weft_rtl_pkg::*;
#(
  parameter int unsigned Rows           = DefaultRows,
  parameter int unsigned Cols           = DefaultCols,
  parameter int unsigned InSpadRows     = DefaultInSpadRows,
  parameter int unsigned WSpadRows      = DefaultWSpadRows,
  parameter int unsigned AccRows        = DefaultAccRows,
  parameter int unsigned VecSpadRows    = DefaultVecSpadRows,
  parameter int unsigned ParamRows      = DefaultParamRows,
  parameter int unsigned BusBytes       = DefaultBusBytes,
  parameter int unsigned MaxOutstanding = DefaultMaxOutstanding,
  parameter int unsigned CmdQueueDepth  = DefaultCmdQueueDepth,
  parameter int unsigned TokenDepth     = DefaultTokenDepth,
  parameter int unsigned Dataflow       = DefaultDataflow,
  parameter int unsigned Fp16           = DefaultFp16
) (
  input  logic                  clk_i,
  input  logic                  rst_ni,
  input  logic                  clr_i,
  // fetched commands
  input  logic                  cmd_valid_i,
  input  cmd_t                  cmd_i,
  output logic                  cmd_pop_o,
  input  logic                  ring_err_i,
  // dispatch to the unit FIFOs (index: weft_pkg Unit*)
  output cmd_t                  disp_cmd_o,
  output logic [NumFifoUnits-1:0] disp_o,
  input  logic [NumFifoUnits-1:0] full_i,
  // every queue empty, every unit idle, every DRAM write acknowledged
  input  logic                  drained_i,
  input  logic [NumCounters*64-1:0] cnt_i,  // counter i in bits [i*64 +: 64]
  // snapshot writes
  output logic                  snap_active_o,
  output logic                  wr_req_valid_o,
  output logic [DramAw-1:0]     wr_req_addr_o,
  output logic [ReqBytesW-1:0]  wr_req_bytes_o,
  input  logic                  wr_req_accept_i,
  output logic                  wr_data_valid_o,
  output logic [BusBytes*8-1:0] wr_data_o,
  output logic                  wr_data_last_o,
  input  logic                  wr_data_accept_i,
  input  logic                  wr_ack_i,
  // status
  output logic                  halted_o,
  output logic [7:0]            error_o,
  output logic                  irq_done_o,
  output logic                  irq_error_o,
  output logic                  retire_o,
  output logic                  busy_o
);
  // ---------------------------------------------------------------- decode and dispatch
  logic   dec_valid_q, halted_q;
  cmd_t   dec_q;
  error_e dec_err_q, error_q;

  barrier_cmd_t bar;
  logic [HdrOpcodeW-1:0] op;
  assign bar = dec_q;
  assign op  = dec_q[HdrOpcodeLsb +: HdrOpcodeW];

  logic ok, dispatch, nop_done, bar_done, bad, leave, load_next, halt_ring;
  int unsigned dec_unit;
  assign dec_unit  = unit_of(dec_q[HdrOpcodeLsb +: HdrOpcodeW]);
  assign ok        = dec_valid_q && (dec_err_q == ErrorNone) && !halted_q;
  for (genvar u = 0; u < NumFifoUnits; u++) begin : g_disp
    assign disp_o[u] = ok && dec_unit == u && !full_i[u];
  end
  assign disp_cmd_o = dec_q;
  assign dispatch   = |disp_o;
  assign nop_done  = ok && op == OpNop;
  assign bad       = dec_valid_q && (dec_err_q != ErrorNone) && !halted_q;
  assign halt_ring = ring_err_i && !halted_q && !bad;
  assign leave     = dispatch || nop_done || bar_done || bad;
  assign load_next = cmd_valid_i && !halted_q && !bad && (!dec_valid_q || leave);
  assign cmd_pop_o = load_next;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      dec_valid_q <= 1'b0;
      halted_q    <= 1'b0;
      error_q     <= ErrorNone;
    end else if (clr_i) begin
      dec_valid_q <= 1'b0;
      halted_q    <= 1'b0;
      error_q     <= ErrorNone;
    end else begin
      if (load_next)  dec_valid_q <= 1'b1;
      else if (leave) dec_valid_q <= 1'b0;
      if (bad) begin
        halted_q <= 1'b1;
        error_q  <= dec_err_q;
      end else if (halt_ring) begin
        halted_q <= 1'b1;
        error_q  <= ErrorBadRing;
      end
    end
  end

  always_ff @(posedge clk_i) begin
    if (load_next) begin
      dec_q     <= cmd_i;
      // Validation (hw/spec/isa.json checks, generated into weft_pkg).
      dec_err_q <= check_command(cmd_i, Rows, Cols, InSpadRows, WSpadRows, AccRows, VecSpadRows, ParamRows,
                                 BusBytes, MaxOutstanding, CmdQueueDepth, TokenDepth, Dataflow, Fp16);
    end
  end

  // ---------------------------------------------------------------- barrier and snapshot
  localparam int unsigned SnapBeats = (SnapshotBytes + BusBytes - 1) / BusBytes;
  localparam int unsigned SnapW = SnapBeats * BusBytes * 8;
  localparam int unsigned BeatW = (SnapBeats > 1) ? $clog2(SnapBeats) : 1;

  typedef enum logic [1:0] {BarIdle, BarReq, BarData, BarAck} bar_state_e;
  bar_state_e       state_q;
  logic [SnapW-1:0] snap_q;
  logic [BeatW-1:0] beat_q;
  logic             flush_q;  // a soft reset came during the beats: finish them, then stop

  logic bar_go, last_beat;
  assign bar_go    = ok && op == OpBarrier && state_q == BarIdle && drained_i;
  assign last_beat = (beat_q == BeatW'(SnapBeats - 1));
  assign bar_done  = (bar_go && !bar.snapshot) || (state_q == BarAck && wr_ack_i);

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q <= BarIdle;
      beat_q  <= '0;
      flush_q <= 1'b0;
    end else if (clr_i) begin
      // Beats of an accepted request are owed to DRAM; everything else stops.
      state_q <= (state_q == BarData) ? BarData : BarIdle;
      flush_q <= (state_q == BarData);
    end else begin
      unique case (state_q)
        BarIdle: if (bar_go && bar.snapshot) begin
          state_q <= BarReq;
          beat_q  <= '0;
        end
        BarReq:  if (wr_req_accept_i) state_q <= BarData;
        BarData: if (wr_data_accept_i) begin
          beat_q <= beat_q + 1'b1;
          if (last_beat) begin
            state_q <= flush_q ? BarIdle : BarAck;
            flush_q <= 1'b0;
          end
        end
        BarAck:  if (wr_ack_i) state_q <= BarIdle;
        default: state_q <= BarIdle;
      endcase
    end
  end

  // The record (tag, then the counters as they were when the units had drained) is shifted
  // out one beat at a time.
  always_ff @(posedge clk_i) begin
    if (bar_go && bar.snapshot) begin
      logic [SnapW-1:0] rec;
      rec = '0;
      rec[63:0] = 64'(bar.tag);
      for (int unsigned i = 0; i < NumCounters; i++) rec[64 * (i + 1) +: 64] = cnt_i[64 * i +: 64];
      snap_q <= rec;
    end else if (state_q == BarData && wr_data_accept_i) begin
      snap_q <= snap_q >> (BusBytes * 8);
    end
  end

  assign snap_active_o   = (state_q != BarIdle);
  assign wr_req_valid_o  = (state_q == BarReq);
  assign wr_req_addr_o   = bar.dram_addr;
  assign wr_req_bytes_o  = ReqBytesW'(SnapshotBytes);
  assign wr_data_valid_o = (state_q == BarData);
  assign wr_data_o       = snap_q[BusBytes*8-1:0];
  assign wr_data_last_o  = last_beat;

  // ---------------------------------------------------------------- status
  assign halted_o    = halted_q;
  assign error_o     = error_q;
  assign irq_done_o  = bar_done && bar.irq;
  assign irq_error_o = bad || halt_ring;
  assign retire_o    = nop_done || bar_done;
  assign busy_o      = dec_valid_q || (state_q != BarIdle);

  logic unused;
  assign unused = ^{bar};
endmodule
