// IEEE 754 binary16 and binary32 arithmetic for the fp16 datapath (fp16 products, fp32
// accumulation, fp16 results), bit-exact with hw/include/weft/hw/fp16.h. Round to nearest, ties
// to even; subnormals kept (no flush to zero); a NaN result is the canonical quiet NaN, whatever
// NaN came in (IEEE leaves its payload open; one answer keeps the RTL and the models identical).
package weft_fp_pkg;

  localparam logic [31:0] Fp32QNaN = 32'h7fc0_0000;
  localparam logic [15:0] Fp16QNaN = 16'h7e00;

  // Leading zeros of a 27-bit value (27 for zero).
  function automatic logic [4:0] lzc27(logic [26:0] v);
    lzc27 = 5'd27;
    for (int i = 0; i < 27; i++) begin
      if (v[i]) lzc27 = 5'(26 - i);
    end
  endfunction

  // binary16 -> binary32, exact.
  function automatic logic [31:0] fp16_to_fp32(logic [15:0] h);
    logic [4:0]  e;
    logic [9:0]  m;
    logic [4:0]  lz;
    /* verilator lint_off UNUSEDSIGNAL */
    logic [20:0] shifted;  // high bits unused: the leading one and above
    /* verilator lint_on UNUSEDSIGNAL */
    e = h[14:10];
    m = h[9:0];
    lz = lzc27({m, 17'd0});  // leading zeros within the 10 mantissa bits
    shifted = {11'd0, m} << (lz + 5'd1);  // a subnormal's leading one moves out at bit 10
    if (e == 5'd31) begin
      fp16_to_fp32 = (m == '0) ? {h[15], 8'hff, 23'd0} : Fp32QNaN;
    end else if (e == '0) begin
      // m * 2^-24 with its leading one at bit 9 - lz: exponent 2^(-15 - lz), biased 112 - lz.
      fp16_to_fp32 = (m == '0) ? {h[15], 31'd0} : {h[15], 8'd112 - 8'(lz), shifted[9:0], 13'd0};
    end else begin
      fp16_to_fp32 = {h[15], 8'(e) + 8'd112, m, 13'd0};
    end
  endfunction

  // The product of two binary16 values as binary32: exact (11-bit significands make at most 22
  // bits, and every product lies within binary32's normal range), so nothing is rounded.
  // What a product is when an operand is special: 0 neither is (the arithmetic decides), 1 the
  // NaN (a NaN, or an infinity times a zero), 2 an infinity, 3 a zero (signs aside).
  function automatic logic [1:0] product_case(logic a_nan, logic b_nan, logic a_inf, logic b_inf, logic a_zero,
                                              logic b_zero);
    if (a_nan || b_nan || (a_inf && b_zero) || (a_zero && b_inf)) product_case = 2'd1;
    else if (a_inf || b_inf) product_case = 2'd2;
    else if (a_zero || b_zero) product_case = 2'd3;
    else product_case = 2'd0;
  endfunction

  function automatic logic [31:0] fp16_mul(logic [15:0] a, logic [15:0] b);
    logic        sign, a_nan, b_nan, a_inf, b_inf, a_zero, b_zero;
    logic [10:0] sig_a, sig_b;
    logic [5:0]  x_a, x_b;
    logic [21:0] p;
    logic [4:0]  lz;
    /* verilator lint_off UNUSEDSIGNAL */
    logic [44:0] norm;  // high bits unused: the leading one and above
    /* verilator lint_on UNUSEDSIGNAL */
    sign   = a[15] ^ b[15];
    a_nan  = a[14:10] == 5'd31 && a[9:0] != '0;
    b_nan  = b[14:10] == 5'd31 && b[9:0] != '0;
    a_inf  = a[14:10] == 5'd31 && a[9:0] == '0;
    b_inf  = b[14:10] == 5'd31 && b[9:0] == '0;
    a_zero = a[14:0] == '0;
    b_zero = b[14:0] == '0;
    sig_a  = {a[14:10] != '0, a[9:0]};
    sig_b  = {b[14:10] != '0, b[9:0]};
    x_a    = (a[14:10] == '0) ? 6'd1 : {1'b0, a[14:10]};
    x_b    = (b[14:10] == '0) ? 6'd1 : {1'b0, b[14:10]};
    p      = sig_a * sig_b;  // value p * 2^(x_a + x_b - 50)
    lz     = lzc27({p, 5'd0});  // the leading one is at bit 21 - lz
    norm   = {23'd0, p} << (lz + 5'd2);  // leading one at bit 23, the fraction below it
    unique case (product_case(a_nan, b_nan, a_inf, b_inf, a_zero, b_zero))
      2'd1:    fp16_mul = Fp32QNaN;
      2'd2:    fp16_mul = {sign, 8'hff, 23'd0};
      2'd3:    fp16_mul = {sign, 31'd0};
      // 1.f * 2^(21 - lz + x_a + x_b - 50), biased by 127: 98 + x_a + x_b - lz (79 to 158).
      default: fp16_mul = {sign, 8'd98 + 8'(x_a) + 8'(x_b) - 8'(lz), norm[22:0]};
    endcase
  endfunction

  // binary32 + binary32, rounded to nearest even. The smaller magnitude (lo) is aligned to the larger (hi)
  // with three extra bits (guard, round, sticky): enough for a correctly rounded sum or
  // difference (at most one bit of left normalisation follows a shift that lost bits).
  function automatic logic [31:0] fp32_add(logic [31:0] a, logic [31:0] b);
    logic        a_nan, b_nan, a_inf, b_inf, sign, up;
    logic [31:0] hi, lo;
    logic [8:0]  x_hi, x_lo, exp, d;
    logic [26:0] f_hi, f_lo0, f_lo, lost;
    logic [27:0] r;
    logic [4:0]  lz;
    logic [8:0]  sh;
    logic [24:0] mant;
    a_nan = a[30:23] == 8'hff && a[22:0] != '0;
    b_nan = b[30:23] == 8'hff && b[22:0] != '0;
    a_inf = a[30:23] == 8'hff && a[22:0] == '0;
    b_inf = b[30:23] == 8'hff && b[22:0] == '0;
    if (a[30:0] >= b[30:0]) begin
      hi = a;
      lo = b;
    end else begin
      hi = b;
      lo = a;
    end
    x_hi    = (hi[30:23] == '0) ? 9'd1 : {1'b0, hi[30:23]};
    x_lo  = (lo[30:23] == '0) ? 9'd1 : {1'b0, lo[30:23]};
    f_hi    = {hi[30:23] != '0, hi[22:0], 3'b000};
    f_lo0 = {lo[30:23] != '0, lo[22:0], 3'b000};
    d        = x_hi - x_lo;
    if (d >= 9'd27) begin
      f_lo = {26'd0, f_lo0 != '0};
    end else begin
      lost    = f_lo0 & ((27'd1 << d) - 27'd1);
      f_lo = (f_lo0 >> d) | {26'd0, lost != '0};
    end
    sign = hi[31];
    r    = (hi[31] == lo[31]) ? {1'b0, f_hi} + {1'b0, f_lo} : {1'b0, f_hi} - {1'b0, f_lo};
    exp  = x_hi;
    lz   = lzc27(r[26:0]);
    sh   = (9'(lz) < exp - 9'd1) ? 9'(lz) : exp - 9'd1;
    if (r[27]) begin  // a carry: one bit right, the lost bit kept in the sticky bit
      r   = {1'b0, r[27:2], r[1] | r[0]};
      exp = exp + 9'd1;
    end else begin  // cancellation: left until normal, or subnormal at the least exponent
      r   = r << sh;
      exp = exp - sh;
    end
    up   = r[2] & (r[1] | r[0] | r[3]);
    mant = {1'b0, r[26:3]} + {24'd0, up};
    if (mant[24]) begin
      mant = mant >> 1;
      exp  = exp + 9'd1;
    end
    if (a_nan || b_nan || (a_inf && b_inf && a[31] != b[31])) begin
      fp32_add = Fp32QNaN;
    end else if (a_inf || b_inf) begin
      fp32_add = a_inf ? a : b;
    end else if (r == '0) begin
      fp32_add = {a[31] & b[31], 31'd0};  // an exact zero is +0 unless both were -0
    end else if (exp >= 9'd255) begin
      fp32_add = {sign, 8'hff, 23'd0};
    end else begin
      fp32_add = {sign, mant[23] ? exp[7:0] : 8'd0, mant[22:0]};
    end
  endfunction

  // binary32 -> binary16, rounded to nearest even: past the largest finite value to infinity,
  // below the smallest subnormal to zero.
  function automatic logic [15:0] fp32_to_fp16(logic [31:0] f);
    logic [7:0]  e;
    logic [22:0] m;
    logic        up;
    /* verilator lint_off UNUSEDSIGNAL */
    logic [15:0] normal;  // high bits unused: the sign position
    /* verilator lint_on UNUSEDSIGNAL */
    logic [8:0]  shift;
    /* verilator lint_off UNUSEDSIGNAL */
    logic [49:0] wide;  // high bits unused: always zero: the integer part is under 2^11
    /* verilator lint_on UNUSEDSIGNAL */
    logic [10:0] q;
    e = f[30:23];
    m = f[22:0];
    // Normal: exponent e - 112, ten fraction bits, the other 13 round.
    up     = m[12] & (m[11:0] != '0 || m[13]);
    normal = {1'b0, 5'(e - 8'd112), m[22:13]} + {15'd0, up};  // a carry reaches infinity exactly
    // Subnormal: {1, m} * 2^(e - 150) in units of 2^-24 is {1, m} >> (126 - e).
    shift  = 9'd126 - {1'b0, e};
    wide   = {1'b1, m, 26'd0} >> ((shift > 9'd26) ? 9'd26 : shift);  // integer part at [49:26]
    q      = (shift > 9'd26) ? 11'd0 : wide[36:26];
    up     = (shift > 9'd26) ? 1'b0 : wide[25] & (wide[24:0] != '0 || wide[26]);
    if (e == 8'hff) begin
      fp32_to_fp16 = (m != '0) ? Fp16QNaN : {f[31], 5'h1f, 10'd0};
    end else if (e >= 8'd143) begin  // 2^16 and above
      fp32_to_fp16 = {f[31], 5'h1f, 10'd0};
    end else if (e >= 8'd113) begin
      fp32_to_fp16 = {f[31], normal[14:0]};
    end else begin
      fp32_to_fp16 = {f[31], 15'(q) + {14'd0, up}};  // a carry into bit 10 is the least normal
    end
  endfunction

  // a > b for binary32 values, numerically: false when either is a NaN, -0 equals +0 (the vector
  // unit's fp16 max). Sign-magnitude becomes an unsigned order by flipping the negatives.
  function automatic logic fp32_greater(logic [31:0] a, logic [31:0] b);
    logic        a_nan, b_nan;
    logic [31:0] ka, kb;
    a_nan = a[30:23] == 8'hff && a[22:0] != '0;
    b_nan = b[30:23] == 8'hff && b[22:0] != '0;
    ka    = a[31] ? ~a : {1'b1, a[30:0]};
    kb    = b[31] ? ~b : {1'b1, b[30:0]};
    fp32_greater = !a_nan && !b_nan && (a[30:0] != '0 || b[30:0] != '0) && ka > kb;
  endfunction

  // binary32 / count: the exact quotient rounded to nearest even, a subnormal result at its own
  // precision (as IEEE division); +0 for count 0 (the vector unit's fp16 average of no taps).
  // The significand, shifted up 26 bits, is divided as an integer: at least 24 quotient bits and
  // the remainder for the sticky bit.
  function automatic logic [31:0] fp32_div_count(logic [31:0] a, logic [16:0] cnt);
    logic [7:0]  e, ex;
    logic [23:0] sig;
    logic [49:0] num, q;
    logic [16:0] rem;
    logic [5:0]  p, sh;
    logic signed [9:0] eb;
    logic [49:0] below;
    logic        guard, sticky;
    logic [24:0] kept, rounded;
    e   = a[30:23];
    ex  = (e == '0) ? 8'd1 : e;  // a subnormal's exponent
    sig = {e != '0, a[22:0]};
    num = {sig, 26'd0};
    q   = (cnt == '0) ? '0 : num / 50'(cnt);
    rem = (cnt == '0) ? '0 : 17'(num % 50'(cnt));
    p   = '0;
    for (int i = 0; i < 50; i++) begin
      if (q[i]) p = 6'(i);
    end
    // The quotient is (q + rem/cnt) * 2^(ex - 176): 1.f * 2^(p + ex - 176), biased p + ex - 49.
    eb = 10'(p) + 10'(ex) - 10'sd49;
    // Normal: 24 bits from the leading one; subnormal: the bits of weight 2^-149 and above.
    sh     = (eb >= 10'sd1) ? 6'(p - 6'd23) : 6'(8'd27 - ex);
    kept   = 25'(q >> sh);
    below  = q & ((50'd1 << sh) - 50'd1);
    guard  = (sh != '0) && below[sh - 6'd1];
    sticky = ((sh > 6'd1) && ((below & ((50'd1 << (sh - 6'd1)) - 50'd1)) != '0)) || rem != '0;
    rounded = kept + 25'(guard && (sticky || kept[0]));
    if (cnt == '0) begin
      fp32_div_count = 32'd0;
    end else if (e == 8'hff) begin
      fp32_div_count = (a[22:0] != '0) ? Fp32QNaN : a;  // infinity / count is infinity
    end else if (sig == '0) begin
      fp32_div_count = {a[31], 31'd0};
    end else if (eb >= 10'sd1) begin
      // The hidden bit adds one to the exponent field; a carry out of rounding, one more.
      fp32_div_count = {a[31], 31'({8'(eb - 10'sd1), 23'd0}) + 31'(rounded)};
    end else begin
      fp32_div_count = {a[31], 31'(rounded)};  // a carry into bit 23 is the least normal
    end
  endfunction

  // The integer 0 .. 255 as binary16, exactly.
  function automatic logic [15:0] u8_to_fp16(logic [7:0] v);
    logic [2:0]  p;
    /* verilator lint_off UNUSEDSIGNAL */
    logic [17:0] shifted;  // high bits unused: the leading one and above
    /* verilator lint_on UNUSEDSIGNAL */
    p = '0;
    for (int i = 0; i < 8; i++) begin
      if (v[i]) p = 3'(i);
    end
    shifted = {10'd0, v} << (4'd10 - 4'(p));  // the leading one to bit 10, dropped
    u8_to_fp16 = (v == '0) ? 16'd0 : {1'b0, 5'd15 + 5'(p), shifted[9:0]};
  endfunction

  // ---------------------------------------------------------------- SOFTMAX in fp16 mode
  // exp(t - M) as 2^(-u), u = |d| log2(e) with 20 fraction bits (hw/include/weft/hw/softmax_fp16.h
  // says why): the split is {zero, n, k, r} with n = ceil(u / 2^20) the exponent's magnitude and
  // f = n*2^20 - u as k (its top 8 bits, the table index) and r (the 12 below). The lane
  // registers the split after the operand stage and looks k up in the reduce stage.
  localparam logic [30:0] Log2eQ30 = 31'd1549082005;  // round(log2(e) * 2^30)
  localparam logic [19:0] Ln2Q20   = 20'd726817;      // round(ln(2) * 2^20)

  // Position of the most significant set bit (0 for 0).
  function automatic logic [5:0] msb56(logic [55:0] v);
    msb56 = '0;
    for (int i = 0; i < 56; i++) begin
      if (v[i]) msb56 = 6'(i);
    end
  endfunction

  function automatic logic [26:0] softmax_exp_split(logic [31:0] t, logic [31:0] max);
    logic [7:0]  e;
    logic [23:0] sig;
    logic [24:0] a;     // floor(|d| * 2^20) < 2^25
    /* verilator lint_off UNUSEDSIGNAL */
    logic [31:0] d;     // its sign is not read: |d|
    logic [55:0] prod;  // the low 30 bits are the fraction dropped
    logic [26:0] f;     // bits above 19 cancel
    /* verilator lint_on UNUSEDSIGNAL */
    logic [25:0] u;
    logic [5:0]  n;
    d   = fp32_add(t, {~max[31], max[30:0]});
    e   = d[30:23];
    sig = {1'b1, d[22:0]};
    if (e >= 8'd130) a = 25'(sig) << 1'(e - 8'd130);
    else if (e != '0 && 8'd130 - e <= 8'd23) a = 25'(sig) >> 5'(8'd130 - e);
    else a = '0;
    prod = 56'(a) * 56'(Log2eQ30);
    u    = prod[55:30];
    n    = 6'((27'(u) + 27'hfffff) >> 20);
    f    = (27'(n) << 20) - 27'(u);
    softmax_exp_split = (e >= 8'd132) ? {1'b1, 26'd0} : {1'b0, n, f[19:12], f[11:0]};
  endfunction

  // (The split's index bits are not read here: the lane looked them up.)
  /* verilator lint_off UNUSEDSIGNAL */
  // e = m * 2^(-n - 30), m = T + floor(T * r * ln2 / 2^40), truncated to 24 significant bits: a
  // normal binary32 (n <= 47, m < 2^33), or +0.
  function automatic logic [31:0] softmax_exp(logic [26:0] s, logic [31:0] tbl);
    logic [63:0] c;
    logic [32:0] m;
    logic [5:0]  top;
    logic [55:0] sig;  // bits above 22: the leading one and the zeros above it (not read)
    c   = 64'(tbl) * 64'(32'(s[11:0]) * 32'(Ln2Q20));
    m   = 33'(tbl) + 33'(c >> 40);
    top = msb56(56'(m));
    sig = (top >= 6'd23) ? 56'(m) >> (top - 6'd23) : 56'(m) << (6'd23 - top);
    softmax_exp = (s[26] || m == '0) ? 32'd0 : {1'b0, 8'(8'(top) + 8'd97 - 8'(s[25:20])), sig[22:0]};
  endfunction
  /* verilator lint_on UNUSEDSIGNAL */

  // out = e * scale * 2^-31 / 2^(S's exponent - 127), truncated to 24 significant bits; +0 for e
  // = 0 or below binary32's normal range, infinity above it.
  // (e is never negative; of the sum only its exponent is read.)
  /* verilator lint_off UNUSEDSIGNAL */
  function automatic logic [31:0] softmax_fp_out(logic [31:0] e, logic [31:0] scale, logic [31:0] sum);
  /* verilator lint_on UNUSEDSIGNAL */
    logic [55:0] p;
    logic [5:0]  top;
    logic signed [10:0] biased;
    p      = 56'({1'b1, e[22:0]}) * 56'(scale[30:0]);
    top    = msb56(p);
    biased = 11'(top) + 11'(e[30:23]) - 11'(sum[30:23]) + 11'sd73;
    p      = (top >= 6'd23) ? p >> (top - 6'd23) : p << (6'd23 - top);
    if (e[30:23] == '0 || scale[31] || scale[30:0] == '0 || biased <= 11'sd0) softmax_fp_out = 32'd0;
    else if (biased >= 11'sd255) softmax_fp_out = 32'h7f80_0000;
    else softmax_fp_out = {1'b0, biased[7:0], p[22:0]};
  endfunction

  // ---------------------------------------------------------------- binary32 product
  // The 24-bit significand: the hidden bit set for a normal number (the sign is not read).
  /* verilator lint_off UNUSEDSIGNAL */
  function automatic logic [23:0] fp32_sig(logic [31:0] a);
  /* verilator lint_on UNUSEDSIGNAL */
    fp32_sig = {a[30:23] != '0, a[22:0]};
  endfunction

  // A finite nonzero product from its leading one's biased exponent and its rounded significand
  // (at most 2^24: a carry out of rounding; a subnormal's in units of 2^-149).
  function automatic logic [31:0] fp32_mul_finite(logic sign, logic signed [10:0] lead, logic [24:0] rounded);
    if (lead >= 11'sd255 || (lead == 11'sd254 && rounded[24])) begin
      fp32_mul_finite = {sign, 8'hff, 23'd0};
    end else if (lead >= 11'sd1) begin
      // The hidden bit adds one to the exponent field; a carry out of rounding, one more.
      fp32_mul_finite = {sign, 31'({8'(lead - 11'sd1), 23'd0}) + 31'(rounded)};
    end else begin
      fp32_mul_finite = {sign, 31'(rounded)};  // a carry into bit 23 is the least normal
    end
  endfunction

  // binary32 * binary32 rounded to nearest even, IEEE's product with subnormals in and out, from
  // prod = fp32_sig(a) * fp32_sig(b) computed by the caller: a unit that already has a wide
  // multiplier (the store's requantization, the lane's layer-norm product) gives it, so no second
  // one is built. The value is prod * 2^(ea + eb - 300) (ea, eb the exponent fields, 1 for a
  // subnormal); kept is it in units of the result's last place (of 2^-149 when subnormal).
  function automatic logic [31:0] fp32_mul_with(logic [31:0] a, logic [31:0] b, logic [47:0] prod);
    logic               a_nan, b_nan, a_inf, b_inf, a_zero, b_zero, sign, guard, sticky;
    logic [8:0]         ea, eb;
    logic [5:0]         p;
    logic signed [10:0] lead;   // the biased exponent of prod's leading one
    logic signed [10:0] sh;     // right shift (negative: left) from prod to kept
    logic [7:0]         rs;
    /* verilator lint_off UNUSEDSIGNAL */
    logic [47:0]        kept48;  // below 2^25: the top bits are zero
    /* verilator lint_on UNUSEDSIGNAL */
    logic [24:0]        rounded;
    a_nan  = a[30:23] == 8'hff && a[22:0] != '0;
    b_nan  = b[30:23] == 8'hff && b[22:0] != '0;
    a_inf  = a[30:23] == 8'hff && a[22:0] == '0;
    b_inf  = b[30:23] == 8'hff && b[22:0] == '0;
    a_zero = a[30:0] == '0;
    b_zero = b[30:0] == '0;
    sign   = a[31] ^ b[31];
    ea     = (a[30:23] == '0) ? 9'd1 : {1'b0, a[30:23]};
    eb     = (b[30:23] == '0) ? 9'd1 : {1'b0, b[30:23]};
    p      = '0;
    for (int i = 0; i < 48; i++) begin
      if (prod[i]) p = 6'(i);
    end
    lead = 11'(p) + 11'(ea) + 11'(eb) - 11'sd173;
    sh   = (lead >= 11'sd1) ? 11'(p) - 11'sd23 : 11'sd151 - 11'(ea) - 11'(eb);
    if (sh <= 11'sd0) begin  // exact: the product has room below its leading one
      kept48 = prod << 6'(-sh);
      guard  = 1'b0;
      sticky = 1'b0;
    end else begin
      rs     = (sh > 11'sd49) ? 8'd49 : 8'(sh);
      kept48 = prod >> rs;
      guard  = 1'((prod >> (rs - 8'd1)) & 48'd1);
      sticky = (prod & ((48'd1 << (rs - 8'd1)) - 48'd1)) != '0;
    end
    rounded = 25'(kept48) + 25'(guard && (sticky || kept48[0]));
    unique case (product_case(a_nan, b_nan, a_inf, b_inf, a_zero, b_zero))
      2'd1:    fp32_mul_with = Fp32QNaN;
      2'd2:    fp32_mul_with = {sign, 8'hff, 23'd0};
      2'd3:    fp32_mul_with = {sign, 31'd0};
      default: fp32_mul_with = fp32_mul_finite(sign, lead, rounded);
    endcase
  endfunction

  function automatic logic [31:0] fp32_mul(logic [31:0] a, logic [31:0] b);
    fp32_mul = fp32_mul_with(a, b, 48'(fp32_sig(a)) * 48'(fp32_sig(b)));
  endfunction

  // ---------------------------------------------------------------- LAYER_NORM in fp16 mode
  // (hw/include/weft/hw/layer_norm_fp16.h.) v = sig * 2^(ex - 150) with its exponent made even:
  // V * 2^(2 * half_e), V = sig or 2 sig, below 2^25; weft_vec_rsqrt takes V's square root and
  // reciprocal as the quant8 path's V, and ln_rstd_of rounds r to binary32.
  function automatic logic [24:0] ln_rsqrt_operand(logic [31:0] v);
    ln_rsqrt_operand = (v[30:23] == '0 || v[23]) ? {fp32_sig(v), 1'b0} : {1'b0, fp32_sig(v)};
  endfunction

  function automatic logic signed [7:0] ln_rsqrt_half_e(logic [7:0] e);  // v's exponent field
    logic signed [9:0] ex;
    ex = (e == '0) ? 10'sd1 : 10'(e);
    ln_rsqrt_half_e = 8'((ex - (ex[0] ? 10'sd151 : 10'sd150)) >>> 1);
  endfunction

  // 1/sqrt(v) = r * 2^(k - 61 - half_e), r = floor(2^61 / isqrt(V << 2k)) in (2^29, 2^30], r
  // rounded to 24 bits; special: 0 a normal v, 1 +0 (v zero or +infinity), 2 the NaN (v a NaN or
  // negative).
  function automatic logic [31:0] ln_rstd_of(logic [31:0] r, logic [4:0] k, logic signed [7:0] half_e,
                                          logic [1:0] special);
    logic [24:0] r24;
    r24 = 25'(r >> 6) + 25'(r[5] && (r[4:0] != '0 || r[6]));
    if (special == 2'd2) ln_rstd_of = Fp32QNaN;
    else if (special == 2'd1) ln_rstd_of = 32'd0;
    else ln_rstd_of = 32'({8'(10'(k) + 10'sd94 - 10'(half_e)), 23'd0}) + 32'(r24);
  endfunction

endpackage
