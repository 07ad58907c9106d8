// Compute unit of the output-stationary array (Dataflow OS): executes GEMM commands in order.
//
// A GEMM's m_groups*m_rows pixels go through the array in blocks of Rows pixels, pixel j of a
// block on array row j. A block takes Rows slots, one a cycle: slot j reads pixel j's input row
// (empty past the GEMM's last pixel) and weight row j (zero at or past k_rows), so every block
// streams the GEMM's weights again and there is no preload. Blocks follow each other back to
// back across GEMMs. Rows+1 cycles after a block's last slot, its sums leave the array one pixel
// a cycle, last pixel first; the drain sequencer hands the accumulator a write-back descriptor
// for each in step (weft_array_os has the timing). The GEMM completes when the write-back of
// its first pixel (drained last) reaches the last column (done_i).
// A GEMM of k_steps steps starts once a step (weft_gemm_steps): each step is a GEMM of its own
// to the block slots; only the last step's blocks complete the command.
module weft_compute_os
  import weft_pkg::*;
  import weft_rtl_pkg::*;
#(
  parameter int unsigned Rows = DefaultRows,
  parameter int unsigned Cols = DefaultCols
) (
  input  logic              clk_i,
  input  logic              rst_ni,
  input  logic              clr_i,
  // command queue
  input  logic              cmd_valid_i,
  input  cmd_t              cmd_i,
  output logic              cmd_pop_o,
  // tokens (weft_pkg Tok<Unit>Wait0/1, Signal0/1): the head's wait queues and signal queues
  input  logic [1:0]        wait_avail_i,
  input  logic [1:0]        sig_space_i,
  output logic [1:0]        wait_pop_o,
  output logic [1:0]        sig_rsv_o,
  output logic [1:0]        sig_push_o,
  // weight scratchpad read port (registered read)
  output logic              w_re_o,
  output logic [RowAw-1:0]  w_raddr_o,
  input  logic [Cols*8-1:0] w_rdata_i,
  // weight row entering the array (column c in bits [c*OperandW +: OperandW])
  output logic [Cols*OperandW-1:0] w_o,
  // the slot's input row read (acc.valid: a pixel) and its array row
  output row_meta_t         row_o,
  output logic              slot_valid_o,
  output logic [$clog2(Rows)-1:0] slot_row_o,
  // write-back descriptors of the drained pixels
  output acc_meta_t         meta_o,
  output logic              pipe_en_o,
  // accumulator write-back of a GEMM's last pixel in the last column
  input  logic              done_i,
  input  logic [1:0]        done_sig_i,
  // status
  output logic              active_o,
  output logic              stall_token_o,
  output logic              array_row_o,
  output logic              retire_o,
  output logic              cmd_start_o,   // a command's first step starts (command timelines)
  output logic              idle_o
);
  localparam int unsigned KW = GemmKRowsW;
  localparam int unsigned RowIdxW = $clog2(Rows);
  localparam int unsigned CountW = $clog2(Rows + 1);
  // Last slot of a block to the last column's write-back of its pixel 0 (weft_array_os).
  localparam int unsigned PipeDepth = 2 * Rows + Cols + 2;
  localparam int unsigned PipeW = $clog2(PipeDepth + 1);

  typedef struct packed {
    logic [RowAw-1:0]        in_addr;
    logic [GemmMRowsW-1:0]   m_rows;
    logic [GemmMGroupsW-1:0] m_groups;
    logic [RowAw-1:0]        in_stride0;
    logic [RowAw-1:0]        in_stride1;
    logic [RowAw-1:0]        acc_addr;
    logic [8:0]              in_zp;
    logic                    in_signed;
    logic                    accumulate;
    logic [RowAw-1:0]        w_addr;
    logic [KW-1:0]           k_rows;
    logic [8:0]              w_zp;
    logic                    w_signed;
    logic [1:0]              sig;
    logic                    final_step;  // the command's last step: its last block completes it
  } job_t;

  // What the drain sequencer needs of a block.
  typedef struct packed {
    logic [RowAw-1:0]  acc_addr;   // accumulator row of its pixel 0
    logic [CountW-1:0] pixels;
    logic              accumulate;
    logic              last;       // the GEMM's last block
    logic [1:0]        sig;
  } block_t;

  gemm_cmd_t head;
  assign head = cmd_i;

  // ---------------------------------------------------------------- start
  // keep_weights takes the weights of the previous GEMM again.
  logic [RowAw-1:0] last_w_addr_q;
  logic [KW-1:0]    last_k_q;
  logic [8:0]       last_w_zp_q;
  logic             last_w_signed_q;

  logic sq_full, sq_empty, sq_pop;
  logic tok_ok, start;
  logic step_first, step_final, step_accumulate;
  logic [RowAw-1:0] step_in_addr, step_w_addr;

  weft_gemm_steps u_steps (
    .clk_i, .rst_ni, .clr_i,
    .head_i      (head),
    .start_i     (start),
    .first_o     (step_first),
    .final_o     (step_final),
    .in_addr_o   (step_in_addr),
    .w_addr_o    (step_w_addr),
    .accumulate_o(step_accumulate)
  );

  // Tokens are the first step's (the later ones run on what it popped and reserved).
  assign tok_ok = !step_first || tokens_ok(cmd_i, wait_avail_i, sig_space_i);
  assign start  = cmd_valid_i && tok_ok && !sq_full;

  assign cmd_pop_o  = start && step_final;
  assign wait_pop_o = {start && step_first && head.wait1, start && step_first && head.wait0};
  assign sig_rsv_o  = {start && step_first && head.signal1, start && step_first && head.signal0};

  job_t new_job, job;
  always_comb begin
    new_job.in_addr    = step_in_addr;
    new_job.m_rows     = head.m_rows;
    new_job.m_groups   = head.m_groups;
    new_job.in_stride0 = RowAw'(head.in_stride0);
    new_job.in_stride1 = RowAw'(head.in_stride1);
    new_job.acc_addr   = head.acc_addr;
    new_job.in_zp      = head.in_zp[8:0];
    new_job.in_signed  = head.in_signed;
    new_job.accumulate = step_accumulate;
    new_job.w_addr     = head.keep_weights ? last_w_addr_q : step_w_addr;
    new_job.k_rows     = head.keep_weights ? last_k_q : head.k_rows;
    new_job.w_zp       = head.keep_weights ? last_w_zp_q : head.w_zp[8:0];
    new_job.w_signed   = head.keep_weights ? last_w_signed_q : head.w_signed;
    new_job.sig        = step_final ? {head.signal1, head.signal0} : 2'b00;
    new_job.final_step = step_final;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      last_w_addr_q   <= '0;
      last_k_q        <= '0;  // keep_weights before any GEMM adds nothing
      last_w_zp_q     <= '0;
      last_w_signed_q <= 1'b0;
    end else if (start) begin
      last_w_addr_q   <= new_job.w_addr;
      last_k_q        <= new_job.k_rows;
      last_w_zp_q     <= new_job.w_zp;
      last_w_signed_q <= new_job.w_signed;
    end
  end

  weft_fifo #(.Width($bits(new_job)), .Depth(StreamQueueDepth)) u_stream_q (
    .clk_i, .rst_ni, .clr_i,
    .push_i (start),
    .wdata_i(new_job),
    .pop_i  (sq_pop),
    .rdata_o(job),
    .empty_o(sq_empty),
    .full_o (sq_full)
  );

  // ---------------------------------------------------------------- block slots
  // Pixel i of group g reads input row in_addr + g*in_stride1 + i*in_stride0 (running offsets,
  // no multiplier) and writes accumulator row acc_addr + g*m_rows + i.
  logic [RowIdxW-1:0]      j_q;          // slot within the block
  logic                    done_q;       // the head GEMM's pixels have all been issued
  logic [GemmMRowsW-1:0]   i_q;
  logic [GemmMGroupsW-1:0] g_q;
  logic [RowAw-1:0]        in_off_q, grp_off_q, acc_off_q;
  logic [RowAw-1:0]        blk_acc_q;    // accumulator row of the block's pixel 0
  logic [CountW-1:0]       blk_pix_q;    // pixels issued in the block so far
  logic                    issue, pix, last_in_group, last_pix, end_blk;
  logic [PipeW-1:0]        pipe_q;
  logic                    pix_q;        // the slot's input row read: a pixel
  logic [RowAw-1:0]        in_addr_q;
  logic [8:0]              in_zp_q;
  logic                    in_signed_q;
  logic                    slot_q;
  logic [RowIdxW-1:0]      slot_row_q;
  logic                    wr_q;         // weight row read request
  logic [RowAw-1:0]        wr_addr_q;
  block_t                  blk_new;

  assign issue         = (j_q != '0) || !sq_empty;  // mid-block, the GEMM is at the head
  assign pix           = issue && !done_q;
  assign last_in_group = (i_q == job.m_rows - 1'b1);
  assign last_pix      = pix && last_in_group && (g_q == job.m_groups - 1'b1);
  assign end_blk       = issue && j_q == RowIdxW'(Rows - 1);
  assign sq_pop        = end_blk && (done_q || last_pix);

  always_comb begin
    blk_new.acc_addr   = (j_q == '0) ? job.acc_addr + acc_off_q : blk_acc_q;
    blk_new.pixels     = blk_pix_q + CountW'(pix);
    blk_new.accumulate = job.accumulate;
    blk_new.last       = sq_pop && job.final_step;
    blk_new.sig        = job.sig;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      j_q <= '0; done_q <= 1'b0; i_q <= '0; g_q <= '0;
      in_off_q <= '0; grp_off_q <= '0; acc_off_q <= '0;
      blk_pix_q <= '0; pipe_q <= '0; pix_q <= 1'b0; slot_q <= 1'b0; wr_q <= 1'b0;
    end else if (clr_i) begin
      j_q <= '0; done_q <= 1'b0; i_q <= '0; g_q <= '0;
      in_off_q <= '0; grp_off_q <= '0; acc_off_q <= '0;
      blk_pix_q <= '0; pipe_q <= '0; pix_q <= 1'b0; slot_q <= 1'b0; wr_q <= 1'b0;
    end else begin
      slot_q          <= issue;
      pix_q           <= pix;
      wr_q            <= issue && 32'(j_q) < 32'(job.k_rows);
      pipe_q <= issue ? PipeW'(PipeDepth) : (pipe_q != '0 ? pipe_q - 1'b1 : '0);
      if (issue) begin
        j_q       <= end_blk ? '0 : j_q + 1'b1;
        blk_pix_q <= end_blk ? '0 : blk_new.pixels;
        done_q    <= sq_pop ? 1'b0 : (done_q || last_pix);
      end
      if (pix) begin
        i_q       <= last_in_group ? '0 : i_q + 1'b1;
        g_q       <= last_pix ? '0 : (last_in_group ? g_q + 1'b1 : g_q);
        in_off_q  <= last_in_group ? '0 : in_off_q + job.in_stride0;
        grp_off_q <= last_pix ? '0 : (last_in_group ? grp_off_q + job.in_stride1 : grp_off_q);
        acc_off_q <= last_pix ? '0 : acc_off_q + 1'b1;
      end
    end
  end

  always_ff @(posedge clk_i) begin
    if (issue) begin
      slot_row_q <= j_q;
      wr_addr_q  <= job.w_addr + RowAw'(j_q);
      if (j_q == '0) blk_acc_q <= blk_new.acc_addr;
    end
    if (pix) begin
      in_addr_q   <= job.in_addr + grp_off_q + in_off_q;
      in_zp_q     <= job.in_zp;
      in_signed_q <= job.in_signed;
    end
  end
  // The input scratchpad reads only in_addr, in_zp and in_signed of a slot.
  always_comb begin
    row_o           = '0;
    row_o.in_addr   = in_addr_q;
    row_o.in_zp     = in_zp_q;
    row_o.in_signed = in_signed_q;
    row_o.acc.valid = pix_q;
  end
  assign slot_valid_o = slot_q;
  assign slot_row_o   = slot_row_q;
  assign pipe_en_o    = (pipe_q != '0);
  // Every slot, empty or not: the array streams (and its PEs clock) for the whole block, so
  // ARRAY_ROWS measures the array's occupied cycles and a partial last block shows as mapping
  // loss (as SCALE-Sim's mapping efficiency for a partial fold), not as a stall.
  assign array_row_o  = issue;

  // ---------------------------------------------------------------- weight rows
  // Slot j reads weight row w_addr + j (edge s+j+1); the row enters the array at edge s+j+2.
  logic       rd_v_q, rd_signed_q;
  logic [8:0] rd_zp_q, wr_zp_q;
  logic       wr_signed_q;
  operand_t   w_q [Cols];
  assign w_re_o    = wr_q;
  assign w_raddr_o = wr_addr_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni)    rd_v_q <= 1'b0;
    else if (clr_i) rd_v_q <= 1'b0;
    else            rd_v_q <= wr_q;
  end
  always_ff @(posedge clk_i) begin
    if (issue) begin
      wr_zp_q     <= job.w_zp;
      wr_signed_q <= job.w_signed;
    end
    rd_zp_q     <= wr_zp_q;
    rd_signed_q <= wr_signed_q;
    for (int unsigned c = 0; c < Cols; c++) begin
      w_q[c] <= rd_v_q ? to_operand(w_rdata_i[c*8 +: 8], rd_signed_q, rd_zp_q) : '0;
    end
  end
  for (genvar c = 0; c < Cols; c++) begin : g_w
    assign w_o[c*OperandW +: OperandW] = w_q[c];
  end

  // ---------------------------------------------------------------- drain sequencer
  // A block's record waits in a FIFO; Rows+1 edges after its last slot the sequencer emits one
  // descriptor a cycle for pixels Rows-1 down to 0 (empty slots invalid), then drops it.
  logic   bq_empty, bq_full, bq_pop;
  block_t blk;
  logic [Rows:0]      dl_q;       // the last slots of blocks, delayed
  logic               dr_act_q;
  logic [RowIdxW-1:0] dr_i_q;     // descriptor being emitted: pixel Rows-1-dr_i_q
  logic               dr_go;
  logic [RowIdxW-1:0] dr_i;
  logic [RowIdxW-1:0] p;
  acc_meta_t          meta_q;

  weft_fifo #(.Width($bits(blk_new)), .Depth(4)) u_block_q (
    .clk_i, .rst_ni, .clr_i,
    .push_i (end_blk),
    .wdata_i(blk_new),
    .pop_i  (bq_pop),
    .rdata_o(blk),
    .empty_o(bq_empty),
    .full_o (bq_full)
  );

  assign dr_go  = dl_q[Rows] || dr_act_q;
  assign dr_i   = dl_q[Rows] ? '0 : dr_i_q;
  assign p      = RowIdxW'(Rows - 1) - dr_i;
  assign bq_pop = dr_go && dr_i == RowIdxW'(Rows - 1);

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      dl_q <= '0; dr_act_q <= 1'b0; dr_i_q <= '0; meta_q <= '0;
    end else if (clr_i) begin
      dl_q <= '0; dr_act_q <= 1'b0; dr_i_q <= '0; meta_q <= '0;
    end else begin
      dl_q     <= {dl_q[Rows-1:0], end_blk};
      dr_act_q <= dr_go && !bq_pop;
      dr_i_q   <= dr_i + 1'b1;
      meta_q.valid      <= dr_go && 32'(p) < 32'(blk.pixels);
      meta_q.acc_addr   <= blk.acc_addr + RowAw'(p);
      meta_q.accumulate <= blk.accumulate;
      meta_q.last       <= blk.last && p == '0;
      meta_q.sig        <= blk.sig;
    end
  end
  assign meta_o = meta_q;

  // ---------------------------------------------------------------- completion and status
  logic [RowAw:0] inflight_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni)    inflight_q <= '0;
    else if (clr_i) inflight_q <= '0;
    else            inflight_q <= inflight_q + (RowAw+1)'(start && step_first) - (RowAw+1)'(done_i);
  end

  assign sig_push_o    = done_i ? done_sig_i : 2'b00;
  assign retire_o      = done_i;
  assign cmd_start_o   = start && step_first;
  assign active_o      = (inflight_q != '0);
  assign idle_o        = (inflight_q == '0);
  assign stall_token_o = cmd_valid_i && !tok_ok;

  logic unused;
  assign unused = ^{head, bq_empty, bq_full};
endmodule
