// Input scratchpad and array feeder. The scratchpad is Rows byte-wide banks (bank r holds
// byte r of every row), so each array lane reads its own byte with its own address: the row
// descriptor travels down the lanes one lane a cycle, which produces the systolic skew without
// a triangle of data registers. Lane r registers its operand (byte minus zero point, zero for
// lanes at or past k_rows) one cycle after the descriptor reaches it.
//
// Timing: a row issued at edge s (row_i set) reads lane r at edge s+r+1 (x_o[r] valid from
// then); acc_o carries its write-back descriptor from edge s+Rows-1.
module weft_in_spad
  import weft_pkg::*;
  import weft_rtl_pkg::*;
#(
  parameter int unsigned Rows       = DefaultRows,
  parameter int unsigned InSpadRows = DefaultInSpadRows
) (
  input  logic              clk_i,
  input  logic              rst_ni,
  input  logic              clr_i,
  input  logic              en_i,
  // row writes from the load unit
  input  logic              wr_en_i,
  input  logic [RowAw-1:0]  wr_addr_i,
  input  logic [Rows*8-1:0] wr_data_i,
  // rows entering the array
  input  row_meta_t         row_i,
  output operand_t          x_o [Rows],
  output logic              sel_o [Rows],
  output acc_meta_t         acc_o
);
  localparam int unsigned Aw = $clog2(InSpadRows);

  logic [7:0] bank_q [Rows][InSpadRows];
  row_meta_t  lane_q [Rows];  // lane_q[0] is row_i
  operand_t   x_q [Rows];
  logic       sel_q [Rows];

  always_ff @(posedge clk_i) begin
    if (wr_en_i) begin
      for (int unsigned r = 0; r < Rows; r++) bank_q[r][wr_addr_i[Aw-1:0]] <= wr_data_i[r*8 +: 8];
    end
  end

  assign lane_q[0] = row_i;
  for (genvar r = 1; r < Rows; r++) begin : g_lane
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni)    lane_q[r] <= '0;
      else if (clr_i) lane_q[r].acc.valid <= 1'b0;
      else if (en_i)  lane_q[r] <= lane_q[r-1];
    end
  end

  for (genvar r = 0; r < Rows; r++) begin : g_read
    always_ff @(posedge clk_i) begin
      if (en_i) begin
        x_q[r]   <= (lane_q[r].acc.valid && 32'(lane_q[r].k_rows) > r)
                    ? to_operand(bank_q[r][lane_q[r].in_addr[Aw-1:0]], lane_q[r].in_signed, lane_q[r].in_zp)
                    : operand_t'(0);
        sel_q[r] <= lane_q[r].wsel;
      end
    end
  end

  assign x_o   = x_q;
  assign sel_o = sel_q;
  assign acc_o = lane_q[Rows-1].acc;

  logic unused;
  assign unused = ^{wr_addr_i};
endmodule
