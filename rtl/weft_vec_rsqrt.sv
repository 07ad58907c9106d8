// LAYER_NORM's reciprocal square root (hw/spec/isa.json; bit-exact with
// hw/include/weft/hw/vector_ops.h layerNormScale): from a row's sums S1 of x and S2 of x*x over
// N elements, V = N*S2 - S1^2 + eps (modulo 2^64) normalized by an even shift 2k, its integer
// square root s two bits a cycle (restoring, 16 steps of two) and r = floor(2^61 / s) two bits
// a cycle (restoring division, 16 steps of two: 32 quotient bits, the top one always 0 as
// r <= 2^30). One step to form V, so r and the output shift 61 - k - out_shift are registered
// LayerNormRsqrtCycles (33) cycles after start_i; weft_vector issues the output pass so that
// its first product comes after that.
//
// One per vector unit: every lane scales by the same r (the statistics span the lanes).
//
// fp16 mode (Fp16 hardware; hw/include/weft/hw/layer_norm_fp16.h): S1 and S2 are binary32. At
// start_i the mean S1 / N and q = S2 / N are registered (fp32_div_count); the cycle after, v =
// max(q - mean^2, 0) + epsilon (fp32_mul, fp32_add) and its significand with the exponent made
// even becomes V, and the same 32 steps follow: one cycle more than quant8's, which the lanes
// absorb since they multiply by rstd in their result stage, a cycle after quant8's product.
module weft_vec_rsqrt
  import weft_fp_pkg::*;
