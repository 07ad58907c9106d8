// RELU, RELU1, RELU6, LOGISTIC, TANH, RSQRT, PRELU of one slope (LeakyReLU, nn.PReLU()),
// MAXIMUM and MINIMUM by a one-value constant (8-bit) and
// org.weft.accel's WEFT_GELU (exact or tanh form) and WEFT_UNARY (EXP, LOG, SQRT, ABS, SIN, NEG,
// SOFTPLUS, RECIPROCAL; 8-bit only)
// on the vector unit (EltwiseLayer, kind lut): quant8
// asymmetric or signed tensors of rank up to 4. The output of an 8-bit unary operation is a
// function of the input byte alone, so the lookup table holds the reference kernel's output for
// each of the 256 bytes (ops/ReferenceTables.h): bit-identical to the CPU by construction, with
// whatever requantization or output quantization rules the operation has.
//
// With the fp16 datapath they also take TENSOR_FLOAT16 (and relaxed TENSOR_FLOAT32): the lookup
// then holds 256 linear pieces, one per sign, exponent and top two fraction bits of a binary16
// value (ELTWISE fp16; not RSQRT, whose curvature near 0 no piece follows closely enough). The
// RELUs are linear on every piece, so exact; LOGISTIC and TANH are
// within 0.003 of the function (a piece's error is its width squared times the curvature / 8:
// widest where the curve is flattest), inside NNAPI's float16 tolerance; GELU within 0.002 (its
// curvature peaks at 0.8 at zero, where the pieces are narrowest; past |x| = 4 it is a line or 0).
#include <cmath>
#include <cstring>
#include <functional>

#include "EltwiseLayer.h"
#include "Families.h"
#include "ReferenceTables.h"
#include "../ModelAccess.h"
#include "weft/hw/fp16.h"
#include "weft/kernels/CpuExecutor.h"
#include "weft/kernels/Extensions.h"

