// LAYER_NORM's reciprocal square root (hw/spec/isa.json; bit-exact with
// hw/include/weft/hw/vector_ops.h layerNormScale): from a row's sums S1 of x and S2 of x*x over
// N elements, V = N*S2 - S1^2 + eps (modulo 2^64) normalized by an even shift 2k, its integer
// square root s a bit a cycle (restoring, 32 steps) and r = floor(2^61 / s) a bit a cycle
// (restoring division, 31 steps: the quotient is at most 2^30). One step to form V, so r and
// the output shift 61 - k - out_shift are registered LayerNormRsqrtCycles (64) cycles after
// start_i; weft_vector issues the output pass so that its first product comes after that.
//
// One per vector unit: every lane scales by the same r (the statistics span the lanes).
module weft_vec_rsqrt (
  input  logic        clk_i,
  input  logic        start_i,      // sums valid: form V and begin
  input  logic [31:0] sum_i,        // S1 (wrapping int32)
  input  logic [31:0] squares_i,    // S2
  input  logic [15:0] n_i,          // N, 1 .. 32768
  input  logic [47:0] eps_i,
  input  logic [4:0]  out_shift_i,
  output logic [31:0] recip_o,      // r, in (2^29, 2^30]; 0 when V = 0
  output logic [5:0]  shift_o       // 61 - k - out_shift
);
  localparam int unsigned SqrtSteps = 32;
  localparam int unsigned DivSteps  = 31;

  logic [63:0] a_q;       // the normalized V, consumed two bits a square-root step
  logic [34:0] rem_q;     // square root: the remainder (below 2^33); division: the partial remainder (below 2^33)
  logic [31:0] root_q;    // square root so far, then the divisor s
  logic [31:0] quot_q;    // the quotient so far
  logic [6:0]  step_q;    // 0 idle; 1 .. 32 square root; 33 .. 63 division
  logic        zero_q;    // V = 0

  // Leading zeros of V, halved: the normalizing shift k.
  function automatic logic [4:0] half_clz64(logic [63:0] v);
    /* verilator lint_off UNUSEDSIGNAL */
    logic [6:0] z;  // 0 .. 64; V = 0 gives k = 0
    /* verilator lint_on UNUSEDSIGNAL */
    z = 7'd64;
    for (int i = 0; i < 64; i++) begin
      if (v[i]) z = 7'(63 - i);
    end
    half_clz64 = z[5:1];
  endfunction

  always_ff @(posedge clk_i) begin
    if (start_i) begin
      logic [63:0] v;
      logic [4:0]  k;
      v = 64'(n_i) * 64'(squares_i) - 64'($signed({{32{sum_i[31]}}, sum_i}) * $signed({{32{sum_i[31]}}, sum_i}))
          + 64'(eps_i);
      k = half_clz64(v);
      zero_q  <= (v == '0);
      a_q     <= v << {k, 1'b0};
      rem_q   <= '0;
      root_q  <= '0;
      quot_q  <= '0;
      step_q  <= 7'd1;
      shift_o <= 6'(7'd61 - 7'(k) - 7'(out_shift_i));
    end else if (step_q >= 7'd1 && step_q <= 7'(SqrtSteps)) begin
      logic [35:0] rem, trial;
      rem   = {rem_q[33:0], a_q[63:62]};
      trial = {2'b00, root_q, 2'b01};
      a_q   <= a_q << 2;
      if (rem >= trial) begin
        rem_q  <= 35'(rem - trial);
        root_q <= {root_q[30:0], 1'b1};
      end else begin
        rem_q  <= 35'(rem);
        root_q <= {root_q[30:0], 1'b0};
      end
      step_q <= step_q + 1'b1;
      // The division's first partial remainder: 2^61 >> 31 = 2^30 (the dividend's bits below
      // are zero), below any s >= 2^31.
      if (step_q == 7'(SqrtSteps)) rem_q <= 35'd1 << 30;
    end else if (step_q > 7'(SqrtSteps) && step_q <= 7'(SqrtSteps + DivSteps)) begin
      logic [35:0] rem;
      rem = {rem_q, 1'b0};
      if (rem >= 36'(root_q)) begin
        rem_q  <= 35'(rem - 36'(root_q));
        quot_q <= {quot_q[30:0], 1'b1};
      end else begin
        rem_q  <= 35'(rem);
        quot_q <= {quot_q[30:0], 1'b0};
      end
      step_q <= (step_q == 7'(SqrtSteps + DivSteps)) ? 7'd0 : step_q + 1'b1;
    end
  end

  assign recip_o = zero_q ? 32'd0 : quot_q;
endmodule
