// Input scratchpad and array feeder. The scratchpad is Rows byte-wide banks (bank r holds
// byte r of every row), so each array lane reads its own byte with its own address: the row
// descriptor travels down the lanes one lane a cycle, which produces the systolic skew without
// a triangle of data registers. Lane r registers its operand (byte minus zero point, zero for
// lanes at or past k_rows) one cycle after the descriptor reaches it.
//
// Timing: a row issued at edge s (row_i set) reads lane r at edge s+r+1 (x_o[r] valid from
// then); acc_o carries its write-back descriptor from edge s+Rows-1.
// Output-stationary (Dataflow OS): a row issued at edge s reads every lane at edge s+1, for the
// feeder of one array row (weft_array_os); the write-back descriptors come from the drain
// sequencer of weft_compute_os instead, and acc_o and sel_o are zero.
// Fp16 (WS only): fp_o marks lane r's operand as a byte of a binary16 value (a GEMM fp16 row,
// lane below k_rows), skewed like sel_o; zero without Fp16.
//
// Writes: a whole row (byte r to bank r), or a packed piece from the load unit: wr_nbytes_i
// bytes from byte wr_off_i of row wr_addr_i on, the bytes past the row's end going to the next
// row. Each bank writes at most one byte a cycle at its own address, so a piece of up to Rows
// bytes lands in one cycle however it straddles the two rows.
module weft_in_spad
  import weft_pkg::*;
  import weft_rtl_pkg::*;
