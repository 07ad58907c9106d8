// Vector unit: executes WINDOW, ELTWISE, SOFTMAX and LAYER_NORM commands (hw/spec/isa.json) in order, one at
// a time, on Cols lanes (one byte column of the vector scratchpad each; weft_vec_lane), writing
// whole accumulator rows that a STORE then post-processes. Like NVDLA's SDP/PDP beside the
// convolution core, it runs beside the array, behind its own command FIFO and token queues.
//
// A command is a stream of slots, one a cycle; a slot reads up to two scratchpad rows (a: the
// input or first operand, b: the weight or second operand) and does one operation in every lane:
//   WINDOW   one slot per (output pixel, tap): oy, ox, ky, kx with kx fastest; taps outside the
//            tile read nothing and do not count; a pixel's last tap writes its row;
//   ELTWISE  one slot per output row;
//   SOFTMAX  three passes over the rows (max, sum of exp, output); the lanes' maxima and sums are
//            combined across lanes (cross) or kept per lane, and the reciprocal of the sum takes
//            SoftmaxRecipCycles between the second and third passes; in fp16 mode the lanes
//            below Cols/2 take binary16 values and combine in binary32 (the same schedule);
//   LAYER_NORM two passes over the rows (sums of x and x*x, output); the lanes' sums are combined
//            and the reciprocal square root (weft_vec_rsqrt) takes LayerNormRsqrtCycles between;
//            in fp16 mode, like SOFTMAX's, the lanes below Cols/2 and binary32 sums.
//
// Timing (rtl/README.md): a command starts at edge s (given in cycle s-1: a queued command, its
// tokens, the unit idle) and issues its first slot in cycle s; a slot issued in cycle c has its
// address registered at edge c+1, its rows read at c+2, the operand stage at c+3, the reduce
// stage at c+4, the result at c+5 and its accumulator row written at edge c+6
// (VectorPipeDepth). The command completes with its last write; the next can start at the edge
// after. SOFTMAX's second pass starts VectorReduceGap cycles after the first's last slot, the
// third VectorReduceGap + SoftmaxRecipCycles after the second's; LAYER_NORM's output pass
// VectorReduceGap + LayerNormRsqrtCycles after its sums pass.
module weft_vector
  import weft_pkg::*;
  import weft_rtl_pkg::*;
  import weft_fp_pkg::*;
