// Load unit: executes LOAD commands in order. The front end walks the 3-level pattern and
// issues DRAM read requests, one per cycle at most (when the port grants): one per destination
// row, except that consecutive rows of one i0 run are merged into one request of up to
// LoadMaxReqBytes when they are contiguous (stride0 == row_bytes), full (row_bytes == the
// destination row size) and whole beats long. It starts the next command in the cycle the last
// request of the current one is accepted. The back end assembles each row from its beats
// (which return in request order), zero-fills the bytes past row_bytes and writes the row one
// cycle after its last beat (a spread LOAD's rows of one request pack_stride rows apart); a command completes with the write of its last row. A packed row
// (pack, input scratchpad only) is not assembled: each beat is written one cycle after it
// arrives, at the byte it belongs to, and may straddle two scratchpad rows (weft_in_spad writes
// each byte bank at its own row), so the last write still comes one cycle after the last beat.
module weft_load
  import weft_pkg::*;
  import weft_rtl_pkg::*;
#(
  parameter int unsigned Rows     = DefaultRows,
  parameter int unsigned Cols     = DefaultCols,
  parameter int unsigned BusBytes = DefaultBusBytes,
  localparam int unsigned RowMaxBytes = (Rows > 9 * Cols) ? Rows : 9 * Cols
) (
  input  logic                     clk_i,
  input  logic                     rst_ni,
  input  logic                     clr_i,
  // command queue
  input  logic                     cmd_valid_i,
  input  cmd_t                     cmd_i,
  output logic                     cmd_pop_o,
  // tokens (weft_pkg Tok<Unit>Wait0/1, Signal0/1): the head's wait queues and signal queues
  input  logic [1:0]                wait_avail_i,
  input  logic [1:0]                sig_space_i,
  output logic [1:0]                wait_pop_o,
  output logic [1:0]                sig_rsv_o,
  output logic [1:0]                sig_push_o,
  // read requests
  output logic                     req_valid_o,
  output logic [DramAw-1:0]        req_addr_o,
  output logic [ReqBytesW-1:0]     req_bytes_o,
  output rd_tag_t                  req_tag_o,
  input  logic                     req_accept_i,
  // read data
  input  logic                     beat_valid_i,
  input  logic [BusBytes*8-1:0]    beat_data_i,
  input  logic                     beat_last_i,
  input  rd_tag_t                  beat_tag_i,
  // row writes to the scratchpads and the parameter memory
  output logic                     wr_valid_o,
  output mem_e                     wr_dst_o,
  output logic [RowAw-1:0]         wr_addr_o,
  output logic [RowMaxBytes*8-1:0] wr_data_o,
  output logic                     wr_pack_o,    // a packed beat: wr_nbytes_o bytes from byte
  output logic [7:0]               wr_off_o,     // wr_off_o of row wr_addr_o on
  output logic [7:0]               wr_nbytes_o,
  // status
  output logic                     active_o,
  output logic                     stall_token_o,
  output logic                     stall_dram_o,
  output logic                     retire_o,
  output logic                     idle_o
);
  // ---------------------------------------------------------------- front end
  load_cmd_t head;
  assign head = cmd_i;

  // Rows per merged request for each destination, and beats per destination row.
  localparam int unsigned InRowBytes    = Rows;
  localparam int unsigned WRowBytes     = Cols;
  localparam int unsigned ParamRowBytes = 9 * Cols;
  localparam int unsigned LutRowBytes   = 4 * Cols;
  localparam int unsigned MaxRowsIn     = max_rows(InRowBytes);
  localparam int unsigned MaxRowsW      = max_rows(WRowBytes);
  localparam int unsigned MaxRowsParam  = max_rows(ParamRowBytes);
  localparam int unsigned MaxRowsLut    = max_rows(LutRowBytes);

  // Rows of row_size bytes in one merged request: 1 unless rows are whole beats.
  function automatic int unsigned max_rows(int unsigned row_size);
    if (row_size % BusBytes != 0 || row_size > LoadMaxReqBytes) max_rows = 1;
    else max_rows = LoadMaxReqBytes / row_size;
  endfunction

  logic                     busy_q, merge_q, pack_q, spread_q;
  logic [RowAw-1:0]         run_spad_q;  // spread: the row of the current i0 run's first row
  logic [LoadPackByteW-1:0] pack_byte_q;
  logic [LoadPackStrideW-1:0] pack_stride_q;
  logic [1:0]               sig_q;
  mem_e                     dst_q;
  logic [LoadRowBytesW-1:0] row_bytes_q, row_beats_q;
  logic [RowsPerReqW-1:0]   max_rows_q;
  logic [RowAw-1:0]         spad_q;
  logic [LoadCount0W-1:0]   i0_q, i1_q, i2_q, c0_q, c1_q, c2_q;
  logic [DramAw-1:0]        addr0_q, addr1_q, addr2_q;
  logic [LoadStride0W-1:0]  stride0_q;
  logic [LoadStride1W-1:0]  stride1_q;
  logic [LoadStride2W-1:0]  stride2_q;

  // Rows in this cycle's request: the rest of the i0 run, at most max_rows_q.
  logic [LoadCount0W-1:0] run_left;
  logic [RowsPerReqW-1:0] nrows;
  assign run_left = c0_q - i0_q;
  assign nrows    = (!merge_q) ? RowsPerReqW'(1)
                  : (32'(run_left) < 32'(max_rows_q)) ? RowsPerReqW'(run_left) : max_rows_q;

  logic last0, last1, last2, last_row, tok_ok, start;
  assign last0    = (32'(i0_q) + 32'(nrows) == 32'(c0_q));
  assign last1    = (i1_q == c1_q - 1'b1);
  assign last2    = (i2_q == c2_q - 1'b1);
  assign last_row = last0 && last1 && last2;
  assign tok_ok   = tokens_ok(cmd_i, wait_avail_i, sig_space_i);
  assign start    = cmd_valid_i && tok_ok && (!busy_q || (req_accept_i && last_row));

  assign cmd_pop_o  = start;
  assign wait_pop_o = {start && head.wait1, start && head.wait0};
  assign sig_rsv_o  = {start && head.signal1, start && head.signal0};

  assign req_valid_o = busy_q;
  assign req_addr_o  = addr0_q;
  assign req_bytes_o = ReqBytesW'(32'(nrows) * 32'(row_bytes_q));
  always_comb begin
    req_tag_o           = '0;
    req_tag_o.dst       = dst_q;
    req_tag_o.spad_addr = spad_q;
    req_tag_o.row_bytes = row_bytes_q;
    req_tag_o.row_beats = row_beats_q;
    req_tag_o.row_step  = spread_q ? RowAw'(pack_stride_q) : RowAw'(1);
    req_tag_o.pack      = pack_q;
    req_tag_o.pack_byte = pack_byte_q;
    req_tag_o.last      = last_row;
    req_tag_o.signal    = sig_q;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      busy_q <= 1'b0;
    end else if (clr_i) begin
      busy_q <= 1'b0;
    end else if (start) begin
      busy_q <= 1'b1;
    end else if (req_accept_i && last_row) begin
      busy_q <= 1'b0;
    end
  end

  // Pattern registers: loaded at start, advanced per accepted request. No reset needed.
  always_ff @(posedge clk_i) begin
    if (start) begin
      logic [LoadRowBytesW-1:0] row_size;
      logic [RowsPerReqW-1:0]   rows_max;
      unique case (head.dst)
        MemIn:    begin row_size = LoadRowBytesW'(InRowBytes);    rows_max = RowsPerReqW'(MaxRowsIn);    end
        MemW,
        MemVec:   begin row_size = LoadRowBytesW'(WRowBytes);     rows_max = RowsPerReqW'(MaxRowsW);     end
        MemParam: begin row_size = LoadRowBytesW'(ParamRowBytes); rows_max = RowsPerReqW'(MaxRowsParam); end
        default:  begin row_size = LoadRowBytesW'(LutRowBytes);   rows_max = RowsPerReqW'(MaxRowsLut);   end
      endcase
      merge_q     <= !head.pack && (head.row_bytes == row_size)
                     && (32'(head.stride0) == 32'(head.row_bytes)) && (rows_max > RowsPerReqW'(1));
      pack_q        <= head.pack;
      spread_q      <= head.spread;
      run_spad_q    <= head.spad_addr;
      pack_byte_q   <= head.pack_byte;
      pack_stride_q <= head.pack_stride;
      max_rows_q  <= rows_max;
      row_beats_q <= LoadRowBytesW'((32'(head.row_bytes) + BusBytes - 1) / BusBytes);
      dst_q       <= head.dst;
      row_bytes_q <= head.row_bytes;
      spad_q      <= head.spad_addr;
      sig_q       <= {head.signal1, head.signal0};
      c0_q        <= head.count0;
      c1_q        <= head.count1;
      c2_q        <= head.count2;
      stride0_q   <= head.stride0;
      stride1_q   <= head.stride1;
      stride2_q   <= head.stride2;
      i0_q        <= '0;
      i1_q        <= '0;
      i2_q        <= '0;
      addr0_q     <= head.dram_addr;
      addr1_q     <= head.dram_addr;
      addr2_q     <= head.dram_addr;
    end else if (req_accept_i) begin
      // Spread: row (i2,i1,i0) at spad_addr + i0*pack_stride + (i2*count1 + i1).
      if (pack_q)               spad_q <= spad_q + RowAw'(pack_stride_q);
      else if (!spread_q)       spad_q <= spad_q + RowAw'(nrows);
      else if (!last0)          spad_q <= spad_q + RowAw'(32'(nrows) * 32'(pack_stride_q));
      else begin
        spad_q     <= run_spad_q + 1'b1;
        run_spad_q <= run_spad_q + 1'b1;
      end
      if (!last0) begin
        i0_q    <= i0_q + LoadCount0W'(nrows);
        addr0_q <= addr0_q + DramAw'(32'(nrows) * 32'(stride0_q));
      end else if (!last1) begin
        i0_q    <= '0;
        i1_q    <= i1_q + 1'b1;
        addr1_q <= addr1_q + DramAw'(stride1_q);
        addr0_q <= addr1_q + DramAw'(stride1_q);
      end else begin
        i0_q    <= '0;
        i1_q    <= '0;
        i2_q    <= i2_q + 1'b1;
        addr2_q <= addr2_q + DramAw'(stride2_q);
        addr1_q <= addr2_q + DramAw'(stride2_q);
        addr0_q <= addr2_q + DramAw'(stride2_q);
      end
    end
  end

  // ---------------------------------------------------------------- back end
  localparam int unsigned AsmBeats = (RowMaxBytes + BusBytes - 1) / BusBytes;
  localparam int unsigned AsmBytes = AsmBeats * BusBytes;
  localparam int unsigned PackMaxBeats = (LoadMaxReqBytes + BusBytes - 1) / BusBytes;
  localparam int unsigned MaxBeats = (AsmBeats > PackMaxBeats) ? AsmBeats : PackMaxBeats;
  localparam int unsigned BeatW = (MaxBeats > 1) ? $clog2(MaxBeats) : 1;
  // Bytes of a packed beat that can reach the scratchpad: a beat fits in a row (isa.json).
  localparam int unsigned PackBytes = (BusBytes < Rows) ? BusBytes : Rows;

  logic [AsmBytes*8-1:0] asm_q;
  logic [BeatW-1:0]      beat_q;
  logic                  wr_valid_q, done_q;
  logic [1:0]            done_sig_q;
  mem_e                  wr_dst_q;
  logic [RowAw-1:0]      wr_addr_q;
  logic [RowMaxBytes*8-1:0] wr_data_q;
  logic                  wr_pack_q;
  logic [7:0]            wr_off_q, wr_nbytes_q;
  // Packed rows: where the next beat of the current row goes (row, byte in the row).
  logic [RowAw-1:0]      pk_row_q;
  logic [7:0]            pk_off_q;
  logic [RowAw-1:0]      pk_row;
  logic [7:0]            pk_off, pk_next_off;
  logic [LoadRowBytesW-1:0] pk_left;
  assign pk_row      = (beat_q == '0) ? beat_tag_i.spad_addr : pk_row_q;
  assign pk_off      = (beat_q == '0) ? 8'(beat_tag_i.pack_byte) : pk_off_q;
  assign pk_next_off = pk_off + 8'(BusBytes);
  assign pk_left     = beat_tag_i.row_bytes - LoadRowBytesW'(32'(beat_q) * BusBytes);

  // The beat's bytes that belong to the row; bytes past row_bytes are zero-filled.
  function automatic logic [BusBytes*8-1:0] beat_bytes(logic [BusBytes*8-1:0] data,
                                                      logic [BeatW-1:0] beat,
                                                      logic [LoadRowBytesW-1:0] row_bytes);
    logic [BusBytes*8-1:0] out;
    for (int unsigned j = 0; j < BusBytes; j++) begin
      out[j*8 +: 8] = (32'(beat) * BusBytes + j < 32'(row_bytes)) ? data[j*8 +: 8] : 8'h00;
    end
    beat_bytes = out;
  endfunction

  // A row ends with its row_beats-th beat; a merged request carries several rows.
  logic row_end;
  logic [RowAw-1:0] row_in_req_q;
  assign row_end = beat_valid_i && (beat_last_i || 32'(beat_q) == 32'(beat_tag_i.row_beats) - 1);

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      beat_q       <= '0;
      row_in_req_q <= '0;
      wr_valid_q   <= 1'b0;
    end else if (clr_i) begin
      beat_q       <= '0;
      row_in_req_q <= '0;
      wr_valid_q   <= 1'b0;
    end else begin
      wr_valid_q <= (beat_valid_i && beat_tag_i.pack) || row_end;
      if (beat_valid_i) beat_q <= row_end ? '0 : beat_q + 1'b1;
      if (row_end) row_in_req_q <= beat_last_i ? '0 : row_in_req_q + 1'b1;
    end
  end

  always_ff @(posedge clk_i) begin
    if (beat_valid_i) begin
      logic [AsmBytes*8-1:0] row;
      row = (beat_q == '0) ? '0 : asm_q;
      if (32'(beat_q) < AsmBeats) begin
        row[32'(beat_q) * BusBytes * 8 +: BusBytes * 8] = beat_bytes(beat_data_i, beat_q, beat_tag_i.row_bytes);
      end
      asm_q <= row;
      wr_pack_q <= beat_tag_i.pack;
      if (beat_tag_i.pack) begin
        wr_data_q[PackBytes*8-1:0] <= beat_data_i[PackBytes*8-1:0];
        wr_addr_q   <= pk_row;
        wr_off_q    <= pk_off;
        wr_nbytes_q <= (32'(pk_left) < BusBytes) ? 8'(pk_left) : 8'(BusBytes);
        pk_row_q    <= (32'(pk_next_off) >= Rows) ? pk_row + 1'b1 : pk_row;
        pk_off_q    <= (32'(pk_next_off) >= Rows) ? pk_next_off - 8'(Rows) : pk_next_off;
        done_q      <= beat_tag_i.last && beat_last_i;
        done_sig_q  <= beat_tag_i.signal;
        wr_dst_q    <= beat_tag_i.dst;
      end else if (row_end) begin
        wr_data_q  <= row[RowMaxBytes*8-1:0];
        wr_dst_q   <= beat_tag_i.dst;
        wr_addr_q  <= beat_tag_i.spad_addr + RowAw'(32'(row_in_req_q) * 32'(beat_tag_i.row_step));
        done_q     <= beat_tag_i.last && beat_last_i;
        done_sig_q <= beat_tag_i.signal;
      end
    end
  end

  assign wr_valid_o = wr_valid_q;
  assign wr_dst_o   = wr_dst_q;
  assign wr_addr_o  = wr_addr_q;
  assign wr_data_o  = wr_data_q;
  assign wr_pack_o  = wr_pack_q;
  assign wr_off_o   = wr_off_q;
  assign wr_nbytes_o = wr_nbytes_q;

  // ---------------------------------------------------------------- completion and status
  logic complete;
  logic [RowAw:0] inflight_q;  // commands started and not complete
  assign complete = wr_valid_q && done_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni)     inflight_q <= '0;
    else if (clr_i)  inflight_q <= '0;
    else             inflight_q <= inflight_q + (RowAw+1)'(start) - (RowAw+1)'(complete);
  end

  assign sig_push_o    = complete ? done_sig_q : 2'b00;
  assign retire_o      = complete;
  assign active_o      = (inflight_q != '0);
  assign idle_o        = (inflight_q == '0);
  assign stall_token_o = cmd_valid_i && !tok_ok;
  assign stall_dram_o  = busy_q && !req_accept_i;

  logic unused;
  assign unused = ^{head, beat_tag_i.is_fetch, beat_tag_i.fetch_odd};
endmodule
