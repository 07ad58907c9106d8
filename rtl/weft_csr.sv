// Control and status registers on the 12-bit register bus (hw/spec/regs.json): identity,
// configuration read-back, CTRL (enable, soft reset), STATUS, ring registers, IRQ status (W1C)
// and mask, and the 64-bit counters (reading LO latches the counter's HI half).
//
// Bus timing: a request is one cycle with reg_req_i; a write takes effect at the end of that
// cycle; read data is registered and valid with reg_rvalid_o in the next cycle.
module weft_csr
  import weft_pkg::*;
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
  input  logic        clk_i,
  input  logic        rst_ni,
  // register bus
  input  logic        reg_req_i,
  input  logic        reg_we_i,
  input  logic [11:0] reg_addr_i,
  input  logic [31:0] reg_wdata_i,
  output logic        reg_rvalid_o,
  output logic [31:0] reg_rdata_o,
  // control
  output logic        enable_o,
  output logic        soft_rst_o,    // one-cycle pulse after a CTRL write with soft_reset set
  output logic [39:0] ring_base_o,
  output logic [31:0] ring_size_o,
  output logic [31:0] ring_tail_o,
  // status
  input  logic [31:0] ring_head_i,
  input  logic        busy_i,
  input  logic        halted_i,
  input  logic [7:0]  error_i,
  input  logic        irq_done_i,    // a BARRIER with irq completed this cycle
  input  logic        irq_error_i,   // the controller halted this cycle
  input  logic [NumCounters*64-1:0] cnt_i,  // counter i in bits [i*64 +: 64]
  output logic        irq_o
);
  localparam logic [11:0] CounterEnd = RegCounterBase + 12'(8 * NumCounters);

  logic        enable_q, soft_rst_q;
  logic [31:0] ring_base_lo_q, ring_size_q, ring_tail_q;
  logic [7:0]  ring_base_hi_q;
  logic [1:0]  irq_status_q, irq_mask_q;
  logic [31:0] cnt_hi_q [NumCounters];
  logic [31:0] rdata_q;
  logic        rvalid_q;

  logic wr, rd;
  assign wr = reg_req_i && reg_we_i;
  assign rd = reg_req_i && !reg_we_i;

  logic [1:0] irq_set, irq_clear;
  always_comb begin
    irq_set = '0;
    irq_set[RegIrqStatusDoneLsb]  = irq_done_i;
    irq_set[RegIrqStatusErrorLsb] = irq_error_i;
    irq_clear = (wr && reg_addr_i == RegIrqStatus) ? reg_wdata_i[1:0] : 2'b00;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      enable_q       <= 1'b0;
      soft_rst_q     <= 1'b0;
      ring_base_lo_q <= '0;
      ring_base_hi_q <= '0;
      ring_size_q    <= '0;
      ring_tail_q    <= '0;
      irq_status_q   <= '0;
      irq_mask_q     <= '0;
    end else begin
      soft_rst_q <= wr && (reg_addr_i == RegCtrl) && reg_wdata_i[RegCtrlSoftResetLsb];
      // An event in the cycle of a W1C write is not lost: setting wins over clearing.
      irq_status_q <= soft_rst_q ? 2'b00 : ((irq_status_q & ~irq_clear) | irq_set);
      if (soft_rst_q) ring_tail_q <= '0;
      if (wr) begin
        unique case (reg_addr_i)
          RegCtrl:       enable_q       <= reg_wdata_i[RegCtrlEnableLsb];
          RegRingBaseLo: ring_base_lo_q <= reg_wdata_i;
          RegRingBaseHi: ring_base_hi_q <= reg_wdata_i[7:0];
          RegRingSize:   ring_size_q    <= reg_wdata_i;
          RegRingTail:   ring_tail_q    <= reg_wdata_i;
          RegIrqMask:    irq_mask_q     <= reg_wdata_i[1:0];
          default: ;
        endcase
      end
    end
  end

  // The read mux sits behind the request so that it costs nothing on the other cycles.
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      rvalid_q <= 1'b0;
      rdata_q  <= '0;
    end else begin
      rvalid_q <= rd;
      if (rd) begin
        unique case (reg_addr_i)
          RegId:                rdata_q <= IdValue;
          RegVersion:           rdata_q <= VersionValue;
          RegCfgRows:           rdata_q <= 32'(Rows);
          RegCfgCols:           rdata_q <= 32'(Cols);
          RegCfgInSpadRows:     rdata_q <= 32'(InSpadRows);
          RegCfgWSpadRows:      rdata_q <= 32'(WSpadRows);
          RegCfgAccRows:        rdata_q <= 32'(AccRows);
          RegCfgVecSpadRows:    rdata_q <= 32'(VecSpadRows);
          RegCfgParamRows:      rdata_q <= 32'(ParamRows);
          RegCfgBusBytes:       rdata_q <= 32'(BusBytes);
          RegCfgMaxOutstanding: rdata_q <= 32'(MaxOutstanding);
          RegCfgCmdQueueDepth:  rdata_q <= 32'(CmdQueueDepth);
          RegCfgTokenDepth:     rdata_q <= 32'(TokenDepth);
          RegCfgDataflow:       rdata_q <= 32'(Dataflow);
          RegCfgFp16:           rdata_q <= 32'(Fp16);
          RegCtrl:              rdata_q <= 32'(enable_q) << RegCtrlEnableLsb;
          RegStatus:            rdata_q <= (32'(busy_i) << RegStatusBusyLsb)
                                         | (32'(halted_i) << RegStatusHaltedLsb)
                                         | (32'(error_i) << RegStatusErrorLsb);
          RegRingBaseLo:        rdata_q <= ring_base_lo_q;
          RegRingBaseHi:        rdata_q <= 32'(ring_base_hi_q);
          RegRingSize:          rdata_q <= ring_size_q;
          RegRingHead:          rdata_q <= ring_head_i;
          RegRingTail:          rdata_q <= ring_tail_q;
          RegIrqStatus:         rdata_q <= 32'(irq_status_q);
          RegIrqMask:           rdata_q <= 32'(irq_mask_q);
          default: begin
            if (reg_addr_i >= RegCounterBase && reg_addr_i < CounterEnd && reg_addr_i[1:0] == 2'b00) begin
              rdata_q <= reg_addr_i[2] ? cnt_hi_q[cnt_index(reg_addr_i[11:3])]
                                       : cnt_i[cnt_index(reg_addr_i[11:3])*64 +: 32];
            end else begin
              rdata_q <= '0;
            end
          end
        endcase
      end
    end
  end

  // Reading a counter's LO half latches its HI half for the following HI read.
  always_ff @(posedge clk_i) begin
    if (rd && reg_addr_i >= RegCounterBase && reg_addr_i < CounterEnd && reg_addr_i[2:0] == 3'b000) begin
      cnt_hi_q[cnt_index(reg_addr_i[11:3])] <= cnt_i[cnt_index(reg_addr_i[11:3])*64 + 32 +: 32];
    end
  end

  // Counter index of a counter register address (bits 11:3; bit 2 selects the half).
  function automatic int unsigned cnt_index(logic [8:0] dword);
    logic [8:0] idx;
    idx = dword - RegCounterBase[11:3];
    cnt_index = 32'(idx);
  endfunction

  assign enable_o    = enable_q;
  assign soft_rst_o  = soft_rst_q;
  assign ring_base_o = {ring_base_hi_q, ring_base_lo_q};
  assign ring_size_o = ring_size_q;
  assign ring_tail_o = ring_tail_q;
  assign irq_o       = |(irq_status_q & irq_mask_q);
  assign reg_rvalid_o = rvalid_q;
  assign reg_rdata_o  = rdata_q;
endmodule
