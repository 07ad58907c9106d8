// Compute unit: executes GEMM commands in order on the systolic array.
//
// Preloader: starts a GEMM (tokens popped/reserved, command popped) and, unless keep_weights,
// reads its k_rows weight rows from the weight scratchpad, one a cycle, into the PE weight
// buffer the current weights are not in (w_transposed: Cols rows, each into a PE column). A buffer is reused only when no queued or streaming
// GEMM uses it and Cols cycles have passed since its last input row entered the array, so the
// weight write wavefront stays behind the last use. The GEMM goes to the stream queue at once.
// Streamer: issues the rows of the queue's head GEMM into the array, one a cycle, back to
// back across GEMMs. The GEMM completes when the accumulator write-back of its last row
// reaches the last column (done_i).
// A GEMM of k_steps steps starts once a step (weft_gemm_steps): each step is a GEMM of its own
// to the preloader and the streamer; only the last step's last row completes the command.
module weft_compute
  import weft_pkg::*;
  import weft_rtl_pkg::*;
#(
  parameter int unsigned Rows = DefaultRows,
  parameter int unsigned Cols = DefaultCols,
  parameter int unsigned Fp16 = DefaultFp16
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
  // weight writes into the PEs: per array row, one enable per buffer
  output logic [Rows*2-1:0] w_row_we_o,  // row r in bits [r*2 +: 2]
  output logic              w_t_o,       // the write selects a column (w_transposed) instead

  output logic [Cols*OperandW-1:0] w_o,  // column c in bits [c*OperandW +: OperandW]
  // rows entering the array
  output row_meta_t         row_o,
  output logic              pipe_en_o,
  // accumulator write-back of a GEMM's last row in the last column
  input  logic              done_i,
  input  logic [1:0]        done_sig_i,
  // status
  output logic              active_o,
  output logic              stall_token_o,
  output logic              array_row_o,
  output logic              fp_row_o,      // a GEMM fp16 row entered the array (FP16_ROWS)
  output logic              retire_o,
  output logic              cmd_start_o,   // a command's first step starts (command timelines)
  output logic              idle_o
);
  localparam int unsigned KW = GemmKRowsW;
  localparam int unsigned RowIdxW = (Rows > 1) ? $clog2(Rows) : 1;
  localparam int unsigned DrainW = $clog2(Cols + 1);
  localparam int unsigned PipeDepth = Rows + Cols + 1;  // row issue to last column write-back
  localparam int unsigned PipeW = $clog2(PipeDepth + 1);

  typedef struct packed {
    logic [RowAw-1:0]    in_addr;
    logic [GemmMRowsW-1:0] m_rows;
    logic [GemmMGroupsW-1:0] m_groups;
    logic [RowAw-1:0]    in_stride0;
    logic [RowAw-1:0]    in_stride1;
    logic [RowAw-1:0]    acc_addr;
    logic [8:0]          in_zp;
    logic                in_signed;
    logic                accumulate;
    logic                wsel;
    logic [KW-1:0]       k_rows;
    logic [1:0]          sig;
    logic                final_step;  // the command's last step: its last row completes it
    logic                fp;
  } job_t;

  gemm_cmd_t head;
  assign head = cmd_i;

  // ---------------------------------------------------------------- preloader
  logic          last_buf_q;         // buffer holding the most recent weights
  logic [KW-1:0] last_k_q;
  logic [2:0]    users_q [2];        // GEMMs queued or streaming per buffer
  logic [DrainW-1:0] drain_q [2];    // cycles until a buffer's last row has passed
  logic [KW-1:0] pl_left_q;          // weight rows still to read
  logic [RowAw-1:0] pl_addr_q;

  logic sq_full, sq_empty, sq_pop;
  logic tok_ok, buf_ok, start, preload;
  logic nb;
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

  assign nb     = !last_buf_q;
  // Tokens are the first step's (the later ones run on what it popped and reserved).
  assign tok_ok = !step_first || tokens_ok(cmd_i, wait_avail_i, sig_space_i);
  assign buf_ok = head.keep_weights || (pl_left_q == '0 && users_q[nb] == '0 && drain_q[nb] == '0);
  assign start  = cmd_valid_i && tok_ok && buf_ok && !sq_full;
  assign preload = start && !head.keep_weights;

  assign cmd_pop_o = start && step_final;
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
    new_job.wsel       = head.keep_weights ? last_buf_q : nb;
    new_job.k_rows     = head.keep_weights ? last_k_q : head.k_rows;
    new_job.sig        = step_final ? {head.signal1, head.signal0} : 2'b00;
    new_job.final_step = step_final;
    new_job.fp         = head.fp16;  // decode rejects fp16 GEMMs without Fp16
  end

  // The queue stores the fp bit (job_t's last) only with Fp16.
  if (Fp16 != 0) begin : g_stream_q_fp
    weft_fifo #(.Width($bits(new_job)), .Depth(StreamQueueDepth)) u_stream_q (
      .clk_i, .rst_ni, .clr_i,
      .push_i (start),
      .wdata_i(new_job),
      .pop_i  (sq_pop),
      .rdata_o(job),
      .empty_o(sq_empty),
      .full_o (sq_full)
    );
  end else begin : g_stream_q
    logic [$bits(new_job)-2:0] rdata;
    weft_fifo #(.Width($bits(new_job) - 1), .Depth(StreamQueueDepth)) u_stream_q (
      .clk_i, .rst_ni, .clr_i,
      .push_i (start),
      .wdata_i(new_job[$bits(new_job)-1:1]),
      .pop_i  (sq_pop),
      .rdata_o(rdata),
      .empty_o(sq_empty),
      .full_o (sq_full)
    );
    assign job = {rdata, 1'b0};
    logic unused_fp;
    assign unused_fp = new_job.fp;
  end

  // Weight read: row 0 at the start edge, then one row a cycle.
  assign w_re_o    = preload || (pl_left_q != '0);
  assign w_raddr_o = (pl_left_q != '0) ? pl_addr_q : step_w_addr;

  logic                rd_valid_q, rd_buf_q, rd_signed_q, rd_t_q, wb_t_q;
  logic [RowIdxW-1:0]  rd_row_q;
  logic [8:0]          rd_zp_q;
  logic                wb_valid_q, wb_buf_q;
  logic [RowIdxW-1:0]  wb_row_q;
  operand_t            wb_q [Cols];

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      pl_left_q  <= '0;
      rd_valid_q <= 1'b0;
      wb_valid_q <= 1'b0;
      last_buf_q <= 1'b0;
      last_k_q   <= '0;  // keep_weights before any preload adds nothing
    end else if (clr_i) begin
      pl_left_q  <= '0;
      rd_valid_q <= 1'b0;
      wb_valid_q <= 1'b0;
    end else begin
      rd_valid_q <= w_re_o;
      wb_valid_q <= rd_valid_q;
      if (preload) begin
        pl_left_q  <= (head.w_transposed ? KW'(Cols) : head.k_rows) - 1'b1;
        last_buf_q <= nb;
        last_k_q   <= head.k_rows;
      end else if (pl_left_q != '0) begin
        pl_left_q <= pl_left_q - 1'b1;
      end
    end
  end

  always_ff @(posedge clk_i) begin
    if (preload) begin
      pl_addr_q   <= step_w_addr + 1'b1;
      rd_row_q    <= '0;
      rd_buf_q    <= nb;
      rd_zp_q     <= head.w_zp[8:0];
      rd_signed_q <= head.w_signed;
      rd_t_q      <= head.w_transposed;
    end else if (pl_left_q != '0) begin
      pl_addr_q <= pl_addr_q + 1'b1;
      rd_row_q  <= rd_row_q + 1'b1;
    end
    if (rd_valid_q) begin
      wb_row_q <= rd_row_q;
      wb_buf_q <= rd_buf_q;
      wb_t_q   <= rd_t_q;
      for (int unsigned c = 0; c < Cols; c++) begin
        wb_q[c] <= to_operand(w_rdata_i[c*8 +: 8], rd_signed_q, rd_zp_q);
      end
    end
  end

  for (genvar r = 0; r < Rows; r++) begin : g_row_we
    assign w_row_we_o[r*2 +: 2] = {wb_valid_q && wb_buf_q && wb_row_q == RowIdxW'(r),
                            wb_valid_q && !wb_buf_q && wb_row_q == RowIdxW'(r)};
  end
  for (genvar c = 0; c < Cols; c++) begin : g_w
    assign w_o[c*OperandW +: OperandW] = wb_q[c];
  end
  assign w_t_o = wb_t_q;

  // ---------------------------------------------------------------- streamer
  // Row i of group g reads input row in_addr + g*in_stride1 + i*in_stride0 (running offsets,
  // no multiplier) and writes accumulator row acc_addr + g*m_rows + i.
  logic [GemmMRowsW-1:0]   i_q;
  logic [GemmMGroupsW-1:0] g_q;
  logic [RowAw-1:0]        in_off_q, grp_off_q, acc_off_q;
  logic                    issue, last_in_group, last;
  row_meta_t               row_q;
  logic [PipeW-1:0]        pipe_q;

  assign issue         = !sq_empty;
  assign last_in_group = (i_q == job.m_rows - 1'b1);
  assign last          = last_in_group && (g_q == job.m_groups - 1'b1);
  assign sq_pop        = issue && last;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      i_q       <= '0;
      g_q       <= '0;
      in_off_q  <= '0;
      grp_off_q <= '0;
      acc_off_q <= '0;
      row_q     <= '0;
      pipe_q    <= '0;
      users_q[0] <= '0;
      users_q[1] <= '0;
      drain_q[0] <= '0;
      drain_q[1] <= '0;
    end else if (clr_i) begin
      i_q       <= '0;
      g_q       <= '0;
      in_off_q  <= '0;
      grp_off_q <= '0;
      acc_off_q <= '0;
      row_q     <= '0;
      pipe_q    <= '0;
      users_q[0] <= '0;
      users_q[1] <= '0;
      drain_q[0] <= '0;
      drain_q[1] <= '0;
    end else begin
      row_q.acc.valid <= issue;
      if (issue) begin
        i_q                  <= last_in_group ? '0 : i_q + 1'b1;
        g_q                  <= last ? '0 : (last_in_group ? g_q + 1'b1 : g_q);
        in_off_q             <= last_in_group ? '0 : in_off_q + job.in_stride0;
        grp_off_q            <= last ? '0 : (last_in_group ? grp_off_q + job.in_stride1 : grp_off_q);
        acc_off_q            <= last ? '0 : acc_off_q + 1'b1;
        row_q.in_addr        <= job.in_addr + grp_off_q + in_off_q;
        row_q.in_zp          <= job.in_zp;
        row_q.in_signed      <= job.in_signed;
        row_q.k_rows         <= job.k_rows;
        row_q.wsel           <= job.wsel;
        if (Fp16 != 0) begin  // else the fp bits keep their reset value: no register
          row_q.fp           <= job.fp;
          row_q.acc.fp       <= job.fp;
        end
        row_q.acc.acc_addr   <= job.acc_addr + acc_off_q;
        row_q.acc.accumulate <= job.accumulate;
        row_q.acc.last       <= last && job.final_step;
        row_q.acc.sig        <= job.sig;
      end
      pipe_q <= issue ? PipeW'(PipeDepth) : (pipe_q != '0 ? pipe_q - 1'b1 : '0);
      for (int unsigned b = 0; b < 2; b++) begin
        logic done_b, add_b;
        done_b = sq_pop && job.wsel == b[0];
        add_b  = start && new_job.wsel == b[0];
        users_q[b] <= users_q[b] + 3'(add_b) - 3'(done_b);
        if (done_b) drain_q[b] <= DrainW'(Cols - 1);
        else if (drain_q[b] != '0) drain_q[b] <= drain_q[b] - 1'b1;
      end
    end
  end

  assign row_o       = row_q;
  assign pipe_en_o   = (pipe_q != '0);
  assign array_row_o = issue;
  assign fp_row_o    = issue && job.fp;  // job.fp is constant 0 without Fp16

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
  assign unused = ^{head};
endmodule