#(
  parameter int unsigned Fp16 = 0
) (
  input  logic        clk_i,
  input  logic        start_i,      // sums valid: form V and begin
  input  logic        fp_i,         // fp16 mode (with Fp16 only)
  input  logic [31:0] sum_i,        // S1 (wrapping int32; binary32 in fp16 mode)
  input  logic [31:0] squares_i,    // S2
  input  logic [15:0] n_i,          // N, 1 .. 32768
  input  logic [47:0] eps_i,
  input  logic [31:0] eps32_i,      // fp16 mode: epsilon, binary32
  input  logic [4:0]  out_shift_i,
  output logic [31:0] recip_o,      // r, in (2^29, 2^30]; 0 when V = 0
  output logic [5:0]  shift_o,      // 61 - k - out_shift
  output logic [31:0] mean_o,       // fp16 mode: the mean, binary32
  output logic [31:0] rstd_o        // fp16 mode: 1 / sqrt(variance + epsilon), binary32
);
  localparam int unsigned SqrtSteps = 16;
  localparam int unsigned DivSteps  = 16;

  logic [63:0] a_q;       // the normalized V, consumed four bits a square-root step
  logic [34:0] rem_q;     // square root: the remainder (below 2^33); division: the partial remainder (below 2^32)
  logic [31:0] root_q;    // square root so far, then the divisor s
  logic [31:0] quot_q;    // the quotient so far
  logic [5:0]  step_q;    // 0 idle; 1 .. 16 square root; 17 .. 32 division
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

  // One restoring square-root iteration: two more bits of the operand, one more of the root (the
  // remainder is below 2^33 here: its top bits are zero).
  /* verilator lint_off UNUSEDSIGNAL */
  function automatic logic [66:0] sqrt_bit(logic [34:0] rem, logic [31:0] root, logic [1:0] bits);
  /* verilator lint_on UNUSEDSIGNAL */
    logic [35:0] r, trial;
    r     = {rem[33:0], bits};
    trial = {2'b00, root, 2'b01};
    if (r >= trial) sqrt_bit = {35'(r - trial), root[30:0], 1'b1};
    else sqrt_bit = {35'(r), root[30:0], 1'b0};
  endfunction

  // One restoring division iteration by `d` (the dividend's bits here are all zero).
  function automatic logic [35:0] div_bit(logic [34:0] rem, logic [31:0] d);
    logic [35:0] r;
    r = {rem, 1'b0};
    if (r >= 36'(d)) div_bit = {35'(r - 36'(d)), 1'b1};
    else div_bit = {35'(r), 1'b0};
  endfunction

  // fp16 mode: the row's statistics, and what ln_rstd needs beside r.
  localparam logic [5:0] FormStep = 6'd63;  // fp16: the step that forms V from the mean and q
  logic [31:0]        mean_q, q_q;
  logic [4:0]         k_q;
  logic signed [7:0]  half_e_q;
  logic [1:0]         special_q;
  logic               fp_start, fp_form;
  logic [31:0]        v_fp;  // fp16: max(q - mean^2, 0) + epsilon
  assign fp_start = (Fp16 != 0) && start_i && fp_i;
  assign fp_form  = (Fp16 != 0) && step_q == FormStep;
  if (Fp16 != 0) begin : g_fp_v
    logic [31:0] mean_sq, var_raw;
    assign mean_sq = fp32_mul(mean_q, mean_q);
    assign var_raw = fp32_add(q_q, {~mean_sq[31], mean_sq[30:0]});
    // below zero by rounding (or -0): +0; a NaN stays
    assign v_fp = fp32_add((var_raw[31] && !(var_raw[30:23] == 8'hff && var_raw[22:0] != '0)) ? 32'd0 : var_raw,
                           eps32_i);
  end else begin : g_no_fp_v
    assign v_fp = '0;
  end

  // V: quant8's from the sums at start_i, fp16's from v in the form step.
  logic [63:0] v_root;
  assign v_root = fp_form ? 64'(ln_rsqrt_operand(v_fp))
                          : 64'(n_i) * 64'(squares_i)
                            - 64'($signed({{32{sum_i[31]}}, sum_i}) * $signed({{32{sum_i[31]}}, sum_i}))
                            + 64'(eps_i);

  always_ff @(posedge clk_i) begin
    if (fp_start) begin
      mean_q <= fp32_div_count(sum_i, {1'b0, n_i});
      q_q    <= fp32_div_count(squares_i, {1'b0, n_i});
      step_q <= FormStep;
    end else if (start_i || fp_form) begin
      logic [4:0] k;
      k = half_clz64(v_root);
      zero_q  <= (v_root == '0);
      a_q     <= v_root << {k, 1'b0};
      rem_q   <= '0;
      root_q  <= '0;
      quot_q  <= '0;
      step_q  <= 6'd1;
      k_q     <= k;
      shift_o <= 6'(7'd61 - 7'(k) - 7'(out_shift_i));
      half_e_q  <= ln_rsqrt_half_e(v_fp[30:23]);
      special_q <= ((v_fp[30:23] == 8'hff && v_fp[22:0] != '0) || (v_fp[31] && v_fp[30:0] != '0)) ? 2'd2
                 : (v_fp[30:0] == '0 || v_fp[30:23] == 8'hff) ? 2'd1 : 2'd0;
    end else if (step_q >= 6'd1 && step_q <= 6'(SqrtSteps)) begin
      logic [66:0] first, second;
      first  = sqrt_bit(rem_q, root_q, a_q[63:62]);
      second = sqrt_bit(first[66:32], first[31:0], a_q[61:60]);
      a_q    <= a_q << 4;
      rem_q  <= second[66:32];
      root_q <= second[31:0];
      step_q <= step_q + 1'b1;
      // The division's first partial remainder: 2^61 >> 32 = 2^29 (the dividend's bits below
      // are zero), below any s >= 2^31.
      if (step_q == 6'(SqrtSteps)) rem_q <= 35'd1 << 29;
    end else if (step_q > 6'(SqrtSteps) && step_q <= 6'(SqrtSteps + DivSteps)) begin
      logic [35:0] first, second;
      first  = div_bit(rem_q, root_q);
      second = div_bit(first[35:1], root_q);
      rem_q  <= second[35:1];
      quot_q <= {quot_q[29:0], first[0], second[0]};
      step_q <= (step_q == 6'(SqrtSteps + DivSteps)) ? 6'd0 : step_q + 1'b1;
    end
  end

  assign recip_o = zero_q ? 32'd0 : quot_q;
  if (Fp16 != 0) begin : g_fp_out
    assign mean_o = mean_q;
    assign rstd_o = ln_rstd_of(quot_q, k_q, half_e_q, special_q);
  end else begin : g_no_fp_out
    assign mean_o = '0;
    assign rstd_o = '0;
    logic unused_fp;
    assign unused_fp = ^{fp_i, eps32_i, mean_q, q_q, k_q, half_e_q, special_q, v_fp};
  end
endmodule