#(
  parameter int unsigned Cols = DefaultCols,
  parameter int unsigned Fp16 = 0  // WINDOW and ELTWISE lut in binary16 mode on lanes below Cols/2
) (
  input  logic               clk_i,
  input  logic               rst_ni,
  input  logic               clr_i,
  // command queue
  input  logic               cmd_valid_i,
  input  cmd_t               cmd_i,
  output logic               cmd_pop_o,
  // tokens (weft_pkg TokVectorWait0/1, Signal0/1)
  input  logic [1:0]         wait_avail_i,
  input  logic [1:0]         sig_space_i,
  output logic [1:0]         wait_pop_o,
  output logic [1:0]         sig_rsv_o,
  output logic [1:0]         sig_push_o,
  // vector scratchpad: two registered read ports
  output logic               a_re_o,
  output logic [RowAw-1:0]   a_raddr_o,
  input  logic [Cols*8-1:0]  a_rdata_i,
  output logic               b_re_o,
  output logic [RowAw-1:0]   b_raddr_o,
  input  logic [Cols*8-1:0]  b_rdata_i,
  // lookup table
  output logic [Cols*8-1:0]  lut_idx_o,   // lane l in bits [l*8 +: 8]
  input  logic [Cols*32-1:0] lut_data_i,  // lane l in bits [l*32 +: 32]
  // accumulator write port
  output logic               acc_we_o,
  output logic [RowAw-1:0]   acc_addr_o,
  output logic [Cols*32-1:0] acc_data_o,  // lane l in bits [l*32 +: 32]
  // status
  output logic               active_o,
  output logic               stall_token_o,
  output logic               slot_o,
  output logic               retire_o,
  output logic               idle_o
);
  localparam int unsigned LaneW = (Cols > 1) ? $clog2(Cols) : 1;
  localparam int unsigned GapW  = 7;

  // ---------------------------------------------------------------- start
  logic tok_ok, start, busy_q, done;
  assign tok_ok    = tokens_ok(cmd_i, wait_avail_i, sig_space_i);
  assign start     = cmd_valid_i && tok_ok && !busy_q;
  assign cmd_pop_o = start;
  assign wait_pop_o = {start && cmd_i[HdrWait1Lsb], start && cmd_i[HdrWait0Lsb]};
  assign sig_rsv_o  = {start && cmd_i[HdrSignal1Lsb], start && cmd_i[HdrSignal0Lsb]};

  // The command, held while it runs, and its views.
  cmd_t         cmd_q;
  logic [3:0]   op_q;
  logic [1:0]   sig_q;
  window_cmd_t  win;
  eltwise_cmd_t elt;
  softmax_cmd_t smx;
  layer_norm_cmd_t lnm;
  assign win = cmd_q;
  assign elt = cmd_q;
  assign smx = cmd_q;
  assign lnm = cmd_q;
  logic is_ln;
  assign is_ln = (op_q == OpLayerNorm);

  // Operand settings of the lanes, one form for every opcode.
  logic [1:0]  kind_q;
  logic        fp_q;  // binary16 mode: lane j < Cols/2 reads bytes 2s, 2s+1 (weft_vec_lane)
  logic        a_signed_q, b_signed_q;
  logic [8:0]  a_zp_q, b_zp_q;
  logic [LaneW-1:0] amap_q [Cols];  // lane l reads byte amap_q[l] of row a
  logic [LaneW-1:0] bmap_q [Cols];

  // The incoming command in each opcode's view.
  /* verilator lint_off UNUSEDSIGNAL */
  window_cmd_t  in_win;
  eltwise_cmd_t in_elt;
  softmax_cmd_t in_smx;
  layer_norm_cmd_t in_lnm;
  /* verilator lint_on UNUSEDSIGNAL */
  assign in_win = cmd_i;
  assign in_elt = cmd_i;
  assign in_smx = cmd_i;
  assign in_lnm = cmd_i;
  // The incoming command is a WINDOW, ELTWISE, SOFTMAX or LAYER_NORM in binary16 mode (never
  // without Fp16).
  logic in_fp;
  assign in_fp = (Fp16 != 0) && ((cmd_i[HdrOpcodeLsb +: HdrOpcodeW] == OpWindow && in_win.fp16) ||
                                 (cmd_i[HdrOpcodeLsb +: HdrOpcodeW] == OpEltwise && in_elt.fp16) ||
                                 (cmd_i[HdrOpcodeLsb +: HdrOpcodeW] == OpSoftmax && in_smx.fp16) ||
                                 (cmd_i[HdrOpcodeLsb +: HdrOpcodeW] == OpLayerNorm && in_lnm.fp16));

  always_ff @(posedge clk_i) begin
    if (start) begin
      cmd_q <= cmd_i;
      op_q  <= cmd_i[HdrOpcodeLsb +: HdrOpcodeW];
      sig_q <= {cmd_i[HdrSignal1Lsb], cmd_i[HdrSignal0Lsb]};
      fp_q  <= in_fp;
      unique case (cmd_i[HdrOpcodeLsb +: HdrOpcodeW])
        OpWindow: begin
          kind_q     <= in_win.kind;
          a_signed_q <= in_win.in_signed;
          a_zp_q     <= in_win.in_zp;
          b_signed_q <= in_win.w_signed;
          b_zp_q     <= in_win.w_zp;
        end
        OpEltwise: begin
          kind_q     <= in_elt.kind;
          a_signed_q <= in_elt.a_signed;
          a_zp_q     <= in_elt.a_zp;
          b_signed_q <= in_elt.b_signed;
          b_zp_q     <= in_elt.b_zp;
        end
        OpLayerNorm: begin
          kind_q     <= '0;
          a_signed_q <= in_lnm.in_signed;
          a_zp_q     <= in_lnm.in_zp[8:0];
          b_signed_q <= 1'b0;
          b_zp_q     <= '0;
        end
        default: begin
          kind_q     <= '0;
          a_signed_q <= in_smx.in_signed;
          a_zp_q     <= '0;
          b_signed_q <= 1'b0;
          b_zp_q     <= '0;
        end
      endcase
      // LAYER_NORM: the row's element count N (fp16: Cols/2 a row)
      ln_n_q <= 16'((32'(in_lnm.count) - 1) * (in_fp ? Cols / 2 : Cols) + 32'(in_lnm.last_lanes));
      for (int unsigned l = 0; l < Cols; l++) begin
        unique case (cmd_i[HdrOpcodeLsb +: HdrOpcodeW])
          OpWindow:  amap_q[l] <= LaneW'((32'(in_win.phase) + l) / 32'(in_win.dm));  // dm >= 1 (checked)
          OpEltwise: amap_q[l] <= in_elt.a_bcast ? '0 : LaneW'(l);
          default:   amap_q[l] <= LaneW'(l);
        endcase
        bmap_q[l] <= (cmd_i[HdrOpcodeLsb +: HdrOpcodeW] == OpEltwise && in_elt.b_bcast) ? '0 : LaneW'(l);
        // binary16: the low byte of a lane's value (the high one follows); lanes from Cols/2 on
        // are idle.
        if (in_fp) begin
          if (l >= Cols / 2) begin
            amap_q[l] <= '0;
            bmap_q[l] <= '0;
          end else begin
            unique case (cmd_i[HdrOpcodeLsb +: HdrOpcodeW])
              OpWindow:  amap_q[l] <= LaneW'(2 * ((32'(in_win.phase) + l) / 32'(in_win.dm)));
              OpEltwise: amap_q[l] <= in_elt.a_bcast ? '0 : LaneW'(2 * l);
              default:   amap_q[l] <= LaneW'(2 * l);
            endcase
            bmap_q[l] <= (cmd_i[HdrOpcodeLsb +: HdrOpcodeW] == OpEltwise && in_elt.b_bcast) ? '0 : LaneW'(2 * l);
          end
        end
      end
    end
  end

  // ---------------------------------------------------------------- sequencer
  // One slot record per pipeline stage: p1 (address registered), p2 (rows read), p3 (operand
  // stage done), p4 (reduce stage done), then the write registers.
  typedef struct packed {
    logic             valid;
    logic             read_a, read_b;
    logic [RowAw-1:0] a_addr, b_addr;
    logic             ok;        // window: the tap is in the tile
    logic             first;     // first slot of a window or of a softmax / layer-norm pass
    logic             write;     // writes its accumulator row
    logic             pass_end;  // softmax, layer norm: last slot of a pass
    logic             last_row;  // softmax, layer norm: the last row (lanes past last_lanes invalid)
    logic [1:0]       pass;
    logic             last_of_cmd;     // the command's last slot
    logic [RowAw-1:0] wr_addr;
  } vslot_t;

  logic        issuing_q;              // slots left to issue
  logic [GapW-1:0] gap_q;              // softmax, layer norm: cycles to wait before the next pass
  logic [1:0]  pass_q;
  logic [15:0] i0_q, i1_q;             // window: ox, oy; eltwise: i0, i1; softmax, layer norm: row
  logic [15:0] ln_n_q;                 // layer norm: N
  logic [7:0]  kx_q, ky_q;
  logic [RowAw-1:0] row_q;             // eltwise: output row
  vslot_t      p1_q, p2_q, p3_q, p4_q;

  logic issue;
  assign issue  = busy_q && issuing_q && gap_q == '0;
  assign slot_o = issue;

  // The record of the slot issuing this cycle, and where each opcode's loops stand: a window's
  // last tap (win_lk) of its last output pixel (win_lp), an eltwise's last element (elt_lp), a
  // softmax pass's last row (smx_lr).
  vslot_t slot;
  logic   win_lk, win_lp, elt_lp, smx_lr;
  logic signed [31:0] win_y, win_x;  // window: the tap's input pixel
  assign win_y  = signed'(32'(i1_q) * 32'(win.s_h)) + 32'(signed'(win.y_off)) + signed'(32'(ky_q) * 32'(win.d_h));
  assign win_x  = signed'(32'(i0_q) * 32'(win.s_w)) + 32'(signed'(win.x_off)) + signed'(32'(kx_q) * 32'(win.d_w));
  assign win_lk = (kx_q == win.k_w - 1'b1) && (ky_q == win.k_h - 1'b1);
  assign win_lp = (32'(i0_q) == 32'(win.out_w) - 1) && (32'(i1_q) == 32'(win.out_h) - 1);
  assign elt_lp = (i0_q == elt.count0 - 1'b1) && (i1_q == elt.count1 - 1'b1);
  assign smx_lr = (i0_q == smx.count - 1'b1);
  // SOFTMAX and LAYER_NORM share the fields the sequencer reads (count, in_addr, stride,
  // acc_addr at the same bits); they differ in their passes (three, two) and the gaps between.
  logic [1:0] last_pass;
  assign last_pass = is_ln ? 2'd1 : 2'd2;

  always_comb begin
    slot = '0;
    slot.valid = 1'b1;
    unique case (op_q)
      OpWindow: begin
        slot.ok      = win_y >= 0 && win_y < signed'(32'(win.tile_h)) && win_x >= 0 && win_x < signed'(32'(win.tile_w));
        slot.read_a  = slot.ok;
        slot.read_b  = (win.kind == WinKindDwconv);
        slot.a_addr  = RowAw'(32'(win.in_addr) + 32'(win_y) * 32'(win.row_stride) + 32'(win_x) * 32'(win.pix_stride));
        slot.b_addr  = RowAw'(32'(win.w_addr) + 32'(ky_q) * 32'(win.k_w) + 32'(kx_q));
        slot.first   = (kx_q == '0 && ky_q == '0);
        slot.write   = win_lk;
        slot.last_of_cmd = win_lk && win_lp;
        slot.wr_addr = RowAw'(32'(win.acc_addr) + 32'(i1_q) * 32'(win.out_w) + 32'(i0_q));
      end
      OpEltwise: begin
        slot.ok      = 1'b1;
        slot.read_a  = 1'b1;
        slot.read_b  = (elt.kind == EltKindAdd || elt.kind == EltKindMul);
        slot.a_addr  = RowAw'(32'(elt.a_addr) + 32'(i1_q) * 32'(elt.a_stride1) + 32'(i0_q) * 32'(elt.a_stride0));
        slot.b_addr  = RowAw'(32'(elt.b_addr) + 32'(i1_q) * 32'(elt.b_stride1) + 32'(i0_q) * 32'(elt.b_stride0));
        slot.first   = 1'b1;
        slot.write   = 1'b1;
        slot.last_of_cmd = elt_lp;
        slot.wr_addr = RowAw'(32'(elt.acc_addr) + 32'(row_q));
      end
      default: begin  // softmax, layer norm: passes over the rows, writes in the last
        slot.ok       = 1'b1;
        slot.read_a   = 1'b1;
        slot.a_addr   = RowAw'(32'(smx.in_addr) + 32'(i0_q) * 32'(smx.stride));
        slot.first    = (i0_q == '0);
        slot.pass     = pass_q;
        slot.pass_end = smx_lr;
        slot.last_row = smx_lr;
        slot.write    = (pass_q == last_pass);
        slot.last_of_cmd = (pass_q == last_pass) && smx_lr;
        slot.wr_addr  = RowAw'(32'(smx.acc_addr) + 32'(i0_q) * (is_ln ? 32'(lnm.acc_stride) : 32'd1));
      end
    endcase
  end

  // The slot the counters describe is computed at the edge that ends its issue cycle (so the
  // address arithmetic costs nothing while the unit is idle) and lands in p1_q.
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      busy_q    <= 1'b0;
      issuing_q <= 1'b0;
      gap_q     <= '0;
      p1_q      <= '0;
    end else if (clr_i) begin
      busy_q    <= 1'b0;
      issuing_q <= 1'b0;
      gap_q     <= '0;
      p1_q.valid <= 1'b0;
    end else begin
      if (start) begin
        busy_q    <= 1'b1;
        issuing_q <= 1'b1;
        gap_q     <= '0;
        pass_q    <= '0;
        i0_q      <= '0;
        i1_q      <= '0;
        kx_q      <= '0;
        ky_q      <= '0;
        row_q     <= '0;
      end else if (done) begin
        busy_q <= 1'b0;
      end
      if (gap_q != '0) gap_q <= gap_q - 1'b1;
      p1_q.valid <= issue;
      if (issue) begin
        unique case (op_q)
          OpWindow: begin
            if (!win_lk) begin
              if (kx_q != win.k_w - 1'b1) kx_q <= kx_q + 1'b1;
              else begin kx_q <= '0; ky_q <= ky_q + 1'b1; end
            end else begin
              kx_q <= '0;
              ky_q <= '0;
              if (32'(i0_q) != 32'(win.out_w) - 1) i0_q <= i0_q + 1'b1;
              else begin i0_q <= '0; i1_q <= i1_q + 1'b1; end
            end
            if (slot.last_of_cmd) issuing_q <= 1'b0;
          end
          OpEltwise: begin
            row_q <= row_q + 1'b1;
            if (i0_q != elt.count0 - 1'b1) i0_q <= i0_q + 1'b1;
            else begin i0_q <= '0; i1_q <= i1_q + 1'b1; end
            if (elt_lp) issuing_q <= 1'b0;
          end
          default: begin  // softmax, layer norm
            if (!smx_lr) begin
              i0_q <= i0_q + 1'b1;
            end else begin
              i0_q   <= '0;
              pass_q <= pass_q + 1'b1;
              // A gap only between passes: one left after the output pass would outlive the
              // command and delay the next command's first slot (its start does not clear a
              // counting gap).
              if (pass_q == last_pass) issuing_q <= 1'b0;
              else if (is_ln) gap_q <= GapW'(VectorReduceGap + LayerNormRsqrtCycles - 1);
              else gap_q <= (pass_q == 2'd0) ? GapW'(VectorReduceGap - 1)
                                             : GapW'(VectorReduceGap + SoftmaxRecipCycles - 1);
            end
          end
        endcase
        p1_q <= slot;
      end
    end
  end

  // The pipeline behind p1: a record moves one stage a cycle; only the valid bits reset.
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      p2_q <= '0;
      p3_q <= '0;
      p4_q <= '0;
    end else if (clr_i) begin
      p2_q.valid <= 1'b0;
      p3_q.valid <= 1'b0;
      p4_q.valid <= 1'b0;
    end else begin
      p2_q.valid <= p1_q.valid;
      p3_q.valid <= p2_q.valid;
      p4_q.valid <= p3_q.valid;
      if (p1_q.valid) p2_q <= p1_q;
      if (p2_q.valid) p3_q <= p2_q;
      if (p3_q.valid) p4_q <= p3_q;
    end
  end

  assign a_re_o    = p1_q.valid && p1_q.read_a;
  assign a_raddr_o = p1_q.a_addr;
  assign b_re_o    = p1_q.valid && p1_q.read_b;
  assign b_raddr_o = p1_q.b_addr;

  // ---------------------------------------------------------------- lanes
  logic [LaneW:0] last_lanes;
  assign last_lanes = (LaneW+1)'(is_ln ? lnm.last_lanes : smx.last_lanes);

  logic [31:0] red [Cols];
  logic [31:0] red2 [Cols];  // layer norm: the sum of squares
  logic [31:0] result [Cols];
  logic [31:0] max_q [Cols];
  logic [31:0] sum_q [Cols];
  logic        sum_load_q;
  logic [3:0]  recip_q;
  logic [31:0] ln_sum_q, ln_squares_q;  // layer norm: S1 and S2 across the lanes
  logic        ln_load_q;
  logic [31:0] ln_recip;
  logic [5:0]  ln_shift;
  logic [31:0] ln_mean, ln_rstd;  // fp16 mode
  // The lanes' reductions across the lanes (below): as integers, and in binary32 with Fp16.
  logic [31:0] int_max, int_sum, fp_max, fp_sum, fp_sum2;

  for (genvar l = 0; l < Cols; l++) begin : g_lane
    logic [7:0] a_byte, b_byte, a_hi, b_hi;
    logic       ok1;
    assign a_byte = a_rdata_i[32'(amap_q[l]) * 8 +: 8];
    assign b_byte = b_rdata_i[32'(bmap_q[l]) * 8 +: 8];
    // binary16: the byte after (amap and bmap are even, below Cols - 1, in fp16 mode); only
    // for the lanes that have the fp16 arithmetic, so that without it no selector is built.
    if (Fp16 != 0 && l < Cols / 2) begin : g_hi
      assign a_hi = a_rdata_i[(32'(amap_q[l]) + 1) % Cols * 8 +: 8];
      assign b_hi = b_rdata_i[(32'(bmap_q[l]) + 1) % Cols * 8 +: 8];
    end else begin : g_no_hi
      assign a_hi = '0;
      assign b_hi = '0;
    end
    assign ok1    = (op_q == OpSoftmax || is_ln)
                    ? !((is_ln || smx.cross_lanes) && p2_q.last_row && (LaneW+1)'(l) >= last_lanes)
                    : p2_q.ok;

    weft_vec_lane #(.Fp16((Fp16 != 0 && l < Cols / 2) ? 1 : 0)) u_lane (
      .clk_i,
      .op_i         (op_q),
      .kind_i       (kind_q),
      .a_signed_i   (a_signed_q),
      .a_zp_i       (a_zp_q),
      .b_signed_i   (b_signed_q),
      .b_zp_i       (b_zp_q),
      .left_shift_i (elt.left_shift),
      .a_mult_i     (elt.a_mult),
      .a_shift_i    (elt.a_shift),
      .b_mult_i     (elt.b_mult),
      .b_shift_i    (elt.b_shift),
      .lut_len_i    (smx.lut_len),
      .fp_i         (fp_q),
      .beta_i       (smx.beta),
      .op1_en_i     (p2_q.valid),
      .a_i          (a_byte),
      .b_i          (b_byte),
      .a_hi_i       (a_hi),
      .b_hi_i       (b_hi),
      .ok1_i        (ok1),
      .pass1_i      (p2_q.pass),
      .lut_idx_o    (lut_idx_o[l*8 +: 8]),
      .lut_data_i   (lut_data_i[l*32 +: 32]),
      .op2_en_i     (p3_q.valid),
      .first2_i     (p3_q.first),
      .pass2_i      (p3_q.pass),
      .red_o        (red[l]),
      .red2_o       (red2[l]),
      .max_i        (max_q[l]),
      .sum_load_i   (sum_load_q),
      .sum_i        (sum_q[l]),
      .recip_step_i (recip_q),
      .ln_n_i       (ln_n_q),
      .ln_sum_i     (ln_sum_q),
      .ln_recip_i   (ln_recip),
      .ln_shift_i   (ln_shift),
      .ln_mean_i    (ln_mean),
      .ln_rstd_i    (ln_rstd),
      .op3_en_i     (p4_q.valid && p4_q.write),
      .result_o     (result[l])
    );
  end

  // Softmax: after a pass's last slot leaves the reduce stage, the maxima (first pass) or sums
  // (second pass) of the lanes, combined across lanes with cross, then the reciprocal steps.
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      sum_load_q <= 1'b0;
      recip_q    <= '0;
    end else if (clr_i) begin
      sum_load_q <= 1'b0;
      recip_q    <= '0;
    end else begin
      sum_load_q <= !is_ln && p4_q.valid && p4_q.pass_end && p4_q.pass == 2'd1;
      recip_q    <= sum_load_q ? 4'd1 : ((recip_q == '0 || recip_q == 4'd8) ? '0 : recip_q + 1'b1);
    end
  end

  // Layer norm: after the sums pass's last slot leaves the reduce stage, S1 and S2 across the
  // lanes (wrapping), then the reciprocal square root.
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) ln_load_q <= 1'b0;
    else if (clr_i) ln_load_q <= 1'b0;
    else ln_load_q <= is_ln && p4_q.valid && p4_q.pass_end && p4_q.pass == 2'd0;
  end

  logic [31:0] int_sum2;
  always_comb begin
    int_sum2 = '0;
    for (int unsigned l = 0; l < Cols; l++) int_sum2 = int_sum2 + red2[l];
  end

  always_ff @(posedge clk_i) begin
    if (is_ln && p4_q.valid && p4_q.pass_end && p4_q.pass == 2'd0) begin
      ln_sum_q     <= (Fp16 != 0 && fp_q) ? fp_sum : int_sum;
      ln_squares_q <= (Fp16 != 0 && fp_q) ? fp_sum2 : int_sum2;
    end
  end

  weft_vec_rsqrt #(.Fp16(Fp16)) u_rsqrt (
    .clk_i,
    .start_i     (ln_load_q),
    .fp_i        (fp_q),
    .sum_i       (ln_sum_q),
    .squares_i   (ln_squares_q),
    .n_i         (ln_n_q),
    .eps_i       (lnm.eps),
    .eps32_i     (lnm.eps_fp32),
    .out_shift_i (lnm.out_shift),
    .recip_o     (ln_recip),
    .shift_o     (ln_shift),
    .mean_o      (ln_mean),
    .rstd_o      (ln_rstd)
  );

  // The lanes' maxima and sums combined across the lanes: as integers, and with Fp16 in binary32
  // over the lanes below Cols/2 (fp16 mode). Each chain on its own, so the maximum's comparisons
  // and the sum's adders do not feed one another.
  always_comb begin
    int_max = red[0];
    int_sum = '0;
    for (int unsigned l = 0; l < Cols; l++) begin
      int_max = (signed'(red[l]) > signed'(int_max)) ? red[l] : int_max;
      int_sum = int_sum + red[l];
    end
  end
  if (Fp16 != 0) begin : g_fp_cross
    // The sums from +0 in lane order, an adder a lane: of the lanes' reductions, and (LAYER_NORM)
    // of their sums of squares.
    logic [Cols/2*32-1:0] reds, reds2;
    for (genvar l = 0; l < Cols / 2; l++) begin : g_words
      assign reds[l*32 +: 32]  = red[l];
      assign reds2[l*32 +: 32] = red2[l];
    end
    weft_fp32_sum #(.N(Cols / 2)) u_sum (.v_i(reds), .sum_o(fp_sum));
    weft_fp32_sum #(.N(Cols / 2)) u_sum2 (.v_i(reds2), .sum_o(fp_sum2));
    always_comb begin
      fp_max = red[0];
      for (int unsigned l = 0; l < Cols / 2; l++) begin
        fp_max = fp32_greater(red[l], fp_max) ? red[l] : fp_max;
      end
    end
  end else begin : g_no_fp_cross
    assign fp_max  = '0;
    assign fp_sum  = '0;
    assign fp_sum2 = '0;
  end

  always_ff @(posedge clk_i) begin
    if (!is_ln && p4_q.valid && p4_q.pass_end && p4_q.pass != 2'd2) begin
      for (int unsigned l = 0; l < Cols; l++) begin
        if (p4_q.pass == 2'd0) max_q[l] <= smx.cross_lanes ? ((Fp16 != 0 && fp_q) ? fp_max : int_max) : red[l];
        else                   sum_q[l] <= smx.cross_lanes ? ((Fp16 != 0 && fp_q) ? fp_sum : int_sum) : red[l];
      end
    end
  end

  // ---------------------------------------------------------------- write and completion
  logic             wr_valid_q, wr_final_q;
  logic [RowAw-1:0] wr_addr_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      wr_valid_q <= 1'b0;
      wr_final_q <= 1'b0;
    end else if (clr_i) begin
      wr_valid_q <= 1'b0;
      wr_final_q <= 1'b0;
    end else begin
      wr_valid_q <= p4_q.valid && p4_q.write;
      wr_final_q <= p4_q.valid && p4_q.last_of_cmd;
    end
  end

  always_ff @(posedge clk_i) begin
    if (p4_q.valid && p4_q.write) wr_addr_q <= p4_q.wr_addr;
  end

  assign done       = wr_valid_q && wr_final_q;
  assign acc_we_o   = wr_valid_q;
  assign acc_addr_o = wr_addr_q;
  for (genvar l = 0; l < Cols; l++) begin : g_acc_data
    // binary16 mode: lanes from Cols/2 on write 0
    assign acc_data_o[l*32 +: 32] = (Fp16 != 0 && fp_q && l >= Cols / 2) ? 32'd0 : result[l];
  end

  assign sig_push_o    = done ? sig_q : 2'b00;
  assign retire_o      = done;
  assign active_o      = busy_q;
  assign idle_o        = !busy_q;
  assign stall_token_o = cmd_valid_i && !tok_ok;

  logic unused;
  assign unused = ^{cmd_q, win, elt, smx, lnm, p4_q};
endmodule