namespace weft::accel {
namespace {

// The pieces of f on binary16 values: entry hb (the value's high byte) holds f at the piece's
// first value (low half) and its slope per unit of the low byte (high half), both binary16. The
// pieces of exponent 31 hold f(+-infinity), or a NaN where every value is one.
std::vector<int32_t> fp16Pieces(const std::function<double(double)>& f) {
  namespace fp = hw::fp;
  auto half = [](double v) { return fp::fp32ToFp16(fp::bitsOf(static_cast<float>(v))); };
  std::vector<int32_t> lut(hw::micro::kLutEntries);
  for (uint32_t hb = 0; hb < lut.size(); ++hb) {
    const auto first = static_cast<uint16_t>(hb << 8), last = static_cast<uint16_t>(first | 0xff);
    uint16_t start = 0, slope = 0;
    if (((hb >> 2) & 0x1f) == 0x1f) {
      start = (hb & 3) != 0 ? fp::kFp16QuietNaN : half(f(fp::fp16Value(first)));
    } else {
      const double y0 = f(fp::fp16Value(first)), y1 = f(fp::fp16Value(last));
      start = half(y0);
      slope = half((y1 - y0) / 255);
    }
    lut[hb] = static_cast<int32_t>(uint32_t{slope} << 16 | start);
  }
  return lut;
}

bool isGelu(const OperationReader& r) {
  return weftExtensionCode(r.model(), r.op().type) == nn::weft_extension::kGelu;
}
bool isUnary(const OperationReader& r) {
  return weftExtensionCode(r.model(), r.op().type) == nn::weft_extension::kUnary;
}

// The operation's one parameter beyond its input, as the reference kernels take it: WEFT_GELU's
// optional form (WEFT_GELU_EXACT when omitted) or WEFT_UNARY's function, which must be known at
// compilation.
nn::Result<std::vector<int32_t>> scalarParams(const OperationReader& r) {
  if (isUnary(r)) {
    auto function = r.int32Param(1, "function");
    if (!function.ok()) return function.error();
    return std::vector<int32_t>{*function};
  }
  if (!isGelu(r)) return std::vector<int32_t>{};
  if (r.op().inputs.size() < 2 || r.input(1).lifetime == nn::Operand::LifeTime::NO_VALUE) {
    return std::vector<int32_t>{nn::weft_extension::kGeluExact};
  }
  auto form = r.int32Param(1, "approximation");
  if (!form.ok()) return form.error();
  return std::vector<int32_t>{*form};
}

nn::Result<std::function<double(double)>> fp16Function(const OperationReader& r, const std::vector<int32_t>& params) {
  if (isUnary(r)) {
    // exp's pieces a quarter of an octave wide are off by up to a quarter of the value past 8.
    return r.fail("WEFT_UNARY of binary16 values (256 linear pieces do not follow these functions closely enough; "
                  "8-bit only)");
  }
  if (isGelu(r)) {
    const bool tanhForm = params.at(0) == nn::weft_extension::kGeluTanh;
    return std::function<double(double)>([tanhForm](double x) { return nn::weft_gelu::gelu(x, tanhForm); });
  }
  switch (r.op().type) {
    case nn::OperationType::RELU: return std::function<double(double)>([](double x) { return std::max(0.0, x); });
    case nn::OperationType::RELU1:
      return std::function<double(double)>([](double x) { return std::clamp(x, -1.0, 1.0); });
    case nn::OperationType::RELU6:
      return std::function<double(double)>([](double x) { return std::clamp(x, 0.0, 6.0); });
    case nn::OperationType::LOGISTIC:
      return std::function<double(double)>([](double x) { return 1.0 / (1.0 + std::exp(-x)); });
    case nn::OperationType::TANH: return std::function<double(double)>([](double x) { return std::tanh(x); });
    case nn::OperationType::RSQRT:
      return r.fail("RSQRT of binary16 values (256 linear pieces do not follow 1/sqrt near 0; 8-bit only)");
    default: return r.fail("not an activation");
  }
}

// The lookup layer of `m` reading operand `input` of `dims` (binary16 when m.aType is) into the
// operation's output 0.
LoweredOperation lookupLayer(const OperationReader& r, uint32_t index, uint32_t input, const nn::Dimensions& dims,
                             EltwiseMath m) {
  auto layer = std::make_shared<EltwiseLayer>();
  layer->operationIndex = index;
  layer->type = r.op().type;
  layer->valueType = m.aType;
  const bool half = m.aType == ElementType::kFloat16;
  layer->math = std::move(m);
  const DataLayout layout = dims.size() == 4 ? DataLayout::kAny : DataLayout::kFlat;
  ImageShape shape = paddedImage(dims);
  if (half) shape.channels *= 2;  // two bytes a value
  layer->inputs = {{input, shape, layout}};
  layer->outputs = {{r.op().outputs[0], shape, layout}};
  LoweredLayer lo;
  lo.work = std::move(layer);
  lo.outputDims = dims;
  return LoweredOperation(std::move(lo));
}

// An 8-bit table's math: `table` looked up, the output's whole range.
EltwiseMath quant8Lookup(const nn::Operand& in, const nn::Operand& out, std::vector<int32_t> table) {
  EltwiseMath m;
  m.kind = hw::EltKind::kLut;
  m.aType = quant8(isSignedType(in.type));
  m.lut = std::move(table);
  const bool isSigned = isSignedType(out.type);
  m.clamp = ClampRange{isSigned ? -128 : 0, isSigned ? 127 : 255};
  return m;
}

nn::Result<LoweredOperation> lowerFp16Activation(const OperationReader& r, uint32_t index,
                                                 const std::vector<int32_t>& params) {
  const auto& op = r.op();
  const auto& in = r.input(0);
  const auto& out = r.output(0);
  NN_TRY(r.halfTensor(in, "input", 0, 4));
  NN_TRY(r.sameType(in, out, "input and output"));
  NN_TRY(r.checkOutputDims(in.dimensions));
  auto f = fp16Function(r, params);
  if (!f.ok()) return f.error();
  EltwiseMath m;
  m.kind = hw::EltKind::kLut;
  m.aType = ElementType::kFloat16;
  m.lut = fp16Pieces(*f);
  m.clamp = *r.fp16Clamp(0);  // none: the pieces are the function
  return lookupLayer(r, index, op.inputs[0], in.dimensions, std::move(m));
}

// An 8-bit binary operation of input `x` and a one-value constant `c` (PRELU's slope, a MAXIMUM's
// or MINIMUM's bound): a function of the input byte, a table the reference kernel fills with the
// constant as its second operand, seen as [1] so that it broadcasts over the table's [256].
nn::Result<LoweredOperation> oneConstantLookup(const OperationReader& r, uint32_t index, uint32_t x,
                                               const nn::Operand& c, const uint8_t* value) {
  const auto& in = r.input(x);
  const auto& out = r.output(0);
  NN_TRY(r.quant8Tensor(in, "input", 0, 4));
  NN_TRY(r.sameType(in, out, "input and output"));
  if (!(out.scale > 0)) return r.fail("output scale must be positive");
  NN_TRY(r.checkOutputDims(in.dimensions));
  nn::Operand one = c;
  one.dimensions = {1};
  auto table = unaryTable(r.op().type, in, out, {}, r.model().extensionNameToPrefix, {256},
                          {ConstantInput{one, std::vector<uint8_t>(value, value + 1)}});
  if (!table.ok()) return r.fail("the reference kernel rejects it: {}", table.error().message);
  return lookupLayer(r, index, r.op().inputs[x], in.dimensions, quant8Lookup(in, out, std::move(table).value()));
}

// MAXIMUM or MINIMUM of a value and a one-value constant (Clip's bounds: Hardtanh, clamp, the max(x,
// 0) of CELU and SELU), on 8-bit values (the constant either side: both commute).
nn::Result<LoweredOperation> lowerBound(const OperationReader& r, uint32_t index) {
  if (nn::Status valid = nn::validateOperation(r.model(), r.model().main, r.op()); !valid.ok()) {
    return r.fail("{}", valid.error().message);
  }
  const uint32_t x = constantBytes(r.model(), r.input(0)) != nullptr ? 1 : 0;
  const auto& bound = r.input(1 - x);
  const uint8_t* value = constantBytes(r.model(), bound);
  if (value == nullptr || nn::numberOfElements(bound.dimensions) != 1) {
    return r.fail("of two tensors (a one-value constant bound is a lookup table; two tensors are not)");
  }
  return oneConstantLookup(r, index, x, bound, value);
}

// PRELU whose slope is one constant value (LeakyReLU, PyTorch's nn.PReLU() of one parameter): its
// output is a function of the input byte, a table the reference kernel fills; float16, two linear
// pieces joined at 0. A slope by channel (nn.PReLU(C)) is not one function of the byte.
nn::Result<LoweredOperation> lowerPrelu(const OperationReader& r, uint32_t index) {
  if (nn::Status valid = nn::validateOperation(r.model(), r.model().main, r.op()); !valid.ok()) {
    return r.fail("{}", valid.error().message);
  }
  const auto& in = r.input(0);
  const auto& alpha = r.input(1);
  if (nn::numberOfElements(alpha.dimensions) != 1) {
    return r.fail("a slope of {} values (one by channel is not one function of the input byte)",
                  nn::numberOfElements(alpha.dimensions));
  }
  const uint8_t* slope = constantBytes(r.model(), alpha);
  if (slope == nullptr) return r.fail("its slope is given at execution: the model is compiled when it is");
  if (!r.halfType(in)) return oneConstantLookup(r, index, 0, alpha, slope);
  NN_TRY(r.halfTensor(in, "input", 0, 4));
  NN_TRY(r.sameType(in, r.output(0), "input and output"));
  NN_TRY(r.checkOutputDims(in.dimensions));
  double a;
  if (alpha.type == nn::OperandType::TENSOR_FLOAT16) {
    uint16_t bits;
    std::memcpy(&bits, slope, 2);
    a = hw::fp::fp16Value(bits);
  } else {
    float f;
    std::memcpy(&f, slope, 4);
    a = f;
  }
  EltwiseMath m;
  m.kind = hw::EltKind::kLut;
  m.aType = ElementType::kFloat16;
  m.lut = fp16Pieces([a](double x) { return x >= 0 ? x : a * x; });
  m.clamp = *r.fp16Clamp(0);
  return lookupLayer(r, index, r.op().inputs[0], in.dimensions, std::move(m));
}

}  // namespace

nn::Result<LoweredOperation> lowerActivation(const OperationReader& r, uint32_t index, bool) {
  if (r.op().type == nn::OperationType::PRELU) return lowerPrelu(r, index);
  if (r.op().type == nn::OperationType::MAXIMUM || r.op().type == nn::OperationType::MINIMUM) return lowerBound(r, index);
  const auto& op = r.op();
  if (isGelu(r) || isUnary(r)) {
    // An extension operation: its operand rules are the reference kernel's, so that both devices
    // accept the same models.
    if (nn::Status valid = nn::validateOperation(r.model(), r.model().main, op); !valid.ok()) {
      return r.fail("{}", valid.error().message);
    }
  } else {
    NN_TRY(r.expectCounts({1}, 1));
  }
  auto params = scalarParams(r);
  if (!params.ok()) return params.error();
  const auto& in = r.input(0);
  const auto& out = r.output(0);
  if (r.halfType(in)) return lowerFp16Activation(r, index, *params);
  NN_TRY(r.quant8Tensor(in, "input", 0, 4));
  NN_TRY(r.sameType(in, out, "input and output"));
  if (!(out.scale > 0)) return r.fail("output scale must be positive");
  NN_TRY(r.checkOutputDims(in.dimensions));
  // The reference kernel's own checks (e.g. LOGISTIC's output scale 1/256) fail here too.
  auto table = unaryTable(op.type, in, out, *params, r.model().extensionNameToPrefix);
  if (!table.ok()) return r.fail("the reference kernel rejects it: {}", table.error().message);
  return lookupLayer(r, index, op.inputs[0], in.dimensions, quant8Lookup(in, out, std::move(table).value()));
}

}  // namespace weft::accel
