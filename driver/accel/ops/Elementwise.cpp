// ADD, SUB and MUL on the vector unit (EltwiseLayer): quant8 asymmetric or signed, tensors of
// rank up to 4 with NNAPI's broadcasting, fused NONE/RELU/RELU1/RELU6. The arithmetic is
// TFLite's, as the reference kernels have it: ADD and SUB rescale both inputs to twice the larger
// input scale with 20 bits of headroom (SUB negates the second multiplier) and the STORE rescales
// the sum to the output; MUL multiplies the zero-point-adjusted inputs and the STORE rescales.
// With the fp16 datapath ADD, SUB and MUL also take TENSOR_FLOAT16 (and relaxed TENSOR_FLOAT32):
// the lanes add the two values widened to binary32 (SUB: the second's sign flipped, by a
// negative b_mult as in the quant8 SUB), or multiply them exactly, and the STORE rounds to
// binary16 and clamps to the activation (ELTWISE and STORE fp16). DIV by one constant value is a
// MUL by its reciprocal on the fp16 datapath (lowerFp16Division).
#include <algorithm>
#include <cstring>

#include "../ModelAccess.h"
#include "weft/hw/fp16.h"

#include "EltwiseLayer.h"
#include "Families.h"

namespace weft::accel {
namespace {

// The product of a multiplier below 1 (TFLite's QuantizeMultiplierSmallerThanOneExp).
nn::Result<QuantizedMultiplier> smallerThanOne(const OperationReader& r, double real, const char* what) {
  auto q = quantizeMultiplier(real);
  if (!(real > 0.0 && real < 1.0) || !q || q->shift > 0) {
    return r.fail("the {} multiplier {} is not in (0, 1)", what, real);
  }
  return *q;
}

// NNAPI broadcasting: trailing dimensions aligned, each equal or 1.
nn::Result<nn::Dimensions> broadcastDims(const OperationReader& r, const nn::Operand& a, const nn::Operand& b) {
  const size_t rank = std::max(a.dimensions.size(), b.dimensions.size());
  nn::Dimensions dims(rank);
  for (size_t i = 0; i < rank; ++i) {
    const auto dim = [&](const nn::Dimensions& d) { return i + d.size() >= rank ? d[i + d.size() - rank] : 1u; };
    const uint32_t x = dim(a.dimensions), y = dim(b.dimensions);
    if (x != y && x != 1 && y != 1) return r.fail("dimensions {} and {} do not broadcast", x, y);
    dims[i] = std::max(x, y);
  }
  if (nn::numberOfElements(dims) == 0) return r.fail("empty tensors are not supported");
  NN_TRY(r.checkOutputDims(dims));
  return dims;
}

// The layer over a and b broadcast to `dims`, its shapes counting `valueBytes` bytes a value.
LoweredOperation binaryLayer(const OperationReader& r, uint32_t index, EltwiseMath m, const nn::Dimensions& dims,
                             uint32_t valueBytes) {
  const auto& op = r.op();
  const auto& a = r.input(0);
  const auto& b = r.input(1);
  auto layer = std::make_shared<EltwiseLayer>();
  layer->operationIndex = index;
  layer->type = op.type;
  layer->valueType = m.aType;
  layer->math = std::move(m);
  // Without broadcasting, element i of each tensor goes with element i of the others, in any
  // layout they share; a single element broadcast to all of them has no layout either.
  auto single = [](const nn::Dimensions& d) {
    return std::all_of(d.begin(), d.end(), [](uint32_t n) { return n == 1; });
  };
  const bool anyOrder = dims.size() == 4 && (a.dimensions == dims || single(a.dimensions)) &&
                        (b.dimensions == dims || single(b.dimensions));
  // Broadcasting, 4-D tensors may still be kept as their neighbours keep them: NCHW tensors are
  // NHWC images of [N, H, W, C], each logical axis on one image axis, so broadcasting carries over
  // (EltwiseLayer::keptInNchw). An operand of lower rank is dense bytes, which are in the image's
  // order too when it is one channel or one pixel (a batch norm's [C, 1, 1] scale, a squeeze-and-
  // excitation's [N, C, 1, 1] gate is 4-D). Else the 4-D tensors are NHWC images, as before.
  const auto keepsOrder = [](const nn::Dimensions& d) {
    const ImageShape p = paddedImage(d);  // N, C, H, W
    return d.size() == 4 || p.height == 1 || uint64_t{p.width} * p.channels == 1;
  };
  const bool eitherLayout = dims.size() == 4 && keepsOrder(a.dimensions) && keepsOrder(b.dimensions);
  auto layout = [&](const nn::Dimensions& d) {
    if (anyOrder) return d == dims ? DataLayout::kAny : DataLayout::kFlat;
    if (eitherLayout) return d.size() == 4 ? DataLayout::kAny : DataLayout::kFlat;
    return elementwiseLayout(d);
  };
  auto image = [&](const nn::Dimensions& d) {
    ImageShape s = paddedImage(d);
    s.channels *= valueBytes;
    return s;
  };
  layer->inputs = {{op.inputs[0], image(a.dimensions), layout(a.dimensions)},
                   {op.inputs[1], image(b.dimensions), layout(b.dimensions)}};
  layer->outputs = {{op.outputs[0], image(dims), layout(dims)}};
  LoweredLayer lo;
  lo.work = std::move(layer);
  lo.outputDims = dims;
  return LoweredOperation(std::move(lo));
}

// An fp16 layer's math and output dimensions: the lanes' operation, the fused activation's
// binary16 bounds, NNAPI's broadcasting of inputs 0 and 1.
nn::Result<std::pair<EltwiseMath, nn::Dimensions>> fp16Math(const OperationReader& r, hw::EltKind kind,
                                                            int32_t bMult) {
  auto act = r.int32Param(2, "fused activation");
  if (!act.ok()) return act.error();
  auto clamp = r.fp16Clamp(*act);
  if (!clamp.ok()) return clamp.error();
  auto dims = broadcastDims(r, r.input(0), r.input(1));
  if (!dims.ok()) return dims.error();
  EltwiseMath m;
  m.kind = kind;
  m.bMult = bMult;
  m.aType = m.bType = ElementType::kFloat16;
  m.clamp = *clamp;  // the parameter row's bias is 0 (+0.0)
  return std::make_pair(std::move(m), std::move(dims).value());
}

nn::Result<LoweredOperation> lowerFp16Binary(const OperationReader& r, uint32_t index) {
  const auto& op = r.op();
  const auto& a = r.input(0);
  const auto& b = r.input(1);
  NN_TRY(r.halfTensor(a, "first input", 0, 4));
  NN_TRY(r.halfTensor(b, "second input", 0, 4));
  NN_TRY(r.sameType(a, b, "inputs"));
  NN_TRY(r.sameType(a, r.output(0), "input and output"));
  auto math = fp16Math(r, op.type == nn::OperationType::MUL ? hw::EltKind::kMul : hw::EltKind::kAdd,
                       op.type == nn::OperationType::SUB ? -1 : 1);
  if (!math.ok()) return math.error();
  return binaryLayer(r, index, std::move(math->first), math->second, 2);
}

// DIV by one constant value (attention's scaling by sqrt(d), a normalization) on the fp16
// datapath: the lanes multiply by the divisor's reciprocal, rounded to binary16 when the model
// compiles. x * rn(1/c) rounded to binary16 is within about one unit in the last place of rn(x/c)
// (exact for powers of two); the reference divides in binary32. NNAPI has no 8-bit DIV.
nn::Result<LoweredOperation> lowerFp16Division(const OperationReader& r, uint32_t index) {
  const auto& a = r.input(0);
  const auto& b = r.input(1);
  NN_TRY(r.halfTensor(a, "dividend", 0, 4));
  NN_TRY(r.sameType(a, r.output(0), "dividend and output"));
  const uint8_t* bytes = constantBytes(r.model(), b);
  if (!r.halfType(b) || b.type != a.type || bytes == nullptr || nn::numberOfElements(b.dimensions) != 1) {
    return r.fail("only a division by one constant value runs on the accelerator (a multiplication by its "
                  "reciprocal); this divisor is given at execution or has several values");
  }
  float divisor;
  if (b.type == nn::OperandType::TENSOR_FLOAT16) {
    if (b.location.length < 2) return r.fail("the divisor's value is too short");
    const uint32_t bits = hw::fp::fp16ToFp32(static_cast<uint16_t>(bytes[0] | bytes[1] << 8));
    std::memcpy(&divisor, &bits, 4);
  } else {
    if (b.location.length < 4) return r.fail("the divisor's value is too short");
    std::memcpy(&divisor, bytes, 4);
  }
  auto math = fp16Math(r, hw::EltKind::kMul, 1);
  if (!math.ok()) return math.error();
  LoweredOperation lowered = binaryLayer(r, index, std::move(math->first), math->second, 2);
  auto& layer = static_cast<EltwiseLayer&>(*lowered.layers.front().vector());
  layer.inputs.pop_back();  // the divisor is the layer's own constant
  const uint16_t reciprocal = hw::fp::fp32ToFp16(hw::fp::bitsOf(1.0f / divisor));
  layer.constantB = {static_cast<uint8_t>(reciprocal), static_cast<uint8_t>(reciprocal >> 8)};
  layer.constantBShape = ImageShape{1, 1, 1, 2};
  return lowered;
}

}  // namespace

nn::Result<LoweredOperation> lowerBinaryArithmetic(const OperationReader& r, uint32_t index, bool) {
  const auto& op = r.op();
  NN_TRY(r.expectCounts({3}, 1));
  const auto& a = r.input(0);
  const auto& b = r.input(1);
  const auto& out = r.output(0);
  if (op.type == nn::OperationType::DIV) {
    if (!r.halfType(a)) return r.fail("the accelerator divides binary16 values only (NNAPI has no 8-bit DIV)");
    return lowerFp16Division(r, index);
  }
  if (r.halfType(a)) return lowerFp16Binary(r, index);
  NN_TRY(r.quant8Tensor(a, "first input", 0, 4));
  NN_TRY(r.quant8Tensor(b, "second input", 0, 4));
  NN_TRY(r.sameType(a, b, "inputs"));
  NN_TRY(r.sameType(a, out, "input and output"));
  if (!(out.scale > 0)) return r.fail("output scale must be positive");
  auto act = r.int32Param(2, "fused activation");
  if (!act.ok()) return act.error();
  auto clamp = r.activationClamp(*act, out);
  if (!clamp.ok()) return clamp.error();
  auto dims = broadcastDims(r, a, b);
  if (!dims.ok()) return dims.error();

  EltwiseMath m;
  m.aType = m.bType = quant8(isSignedType(a.type));
  m.aZp = a.zeroPoint;
  m.bZp = b.zeroPoint;
  m.outZp = out.zeroPoint;
  m.clamp = *clamp;
  if (op.type == nn::OperationType::MUL) {
    m.kind = hw::EltKind::kMul;
    auto q = quantizeMultiplier(static_cast<double>(a.scale) * b.scale / out.scale);
    if (!q) return r.fail("the output multiplier is out of the hardware's range");
    m.column = hw::ColumnParams{0, q->multiplier, static_cast<int8_t>(q->shift)};
  } else {
    constexpr int kLeftShift = 20;
    m.kind = hw::EltKind::kAdd;
    const double twiceMax = 2.0 * std::max(a.scale, b.scale);
    auto qa = smallerThanOne(r, a.scale / twiceMax, "first input");
    if (!qa.ok()) return qa.error();
    auto qb = smallerThanOne(r, b.scale / twiceMax, "second input");
    if (!qb.ok()) return qb.error();
    auto qo = smallerThanOne(r, twiceMax / ((1 << kLeftShift) * static_cast<double>(out.scale)), "output");
    if (!qo.ok()) return qo.error();
    m.leftShift = kLeftShift;
    m.aMult = qa->multiplier;
    m.aShift = qa->shift;
    m.bMult = op.type == nn::OperationType::SUB ? -qb->multiplier : qb->multiplier;
    m.bShift = qb->shift;
    m.column = hw::ColumnParams{0, qo->multiplier, static_cast<int8_t>(qo->shift)};
  }
  return binaryLayer(r, index, std::move(m), *dims, 1);
}

}  // namespace weft::accel