#(
  parameter int unsigned Rows       = DefaultRows,
  parameter int unsigned InSpadRows = DefaultInSpadRows,
  parameter int unsigned Dataflow   = DefaultDataflow,
  parameter int unsigned Fp16       = DefaultFp16
) (
  input  logic              clk_i,
  input  logic              rst_ni,
  input  logic              clr_i,
  input  logic              en_i,
  // row writes from the load unit
  input  logic              wr_en_i,
  input  logic [RowAw-1:0]  wr_addr_i,
  input  logic [Rows*8-1:0] wr_data_i,
  input  logic              wr_pack_i,
  input  logic [7:0]        wr_off_i,     // packed: below Rows
  input  logic [7:0]        wr_nbytes_i,  // packed: at most Rows
  // rows entering the array
  input  row_meta_t         row_i,
  output logic [Rows*OperandW-1:0] x_o,  // lane r in bits [r*OperandW +: OperandW]
  output logic [Rows-1:0]   sel_o,
  output logic [Rows-1:0]   fp_o,
  output acc_meta_t         acc_o
);
  localparam int unsigned Aw = $clog2(InSpadRows);

  logic [7:0] bank_q [Rows][InSpadRows];
  operand_t   x_q [Rows];

  for (genvar r = 0; r < Rows; r++) begin : g_write
    // Bank r takes byte rel of a packed piece, in the next row when r is before the offset.
    logic [7:0]       rel;
    logic             we;
    /* verilator lint_off UNUSEDSIGNAL */
    logic [RowAw-1:0] addr;  // the bits past Aw are not used
    /* verilator lint_on UNUSEDSIGNAL */
    logic [7:0]       data;
    assign rel  = (8'(r) >= wr_off_i) ? 8'(r) - wr_off_i : 8'(r) + 8'(Rows) - wr_off_i;
    assign we   = wr_en_i && (!wr_pack_i || rel < wr_nbytes_i);
    assign addr = (wr_pack_i && 8'(r) < wr_off_i) ? wr_addr_i + 1'b1 : wr_addr_i;
    assign data = wr_pack_i ? wr_data_i[32'(rel[6:0]) * 8 +: 8] : wr_data_i[r*8 +: 8];
    always_ff @(posedge clk_i) begin
      if (we) bank_q[r][addr[Aw-1:0]] <= data;
    end
  end

  if (Dataflow == DataflowOS) begin : g_os
    // Every lane reads the row at once; a row without a pixel feeds zeros.
    /* verilator lint_off UNUSEDSIGNAL */
    logic [RowAw-1:0] addr;  // row_i.in_addr; the bits past Aw are not used
    /* verilator lint_on UNUSEDSIGNAL */
    assign addr = row_i.in_addr;
    for (genvar r = 0; r < Rows; r++) begin : g_read
      always_ff @(posedge clk_i) begin
        if (en_i) begin
          x_q[r] <= row_i.acc.valid
                    ? to_operand(bank_q[r][addr[Aw-1:0]], row_i.in_signed, row_i.in_zp) : '0;
        end
      end
      assign x_o[r*OperandW +: OperandW] = x_q[r];
      assign sel_o[r] = 1'b0;
    end
    assign fp_o  = '0;
    assign acc_o = '0;
    logic unused_os;
    assign unused_os = ^{rst_ni, clr_i, row_i.k_rows, row_i.wsel, row_i.fp, row_i.acc.acc_addr,
                         row_i.acc.accumulate, row_i.acc.last, row_i.acc.sig, row_i.acc.fp};
  end else begin : g_ws
    logic       sel_q [Rows];
    // The row at lane r (lane 0: row_i), one array per row_meta_t field the lanes read (yosys
    // 0.23 cannot select a member of an array element; rtl/README.md). lane_acc_q carries the
    // write-back descriptor to the last lane; its valid bit is lane_valid_q.
    logic                  lane_valid_q  [Rows];
    logic [RowAw-1:0]      lane_addr_q   [Rows];
    logic [8:0]            lane_zp_q     [Rows];
    logic                  lane_signed_q [Rows];
    logic [GemmKRowsW-1:0] lane_k_q      [Rows];
    logic                  lane_wsel_q   [Rows];
    acc_meta_t             lane_acc_q    [Rows];
    assign lane_valid_q[0]  = row_i.acc.valid;
    assign lane_addr_q[0]   = row_i.in_addr;
    assign lane_zp_q[0]     = row_i.in_zp;
    assign lane_signed_q[0] = row_i.in_signed;
    assign lane_k_q[0]      = row_i.k_rows;
    assign lane_wsel_q[0]   = row_i.wsel;
    assign lane_acc_q[0]    = row_i.acc;
    for (genvar r = 1; r < Rows; r++) begin : g_lane
      always_ff @(posedge clk_i or negedge rst_ni) begin
        if (!rst_ni) begin
          lane_valid_q[r]  <= 1'b0;
          lane_addr_q[r]   <= '0;
          lane_zp_q[r]     <= '0;
          lane_signed_q[r] <= 1'b0;
          lane_k_q[r]      <= '0;
          lane_wsel_q[r]   <= 1'b0;
          lane_acc_q[r]    <= '0;
        end else if (clr_i) begin
          lane_valid_q[r]  <= 1'b0;
        end else if (en_i) begin
          lane_valid_q[r]  <= lane_valid_q[r-1];
          lane_addr_q[r]   <= lane_addr_q[r-1];
          lane_zp_q[r]     <= lane_zp_q[r-1];
          lane_signed_q[r] <= lane_signed_q[r-1];
          lane_k_q[r]      <= lane_k_q[r-1];
          lane_wsel_q[r]   <= lane_wsel_q[r-1];
          lane_acc_q[r]    <= lane_acc_q[r-1];
        end
      end
    end

    for (genvar r = 0; r < Rows; r++) begin : g_read
      /* verilator lint_off UNUSEDSIGNAL */
      logic [RowAw-1:0] addr;  // lane_addr_q[r]; the bits past Aw are not used
      /* verilator lint_on UNUSEDSIGNAL */
      assign addr = lane_addr_q[r];
      always_ff @(posedge clk_i) begin
        if (en_i) begin
          x_q[r]   <= (lane_valid_q[r] && 32'(lane_k_q[r]) > r)
                      ? to_operand(bank_q[r][addr[Aw-1:0]], lane_signed_q[r], lane_zp_q[r])
                      : '0;
          sel_q[r] <= lane_wsel_q[r];
        end
      end
      assign x_o[r*OperandW +: OperandW] = x_q[r];
      assign sel_o[r] = sel_q[r];
    end

    if (Fp16 != 0) begin : g_fp
      // Lane r's fp bit: the row's, for lanes below k_rows (the feeder zeroes the others, which
      // then add integer 0: a pair past k_rows passes the partial sum unchanged).
      logic lane_fp_q [Rows];
      logic fp_q [Rows];
      assign lane_fp_q[0] = row_i.fp;
      for (genvar r = 1; r < Rows; r++) begin : g_lane
        always_ff @(posedge clk_i) begin
          if (en_i) lane_fp_q[r] <= lane_fp_q[r-1];
        end
      end
      for (genvar r = 0; r < Rows; r++) begin : g_read
        always_ff @(posedge clk_i) begin
          if (en_i) fp_q[r] <= lane_valid_q[r] && lane_fp_q[r] && 32'(lane_k_q[r]) > r;
        end
        assign fp_o[r] = fp_q[r];
      end
    end else begin : g_int
      assign fp_o = '0;
      logic unused_fp;
      assign unused_fp = ^{row_i.fp};
    end

    always_comb begin
      acc_o       = lane_acc_q[Rows-1];
      acc_o.valid = lane_valid_q[Rows-1];
    end
  end

  logic unused;
  assign unused = ^{wr_addr_i};
endmodule
