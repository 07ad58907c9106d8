// Placeholder top with the real port list: answers ID/VERSION/CFG reads only.
// Replaced by the accelerator RTL.
module weft_top
  import weft_pkg::*;
#(
  parameter int unsigned Rows           = DefaultRows,
  parameter int unsigned Cols           = DefaultCols,
  parameter int unsigned InSpadRows     = DefaultInSpadRows,
  parameter int unsigned WSpadRows      = DefaultWSpadRows,
  parameter int unsigned AccRows        = DefaultAccRows,
  parameter int unsigned ParamRows      = DefaultParamRows,
  parameter int unsigned BusBytes       = DefaultBusBytes,
  parameter int unsigned MaxOutstanding = DefaultMaxOutstanding,
  parameter int unsigned CmdQueueDepth  = DefaultCmdQueueDepth,
  parameter int unsigned TokenDepth     = DefaultTokenDepth
) (
  input  logic                  clk_i,
  input  logic                  rst_ni,
  input  logic                  reg_req_i,
  input  logic                  reg_we_i,
  input  logic [11:0]           reg_addr_i,
  input  logic [31:0]           reg_wdata_i,
  output logic                  reg_rvalid_o,
  output logic [31:0]           reg_rdata_o,
  output logic                  mem_rd_req_valid_o,
  input  logic                  mem_rd_req_ready_i,
  output logic [39:0]           mem_rd_req_addr_o,
  output logic [11:0]           mem_rd_req_bytes_o,
  input  logic                  mem_rd_data_valid_i,
  input  logic [BusBytes*8-1:0] mem_rd_data_i,
  input  logic                  mem_rd_data_last_i,
  output logic                  mem_wr_req_valid_o,
  input  logic                  mem_wr_req_ready_i,
  output logic [39:0]           mem_wr_req_addr_o,
  output logic [11:0]           mem_wr_req_bytes_o,
  output logic                  mem_wr_data_valid_o,
  input  logic                  mem_wr_data_ready_i,
  output logic [BusBytes*8-1:0] mem_wr_data_o,
  output logic                  mem_wr_data_last_o,
  input  logic                  mem_wr_ack_i,
  output logic                  irq_o
);
  logic [31:0] rdata_d, rdata_q;
  logic        rvalid_q;

  always_comb begin
    unique case (reg_addr_i)
      RegId:          rdata_d = IdValue;
      RegVersion:     rdata_d = VersionValue;
      RegCfgRows:     rdata_d = Rows;
      RegCfgCols:     rdata_d = Cols;
      default:        rdata_d = '0;
    endcase
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      rdata_q  <= '0;
      rvalid_q <= 1'b0;
    end else begin
      rdata_q  <= rdata_d;
      rvalid_q <= reg_req_i && !reg_we_i;
    end
  end

  assign reg_rvalid_o        = rvalid_q;
  assign reg_rdata_o         = rdata_q;
  assign mem_rd_req_valid_o  = 1'b0;
  assign mem_rd_req_addr_o   = '0;
  assign mem_rd_req_bytes_o  = '0;
  assign mem_wr_req_valid_o  = 1'b0;
  assign mem_wr_req_addr_o   = '0;
  assign mem_wr_req_bytes_o  = '0;
  assign mem_wr_data_valid_o = 1'b0;
  assign mem_wr_data_o       = '0;
  assign mem_wr_data_last_o  = 1'b0;
  assign irq_o               = 1'b0;

  logic unused;
  assign unused = ^{reg_wdata_i, mem_rd_req_ready_i, mem_rd_data_valid_i, mem_rd_data_i,
                    mem_rd_data_last_i, mem_wr_req_ready_i, mem_wr_data_ready_i, mem_wr_ack_i,
                    InSpadRows, WSpadRows, AccRows, ParamRows, MaxOutstanding, CmdQueueDepth,
                    TokenDepth};
endmodule
