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
  parameter int unsigned Rows       = DefaultRows,
  parameter int unsigned Cols       = DefaultCols,
  parameter int unsigned InSpadRows = DefaultInSpadRows,
  parameter int unsigned WSpadRows  = DefaultWSpadRows,
  parameter int unsigned AccRows    = DefaultAccRows,
  parameter int unsigned ParamRows  = DefaultParamRows,
  parameter int unsigned BusBytes   = DefaultBusBytes
) (
  input  logic                  clk_i,
  input  logic                  rst_ni,
  input  logic                  clr_i,
  // fetched commands
  input  logic                  cmd_valid_i,
  input  cmd_t                  cmd_i,
  output logic                  cmd_pop_o,
  input  logic                  ring_err_i,
  // dispatch
  output cmd_t                  disp_cmd_o,
  output logic                  disp_load_o,
  output logic                  disp_compute_o,
  output logic                  disp_store_o,
  input  logic                  load_full_i,
  input  logic                  compute_full_i,
  input  logic                  store_full_i,
  // every queue empty, every unit idle, every DRAM write acknowledged
  input  logic                  drained_i,
  input  logic [63:0]           cnt_i [NumCounters],
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
  // ---------------------------------------------------------------- validation
  function automatic logic zp_fits(logic [15:0] zp, logic is_signed);
    logic signed [15:0] v;
    v = signed'(zp);
    return is_signed ? (v >= -16'sd128 && v <= 16'sd127) : (v >= 16'sd0 && v <= 16'sd255);
  endfunction

  // First of bad_opcode, bad_value, bad_length, bad_address (hw/spec/isa.json).
  function automatic error_e check(cmd_t c);
    // Each view of the command reads only the fields its opcode checks.
    /* verilator lint_off UNUSEDSIGNAL */
    load_cmd_t  l;
    gemm_cmd_t  g;
    store_cmd_t s;
    /* verilator lint_on UNUSEDSIGNAL */
    logic [16:0] row_size, depth;
    logic [49:0] end_row;
    l = load_cmd_t'(c);
    g = gemm_cmd_t'(c);
    s = store_cmd_t'(c);
    unique case (c[HdrOpcodeLsb +: HdrOpcodeW])
      OpNop, OpBarrier: return ErrorNone;
      OpLoad: begin
        unique case (l.dst)
          MemIn:    begin row_size = 17'(Rows);     depth = 17'(InSpadRows); end
          MemW:     begin row_size = 17'(Cols);     depth = 17'(WSpadRows);  end
          MemParam: begin row_size = 17'(9 * Cols); depth = 17'(ParamRows);  end
          default:  return ErrorBadValue;
        endcase
        if (l.count0 == '0 || l.count1 == '0 || l.count2 == '0) return ErrorBadLength;
        if (l.row_bytes == '0 || 17'(l.row_bytes) > row_size) return ErrorBadLength;
        end_row = 50'(l.spad_addr) + 50'(l.count0) * 50'(l.count1) * 50'(l.count2);
        if (end_row > 50'(depth)) return ErrorBadAddress;
        return ErrorNone;
      end
      OpGemm: begin
        if (!zp_fits(g.in_zp, g.in_signed)) return ErrorBadValue;
        if (!g.keep_weights && !zp_fits(g.w_zp, g.w_signed)) return ErrorBadValue;
        if (g.m_rows == '0) return ErrorBadLength;
        if (!g.keep_weights && (g.k_rows == '0 || 32'(g.k_rows) > Rows)) return ErrorBadLength;
        if (!g.keep_weights && 32'(g.w_addr) + 32'(g.k_rows) > WSpadRows) return ErrorBadAddress;
        if (32'(g.in_addr) + 32'(g.m_rows) > InSpadRows) return ErrorBadAddress;
        if (32'(g.acc_addr) + 32'(g.m_rows) > AccRows) return ErrorBadAddress;
        return ErrorNone;
      end
      OpStore: begin
        if (s.mode != StoreModeRequant8 && s.mode != StoreModeRaw32) return ErrorBadValue;
        if (s.count0 == '0 || s.count1 == '0) return ErrorBadLength;
        if (s.row_bytes == '0 || 32'(s.row_bytes) > Cols) return ErrorBadLength;
        if (33'(s.acc_addr) + 33'(s.count0) * 33'(s.count1) > 33'(AccRows)) return ErrorBadAddress;
        if (32'(s.param_row) >= ParamRows) return ErrorBadAddress;
        return ErrorNone;
      end
      default: return ErrorBadOpcode;
    endcase
  endfunction

  // ---------------------------------------------------------------- decode and dispatch
  logic   dec_valid_q, halted_q;
  cmd_t   dec_q;
  error_e dec_err_q, error_q;

  barrier_cmd_t bar;
  opcode_e      op;
  assign bar = barrier_cmd_t'(dec_q);
  assign op  = opcode_e'(dec_q[HdrOpcodeLsb +: HdrOpcodeW]);

  logic ok, dispatch, nop_done, bar_done, bad, leave, load_next, halt_ring;
  assign ok        = dec_valid_q && (dec_err_q == ErrorNone) && !halted_q;
  assign disp_load_o    = ok && op == OpLoad && !load_full_i;
  assign disp_compute_o = ok && op == OpGemm && !compute_full_i;
  assign disp_store_o   = ok && op == OpStore && !store_full_i;
  assign disp_cmd_o     = dec_q;
  assign dispatch  = disp_load_o || disp_compute_o || disp_store_o;
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
      dec_err_q <= check(cmd_i);
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
      for (int unsigned i = 0; i < NumCounters; i++) rec[64 * (i + 1) +: 64] = cnt_i[i];
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
