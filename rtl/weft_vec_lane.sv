// One lane of the vector unit: the arithmetic of WINDOW, ELTWISE, SOFTMAX and LAYER_NORM on one byte
// column of the vector scratchpad (hw/spec/isa.json; bit-exact with
// hw/include/weft/hw/vector_ops.h). Three register stages follow the scratchpad read:
//
//   operand (op1_i):  x - zp, products, lookups (the softmax's exp table entry), the layer
//                     norm's x*x and N*x - S1,
//   reduce  (op2_i):  window reductions, the softmax's max and sum, the layer norm's sums and its
//                     product by the reciprocal square root; the add's rounding,
//   result  (op3_i):  the window's division, the softmax's output scaling, the layer norm's
//                     rounding shift.
//
// The controls (weft_vector's slot records) say which slot each stage holds; the unit keeps
// every stage of a command in step, so a lane has no state of its own beyond the registers
// below and the softmax reciprocal, computed one step a cycle (recip_step_i) from the sum.
//
// With Fp16 (a lane below Cols/2 of Fp16 hardware) a WINDOW or ELTWISE in fp16 mode (fp_i)
// works on the binary16 value of two bytes (a_i low, a_hi_i high; b likewise) in the same
// stages (weft_fp_pkg, bit-exact with hw/include/weft/hw/fp16.h): operand: the product or the
// widened values, or the lookup's slope times the low byte; reduce: the binary32 sum or maximum,
// or the lookup's start value plus that; result: an average's division by the count. A SOFTMAX
// in fp16 mode (hw/include/weft/hw/softmax_fp16.h): operand: t = x * beta, and from the second
// pass on the split of exp(t - M); reduce: the maximum of t, or the table entry of the split's
// index (looked up here, from the registered split) made the exponential and summed or kept;
// result: the exponential times the sum's reciprocal. A LAYER_NORM in fp16 mode
// (hw/include/weft/hw/layer_norm_fp16.h): operand: x widened, and x*x in the sums pass; reduce:
// the binary32 sums of both (the second adder is this mode's only), or d = x - mean and the
// significands' product of d and rstd (the quant8 product's multiplier); result: that product
// rounded, y = d * rstd.
module weft_vec_lane
  import weft_pkg::*;
  import weft_fixed_pkg::*;
  import weft_fp_pkg::*;
