// The vector unit's lookup table: LutEntries int32 entries, written a LOAD row (Cols entries)
// at a time, read by every lane at once with its own index (combinational, from registers:
// a small table that each lane addresses independently is cheaper as flops than as a RAM with
// Cols read ports). Entry e lives in row e / Cols, lane e % Cols (hw/spec/isa.json mem.lut).
module weft_vec_lut
  import weft_pkg::*;
  import weft_rtl_pkg::*;
#(
  parameter int unsigned Cols = DefaultCols
) (
  input  logic               clk_i,
  input  logic               we_i,
  input  logic [RowAw-1:0]   waddr_i,
  input  logic [Cols*32-1:0] wdata_i,
  input  logic [Cols*8-1:0]  idx_i,   // lane l in bits [l*8 +: 8]
  output logic [Cols*32-1:0] data_o   // lane l in bits [l*32 +: 32]
);
  localparam int unsigned LutRows = (LutEntries + Cols - 1) / Cols;
  localparam int unsigned Aw = (LutRows > 1) ? $clog2(LutRows) : 1;

  logic [Cols*32-1:0] row_q [LutRows];

  always_ff @(posedge clk_i) begin
    if (we_i) row_q[waddr_i[Aw-1:0]] <= wdata_i;
  end

  for (genvar l = 0; l < Cols; l++) begin : g_read
    logic [Cols*32-1:0] row;
    /* verilator lint_off WIDTH */
    assign row       = row_q[Aw'(32'(idx_i[l*8 +: 8]) / Cols)];
    assign data_o[l*32 +: 32] = row[(32'(idx_i[l*8 +: 8]) % Cols) * 32 +: 32];
    /* verilator lint_on WIDTH */
  end

  logic unused;
  assign unused = ^{waddr_i};
endmodule
