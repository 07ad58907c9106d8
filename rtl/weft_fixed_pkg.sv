// gemmlowp's 32-bit fixed-point arithmetic, bit-exact with hw/include/weft/hw/postproc.h and
// hw/include/weft/hw/vector_ops.h (and so with NNAPI's reference kernels): the vector unit's
// requantization, averaging and softmax are built from these.
package weft_fixed_pkg;

  // The 64-bit product of a saturating rounding doubling high multiply and its one overflow
  // case (both operands INT32_MIN); srdhm_round() finishes it. Split so a pipeline can register
  // the product.
  function automatic logic signed [63:0] srdhm_product(logic [31:0] a, logic [31:0] b);
    srdhm_product = $signed({{32{a[31]}}, a}) * $signed({{32{b[31]}}, b});
  endfunction

  function automatic logic srdhm_saturates(logic [31:0] a, logic [31:0] b);
    srdhm_saturates = a == 32'h8000_0000 && b == 32'h8000_0000;
  endfunction

  // (ab + nudge) / 2^31 rounded toward zero, like C++ integer division (gemmlowp).
  function automatic logic [31:0] srdhm_round(logic signed [63:0] ab, logic saturates);
    logic signed [63:0] nudged;
    /* verilator lint_off UNUSEDSIGNAL */
    logic signed [63:0] quotient;  // fits 32 bits except in the saturating case
    /* verilator lint_on UNUSEDSIGNAL */
    nudged   = ab + ((ab >= 0) ? 64'sd1073741824 : -64'sd1073741823);
    quotient = (nudged + ((nudged < 0) ? 64'sd2147483647 : 64'sd0)) >>> 31;
    srdhm_round = saturates ? 32'h7fff_ffff : quotient[31:0];
  endfunction

  function automatic logic [31:0] srdhm(logic [31:0] a, logic [31:0] b);
    srdhm = srdhm_round(srdhm_product(a, b), srdhm_saturates(a, b));
  endfunction

  // A 64-bit x / 2^e rounded to nearest, ties away from zero, low 32 bits of the quotient
  // (LAYER_NORM's output, vector_ops.h roundingDivideByPOT64Wide; what fits 32 bits), e in [0, 63].
  function automatic logic [31:0] rdbpot64(logic signed [63:0] x, logic [5:0] e);
    logic signed [63:0] mask, rem, thr;
    /* verilator lint_off UNUSEDSIGNAL */
    logic signed [63:0] q;  // the quotient fits 32 bits (|out| < 2^28)
    /* verilator lint_on UNUSEDSIGNAL */
    mask = (64'sd1 <<< e) - 64'sd1;
    rem  = x & mask;
    thr  = (mask >>> 1) + ((x < 0) ? 64'sd1 : 64'sd0);
    q    = (x >>> e) + ((rem > thr) ? 64'sd1 : 64'sd0);
    rdbpot64 = q[31:0];
  endfunction

  // x / 2^e rounded to nearest, ties away from zero, for e in [0, 63] (gemmlowp's
  // RoundingDivideByPOT, widened so exponents past 31 stay defined).
  function automatic logic [31:0] rdbpot(logic [31:0] x, logic [5:0] e);
    rdbpot = rdbpot64($signed({{32{x[31]}}, x}), e);
  endfunction

  // x * 2^e saturated to int32, for e in 1..30 (SaturatingRoundingMultiplyByPOT<e>).
  function automatic logic [31:0] sat_shl(logic [31:0] x, int unsigned e);
    logic signed [31:0] thr;
    thr = $signed((32'd1 << (31 - e)) - 32'd1);
    if ($signed(x) > thr) sat_shl = 32'h7fff_ffff;
    else if ($signed(x) < -thr) sat_shl = 32'h8000_0000;
    else sat_shl = x << e;
  endfunction

  // (a + b) / 2 rounded to nearest, ties away from zero.
  function automatic logic [31:0] rounding_half_sum(logic [31:0] a, logic [31:0] b);
    logic signed [63:0] sum;
    /* verilator lint_off UNUSEDSIGNAL */
    logic signed [63:0] half;
    /* verilator lint_on UNUSEDSIGNAL */
    sum  = $signed({{32{a[31]}}, a}) + $signed({{32{b[31]}}, b});
    half = (sum + ((sum >= 0) ? 64'sd1 : -64'sd1)) / 64'sd2;
    rounding_half_sum = half[31:0];
  endfunction

  // Leading zeros of a 32-bit word (32 for zero): the highest set bit is the last one found.
  function automatic logic [5:0] clz32(logic [31:0] x);
    clz32 = 6'd32;
    for (int i = 0; i < 32; i++) begin
      if (x[i]) clz32 = 6'd31 - i[5:0];
    end
  endfunction

  // The STORE's requantization (postproc.h requantize): shift saturated to [-31, 31],
  // v << left (wrapping), srdhm by the multiplier, rounding divide by 2^right.
  function automatic logic [31:0] requantize(logic [31:0] v, logic [31:0] mult, logic [5:0] shift);
    logic signed [5:0] s;
    s = $signed(shift);
    if (s == -6'sd32) s = -6'sd31;
    if (s > 6'sd0) requantize = srdhm(v << s[4:0], mult);
    else requantize = rdbpot(srdhm(v, mult), -s);
  endfunction


endpackage