#(
  parameter int unsigned Fp16 = 0
) (
  input  logic        clk_i,
  // the command (stable while it runs)
  input  logic [3:0]  op_i,          // opcode: OpWindow, OpEltwise, OpSoftmax, OpLayerNorm
  input  logic [1:0]  kind_i,        // win_kind / elt_kind
  input  logic        a_signed_i,
  input  logic [8:0]  a_zp_i,
  input  logic        b_signed_i,
  input  logic [8:0]  b_zp_i,
  input  logic [4:0]  left_shift_i,  // eltwise add
  input  logic [31:0] a_mult_i,
  input  logic [5:0]  a_shift_i,
  input  logic [31:0] b_mult_i,
  input  logic [5:0]  b_shift_i,
  input  logic [8:0]  lut_len_i,     // softmax
  input  logic        fp_i,          // window, eltwise, softmax: binary16 mode (with Fp16 only)
  input  logic [15:0] beta_i,        // softmax fp16: the inputs' multiplier (binary16)
  // operand stage: the bytes of this lane, the slot's controls
  input  logic        op1_en_i,      // a slot is in the operand stage
  input  logic [7:0]  a_i,
  input  logic [7:0]  b_i,
  input  logic [7:0]  a_hi_i,        // fp16: the high bytes of a and b
  input  logic [7:0]  b_hi_i,
  input  logic        ok1_i,         // window: the tap is in the tile; softmax: the lane is valid
  input  logic [1:0]  pass1_i,       // softmax pass: 0 max, 1 sum, 2 output
  output logic [7:0]  lut_idx_o,
  input  logic [31:0] lut_data_i,
  // reduce stage
  input  logic        op2_en_i,
  input  logic        first2_i,      // first slot of a window / of a softmax pass
  input  logic [1:0]  pass2_i,
  output logic [31:0] red_o,         // the reduction so far (softmax max, sum; layer norm sum)
  output logic [31:0] red2_o,        // layer norm: the sum of squares so far
  // softmax: this lane's maximum and sum (its own, or every lane's), and the reciprocal steps
  input  logic [31:0] max_i,
  input  logic        sum_load_i,    // sum_i is valid: start the reciprocal
  input  logic [31:0] sum_i,
  input  logic [3:0]  recip_step_i,  // 1 .. 8 while the reciprocal runs, else 0
  // layer norm: the row's N and S1 (output pass), the reciprocal square root and shift
  input  logic [15:0] ln_n_i,
  input  logic [31:0] ln_sum_i,
  input  logic [31:0] ln_recip_i,
  input  logic [5:0]  ln_shift_i,
  input  logic [31:0] ln_mean_i,     // fp16 mode: the row's mean and 1/sqrt(var + eps), binary32
  input  logic [31:0] ln_rstd_i,
  // result stage
  input  logic        op3_en_i,
  output logic [31:0] result_o
);
  localparam logic [31:0] C48Over17    = 32'd1515870810;   // 48/17 in Q2.29
  localparam logic [31:0] CNeg32Over17 = -32'sd1010580540; // -32/17 in Q2.29
  localparam logic [31:0] OneQ2        = 32'd1 << 29;

  logic is_win, is_elt, is_smx, is_ln;
  assign is_win = (op_i == OpWindow);
  assign is_elt = (op_i == OpEltwise);
  assign is_smx = (op_i == OpSoftmax);
  assign is_ln  = (op_i == OpLayerNorm);
  logic fp;
  assign fp = (Fp16 != 0) && fp_i;

  function automatic logic [31:0] ext(logic [7:0] v, logic is_signed);
    ext = is_signed ? 32'(signed'(v)) : 32'(v);
  endfunction

  // The type's minimum as a raw value: 0 unsigned, -128 signed.
  logic [31:0] type_min;
  assign type_min = a_signed_i ? 32'hffff_ff80 : 32'd0;

  // ---------------------------------------------------------------- operand stage
  logic [31:0] xa, xb, d;
  logic        d_ok;
  assign xa   = ext(a_i, a_signed_i) - 32'(signed'(a_zp_i));
  assign xb   = ext(b_i, b_signed_i) - 32'(signed'(b_zp_i));
  assign d    = max_i - xa;  // softmax: the distance to the maximum (0 .. 255)
  assign d_ok = ok1_i && (d < 32'(lut_len_i));
  // quant8 softmax: the distance; fp16 softmax: the registered split's index (reduce stage);
  // fp16 lookup: the piece of the high byte.
  assign lut_idx_o = is_smx ? (fp ? v1_q[19:12] : d[7:0]) : (fp ? a_hi_i : a_i);

  logic [31:0]        v1_q;     // the operand stage's value
  logic signed [63:0] pa_q, pb_q;
  logic               sat_a_q, sat_b_q, ok2_q;
  logic [15:0]        start_q;  // fp16 lut: the piece's start value
  logic [31:0]        sq_q;     // layer norm sums pass: x*x

  always_ff @(posedge clk_i) begin
    if (op1_en_i) begin
      ok2_q <= is_smx && !fp && pass1_i != 2'd0 ? d_ok : ok1_i;
      if (fp && is_smx) begin
        logic [31:0] t;
        t = fp16_mul({a_hi_i, a_i}, beta_i);
        v1_q <= (pass1_i == 2'd0) ? t : 32'(softmax_exp_split(t, max_i));
      end else if (fp && is_ln) begin
        // sums pass: x and x*x of the valid lanes (both exact in binary32); output pass: x
        v1_q <= (pass1_i != 2'd0 || ok1_i) ? fp16_to_fp32({a_hi_i, a_i}) : 32'd0;
        sq_q <= ok1_i ? fp16_mul({a_hi_i, a_i}, {a_hi_i, a_i}) : 32'd0;
      end else if (is_ln) begin
        // sums pass: x and x*x of the valid lanes; output pass: N*x - S1 (wrapping)
        if (pass1_i == 2'd0) begin
          v1_q <= ok1_i ? xa : 32'd0;
          sq_q <= ok1_i ? xa * xa : 32'd0;
        end else begin
          v1_q <= 32'(ln_n_i) * xa - ln_sum_i;
        end
      end else if (fp && is_win) begin
        v1_q <= (kind_i == WinKindDwconv) ? fp16_mul({a_hi_i, a_i}, {b_hi_i, b_i}) : fp16_to_fp32({a_hi_i, a_i});
      end else if (fp) begin  // eltwise lut, add or mul (checked); add keeps b in pa_q
        unique case (kind_i)
          EltKindAdd: begin  // a negative b_mult subtracts: b's sign flipped
            v1_q <= fp16_to_fp32({a_hi_i, a_i});
            pa_q <= 64'(fp16_to_fp32({b_hi_i ^ {b_mult_i[31], 7'd0}, b_i}));
          end
          EltKindMul: v1_q <= fp16_mul({a_hi_i, a_i}, {b_hi_i, b_i});
          default: begin
            v1_q    <= fp16_mul(lut_data_i[31:16], u8_to_fp16(a_i));
            start_q <= lut_data_i[15:0];
          end
        endcase
      end else if (is_win) begin
        v1_q <= (kind_i == WinKindDwconv) ? 32'(signed'(xa) * signed'(xb)) : xa;
      end else if (is_elt) begin
        unique case (kind_i)
          EltKindAdd: begin
            logic [31:0] sa, sb;
            logic signed [5:0] sha, shb;
            sha = signed'(a_shift_i);
            shb = signed'(b_shift_i);
            sa = (xa << left_shift_i) << ((sha > 6'sd0) ? sha[4:0] : 5'd0);
            sb = (xb << left_shift_i) << ((shb > 6'sd0) ? shb[4:0] : 5'd0);
            pa_q    <= srdhm_product(sa, a_mult_i);
            pb_q    <= srdhm_product(sb, b_mult_i);
            sat_a_q <= srdhm_saturates(sa, a_mult_i);
            sat_b_q <= srdhm_saturates(sb, b_mult_i);
          end
          EltKindMul: v1_q <= xa * xb;
          EltKindLut: v1_q <= lut_data_i;
          default:    v1_q <= xa;
        endcase
      end else begin
        unique case (pass1_i)
          2'd0:    v1_q <= xa;
          2'd1:    v1_q <= d_ok ? rdbpot(lut_data_i, 6'd12) : 32'd0;
          default: begin
            pa_q    <= srdhm_product(scale_q, lut_data_i);
            sat_a_q <= srdhm_saturates(scale_q, lut_data_i);
          end
        endcase
      end
    end
  end

  // ---------------------------------------------------------------- reduce stage
  // Right shifts of the add's two requantizations (the shift saturated to [-31, 31]).
  function automatic logic [5:0] right_of(logic [5:0] shift);
    logic signed [5:0] s;
    s = signed'(shift);
    if (s >= 6'sd0) right_of = 6'd0;
    else right_of = (s == -6'sd32) ? 6'd31 : 6'(-s);
  endfunction

  logic [31:0] red_q, red2_q, v2_q;
  logic signed [63:0] ln_p_q;  // layer norm output pass: (N*x - S1) * r
  logic [16:0] cnt_q;
  logic        ok3_q;

  // binary16: one binary32 adder for the reduce stage, v1_q plus the window's reduction so far,
  // the eltwise add's b, the lookup piece's start value, or the layer norm's sum or -mean; and
  // a second for the layer norm's sum of squares.
  // A softmax's base: -infinity (the maximum's pass) or +0 (the sum's).
  logic [31:0] fp_base, fp_sum, fp_sum2, smx_e;
  logic [31:0] ln_y;  // fp16 layer norm: the result stage's d * rstd
  assign fp_base = first2_i ? ((is_smx ? pass2_i == 2'd0 : (is_win && kind_i == WinKindMax)) ? 32'hff80_0000 : 32'd0)
                            : red_q;
  if (Fp16 != 0) begin : g_fp_add
    logic [31:0] addend;
    assign smx_e  = softmax_exp(v1_q[26:0], lut_data_i);
    assign addend = (is_win || is_smx || (is_ln && pass2_i == 2'd0)) ? fp_base
                  : is_ln ? {~ln_mean_i[31], ln_mean_i[30:0]}
                  : ((kind_i == EltKindAdd) ? pa_q[31:0] : fp16_to_fp32(start_q));
    assign fp_sum  = fp32_add(addend, is_smx ? smx_e : v1_q);
    // (Modules, so that synthesis's resource sharing weighs their shifters alone: weft_fp32_adder.)
    weft_fp32_adder u_sum2 (.a_i(first2_i ? 32'd0 : red2_q), .b_i(sq_q), .sum_o(fp_sum2));
    weft_fp32_mul_round u_ln_y (.a_i(v2_q), .b_i(ln_rstd_i), .prod_i(ln_p_q[47:0]), .p_o(ln_y));
  end else begin : g_no_fp_add
    assign fp_sum  = '0;
    assign fp_sum2 = '0;
    assign ln_y    = '0;
    assign smx_e   = '0;
    logic unused_start;  // the lookup's start value and the layer norm's mean are binary16 only
    assign unused_start = ^{start_q, ln_mean_i};
  end

  // The layer norm's output product: quant8's (N*x - S1) * r, or fp16's significands of d (this
  // stage's sum) and rstd, on one multiplier.
  logic signed [63:0] ln_opa, ln_opb;
  assign ln_opa = fp ? 64'(fp32_sig(fp_sum)) : $signed({{32{v1_q[31]}}, v1_q});
  assign ln_opb = fp ? 64'(fp32_sig(ln_rstd_i)) : $signed({32'd0, ln_recip_i});

  always_ff @(posedge clk_i) begin
    if (op2_en_i) begin
      ok3_q <= ok2_q;
      if (is_ln) begin
        if (pass2_i == 2'd0) begin
          red_q  <= fp ? fp_sum : (first2_i ? 32'd0 : red_q) + v1_q;
          red2_q <= fp ? fp_sum2 : (first2_i ? 32'd0 : red2_q) + sq_q;
        end else begin
          ln_p_q <= ln_opa * ln_opb;
          if (fp) v2_q <= fp_sum;  // d = x - mean
        end
      end else if (fp && is_smx) begin
        unique case (pass2_i)
          2'd0:    red_q <= (ok2_q && fp32_greater(v1_q, fp_base)) ? v1_q : fp_base;
          2'd1:    red_q <= ok2_q ? fp_sum : fp_base;
          default: v2_q  <= smx_e;
        endcase
      end else if (fp && is_win) begin
        if (ok2_q) begin
          red_q <= (kind_i == WinKindMax) ? (fp32_greater(v1_q, fp_base) ? v1_q : fp_base) : fp_sum;
          cnt_q <= (first2_i ? 17'd0 : cnt_q) + 17'd1;
        end else begin
          red_q <= fp_base;
          cnt_q <= first2_i ? 17'd0 : cnt_q;
        end
      end else if (fp) begin
        v2_q <= (kind_i == EltKindMul) ? v1_q : fp_sum;
      end else if (is_win) begin
        logic [31:0] base;
        logic [16:0] cbase;
        base  = first2_i ? ((kind_i == WinKindMax) ? type_min : 32'd0) : red_q;
        cbase = first2_i ? 17'd0 : cnt_q;
        if (ok2_q) begin
          unique case (kind_i)
            WinKindMax: red_q <= (signed'(v1_q) > signed'(base)) ? v1_q : base;
            default:    red_q <= base + v1_q;
          endcase
          cnt_q <= cbase + 17'd1;
        end else begin
          red_q <= base;
          cnt_q <= cbase;
        end
      end else if (is_elt) begin
        v2_q <= (kind_i == EltKindAdd)
                ? rdbpot(srdhm_round(pa_q, sat_a_q), right_of(a_shift_i))
                  + rdbpot(srdhm_round(pb_q, sat_b_q), right_of(b_shift_i))
                : v1_q;
      end else begin
        unique case (pass2_i)
          2'd0: begin
            logic [31:0] base;
            base  = first2_i ? type_min : red_q;
            red_q <= (ok2_q && signed'(v1_q) > signed'(base)) ? v1_q : base;
          end
          2'd1:    red_q <= (first2_i ? 32'd0 : red_q) + v1_q;
          default: v2_q  <= srdhm_round(pa_q, sat_a_q);
        endcase
      end
    end
  end

  assign red_o  = red_q;
  assign red2_o = red2_q;

  // ---------------------------------------------------------------- softmax reciprocal
  // gemmlowp's one_over_one_plus_x_for_x_in_0_1 of (sum << h) - 1 (h its leading zeros), one
  // fixed-point multiply a step: step 0 (sum_load_i) the half denominator, 1 the 48/17 - 32/17 d
  // start, 2 .. 7 three Newton-Raphson iterations, 8 the rescale to Q0.31.
  logic [31:0] hd_q, x_q, t_q, scale_q;
  logic [5:0]  h_q;

  // fp16: the reciprocal of the binary32 sum's significand (its exponent is applied at the output).
  logic [31:0] recip_in;
  assign recip_in = fp ? {1'b1, sum_i[22:0], 8'd0} : sum_i;

  always_ff @(posedge clk_i) begin
    if (sum_load_i) begin
      logic [5:0]  h;
      logic [31:0] shifted;
      h       = clz32(recip_in);
      shifted = (recip_in << h[4:0]) - 32'h8000_0000;
      h_q     <= h;
      hd_q    <= rounding_half_sum(shifted, 32'h7fff_ffff);
    end else if (recip_step_i == 4'd1) begin
      x_q <= C48Over17 + srdhm(hd_q, CNeg32Over17);
    end else if (recip_step_i == 4'd8) begin
      scale_q <= sat_shl(x_q, 1);
    end else if (recip_step_i != 4'd0 && !recip_step_i[0]) begin
      t_q <= srdhm(hd_q, x_q);
    end else if (recip_step_i != 4'd0) begin
      x_q <= x_q + sat_shl(srdhm(x_q, OneQ2 - t_q), 2);
    end
  end

  // ---------------------------------------------------------------- result stage
  logic [31:0] result_q;

  always_ff @(posedge clk_i) begin
    if (op3_en_i) begin
      if (fp && is_ln) begin
        result_q <= ok3_q ? ln_y : 32'd0;
      end else if (is_ln) begin
        result_q <= ok3_q ? rdbpot64(ln_p_q, ln_shift_i) : 32'd0;
      end else if (fp && is_smx) begin
        result_q <= ok3_q ? softmax_fp_out(v2_q, scale_q, sum_i) : 32'd0;
      end else if (fp && is_win) begin
        result_q <= (kind_i == WinKindAvg || kind_i == WinKindMean) ? fp32_div_count(red_q, cnt_q) : red_q;
      end else if (is_win) begin
        logic signed [31:0] half, q;
        half = signed'(32'(cnt_q) >> 1);
        unique case (kind_i)
          WinKindAvg: begin
            q = signed'(red_q) + ((signed'(red_q) >= 0) ? half : -half);
            result_q <= (cnt_q == '0) ? 32'd0 : 32'(q / signed'(32'(cnt_q)));
          end
          WinKindMean: result_q <= (cnt_q == '0) ? 32'd0 : 32'(signed'(red_q) / signed'(32'(cnt_q)));
          default:     result_q <= red_q;
        endcase
      end else if (is_elt) begin
        result_q <= v2_q;
      end else begin
        result_q <= ok3_q ? rdbpot(v2_q, 6'd35 - h_q) + type_min : type_min;
      end
    end
  end

  assign result_o = result_q;
endmodule
