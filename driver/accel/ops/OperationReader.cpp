#include "OperationReader.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <stdexcept>

#include "weft/hw/fp16.h"
#include "weft/kernels/OperationResolver.h"

namespace weft::accel {

using nn::OperandType;

bool isQuant8Activation(OperandType t) {
  return t == OperandType::TENSOR_QUANT8_ASYMM || t == OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
}

bool isSignedType(OperandType t) { return t != OperandType::TENSOR_QUANT8_ASYMM; }

namespace {

bool zeroPointFits(int32_t zp, OperandType t) {
  if (t == OperandType::TENSOR_QUANT8_ASYMM_SIGNED) return zp >= -128 && zp <= 127;
  if (t == OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL) return zp == 0;
  return zp >= 0 && zp <= 255;
}

// An operation's name in refusals: an extension operation's own (WEFT_LAYER_NORM), not its
// type's (EXTENSION_OPERATION, which names no operation).
const char* operationName(const nn::Model& model, nn::OperationType type) {
  if (nn::isExtension(type)) {
    if (const nn::OperationRegistration* r = nn::OperationResolver::get().find(model, type)) return r->name;
  }
  return nn::toString(type);
}

}  // namespace

OperationReader::OperationReader(const nn::Model& model, uint32_t index, bool filterValues)
    : model_(model),
      op_(model.main.operations[index]),
      index_(index),
      name_(operationName(model, op_.type)),
      filterValues_(filterValues) {}

uint32_t OperationReader::intermediateOperand(uint32_t k) const {
  if (k >= kIntermediatesPerOperation) throw std::logic_error("a lowering made too many intermediate tensors");
  const uint64_t operand = model_.main.operands.size() + uint64_t{index_} * kIntermediatesPerOperation + k;
  if (operand > UINT32_MAX) throw std::logic_error("intermediate operand index out of range");
  return static_cast<uint32_t>(operand);
}

nn::Status OperationReader::checkIndexes() const {
  for (uint32_t i : op_.inputs) {
    if (i >= model_.main.operands.size()) return fail("input operand index {} out of range", i);
  }
  for (uint32_t i : op_.outputs) {
    if (i >= model_.main.operands.size()) return fail("output operand index {} out of range", i);
  }
  return {};
}

nn::Status OperationReader::expectCounts(std::initializer_list<size_t> inputs, size_t outputs) const {
  if (std::find(inputs.begin(), inputs.end(), op_.inputs.size()) == inputs.end()) {
    return fail("unexpected number of inputs {}", op_.inputs.size());
  }
  if (op_.outputs.size() != outputs) return fail("expects {} outputs, got {}", outputs, op_.outputs.size());
  return {};
}

nn::Result<int32_t> OperationReader::int32Param(uint32_t i, const char* what) const {
  const auto& o = input(i);
  if (o.type != OperandType::INT32) return fail("{} (input {}) must be INT32", what, i);
  auto v = constantScalar<int32_t>(model_, o);
  if (!v) return fail("{} (input {}) is not a constant", what, i);
  return *v;
}

nn::Result<bool> OperationReader::boolParam(uint32_t i, const char* what) const {
  const auto& o = input(i);
  if (o.type != OperandType::BOOL) return fail("{} (input {}) must be BOOL", what, i);
  auto v = constantScalar<uint8_t>(model_, o);
  if (!v) return fail("{} (input {}) is not a constant", what, i);
  return *v != 0;
}

nn::Result<float> OperationReader::floatParam(uint32_t i, const char* what) const {
  const auto& o = input(i);
  if (o.type != OperandType::FLOAT32) return fail("{} (input {}) must be FLOAT32", what, i);
  auto v = constantScalar<float>(model_, o);
  if (!v) return fail("{} (input {}) is not a constant", what, i);
  return *v;
}

nn::Result<uint16_t> OperationReader::halfParam(uint32_t i, const char* what) const {
  const auto& o = input(i);
  std::optional<uint16_t> bits;
  if (o.type == OperandType::FLOAT16) {
    bits = constantScalar<uint16_t>(model_, o);
  } else if (o.type == OperandType::FLOAT32) {
    if (auto f = constantScalar<float>(model_, o)) bits = hw::fp::fp32ToFp16(hw::fp::bitsOf(*f));
  } else {
    return fail("{} (input {}) must be FLOAT16 or FLOAT32", what, i);
  }
  if (!bits) return fail("{} (input {}) is not a constant", what, i);
  return *bits;
}

nn::Result<std::vector<int32_t>> OperationReader::int32Tensor(uint32_t i, const char* what) const {
  const auto& o = input(i);
  if (o.type != OperandType::TENSOR_INT32 || !isConstant(o)) {
    return fail("{} must be a constant TENSOR_INT32 (one given at execution is not supported)", what);
  }
  const uint64_t n = nn::numberOfElements(o.dimensions);
  const uint8_t* bytes = constantBytes(model_, o);
  if (bytes == nullptr || o.location.length < 4 * n) return fail("{} value is too short", what);
  std::vector<int32_t> v(n);
  std::memcpy(v.data(), bytes, 4 * n);
  return v;
}

nn::Status OperationReader::quant8Tensor(const nn::Operand& o, const char* what, size_t minRank,
                                         size_t maxRank) const {
  if (!isQuant8Activation(o.type)) {
    return fail("{} type {} is not supported (TENSOR_QUANT8_ASYMM or TENSOR_QUANT8_ASYMM_SIGNED only)", what,
                nn::toString(o.type));
  }
  if (o.dimensions.size() < minRank || o.dimensions.size() > maxRank) {
    return fail("{} rank {} is not in [{}, {}]", what, o.dimensions.size(), minRank, maxRank);
  }
  if (!nn::isFullySpecified(o.type, o.dimensions)) return fail("{} must be fully specified", what);
  if (!(o.scale > 0)) return fail("{} scale must be positive", what);
  if (!zeroPointFits(o.zeroPoint, o.type)) return fail("{} zero point is outside its type's range", what);
  return {};
}

bool OperationReader::halfType(const nn::Operand& o) const {
  return o.type == OperandType::TENSOR_FLOAT16 ||
         (o.type == OperandType::TENSOR_FLOAT32 && model_.relaxComputationFloat32toFloat16);
}

ElementType OperationReader::valueType(const nn::Operand& o) const {
  return halfType(o) ? ElementType::kFloat16 : quant8(isSignedType(o.type));
}

nn::Status OperationReader::halfTensor(const nn::Operand& o, const char* what, size_t minRank, size_t maxRank) const {
  if (!halfType(o)) {
    return fail("{} type {} is not computed in binary16 (TENSOR_FLOAT16, or TENSOR_FLOAT32 in a relaxed model)", what,
                nn::toString(o.type));
  }
  if (o.dimensions.size() < minRank || o.dimensions.size() > maxRank) {
    return fail("{} rank {} is not in [{}, {}]", what, o.dimensions.size(), minRank, maxRank);
  }
  if (!nn::isFullySpecified(o.type, o.dimensions)) return fail("{} must be fully specified", what);
  return {};
}

nn::Result<ClampRange> OperationReader::fp16Clamp(int32_t activation) const {
  static constexpr uint16_t kBounds[4][2] = {{0xfc00, 0x7c00}, {0x0000, 0x7c00}, {0xbc00, 0x3c00}, {0x0000, 0x4600}};
  if (activation < 0 || activation > 3) return fail("fused activation {} is not NONE, RELU, RELU1 or RELU6", activation);
  return ClampRange{static_cast<int16_t>(kBounds[activation][0]), static_cast<int16_t>(kBounds[activation][1])};
}

nn::Status OperationReader::sameType(const nn::Operand& a, const nn::Operand& b, const char* what) const {
  if (a.type != b.type) return fail("{} types differ ({} and {})", what, nn::toString(a.type), nn::toString(b.type));
  return {};
}

nn::Result<ClampRange> OperationReader::activationClamp(int32_t activation, const nn::Operand& o) const {
  auto clamp = activationRange(activation, o.type, o.scale, o.zeroPoint);
  if (!clamp) return fail("fused activation {} is not NONE, RELU, RELU1 or RELU6", activation);
  return *clamp;
}

nn::Result<ConvQuantization> OperationReader::convQuantization(uint32_t outChannels, uint64_t kSize,
                                                               int32_t activation, int perChannelDim,
                                                               bool checkBiasScale, bool withValues) const {
  const auto& in = input(0);
  const auto& w = input(1);
  const auto& bias = input(2);
  const auto& out = output(0);
  if (!isQuant8Activation(in.type)) {
    return fail("input type {} is not supported (TENSOR_QUANT8_ASYMM or TENSOR_QUANT8_ASYMM_SIGNED only)",
                nn::toString(in.type));
  }
  const bool perChannel = w.type == OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL;
  if (w.type != in.type && !(perChannel && perChannelDim >= 0)) {
    return fail("weights of type {} with input {} are not supported", nn::toString(w.type), nn::toString(in.type));
  }
  if (out.type != in.type) {
    return fail("output type {} differs from input type {}", nn::toString(out.type), nn::toString(in.type));
  }
  const bool wConstant = isConstant(w);
  if (!wConstant && !givenAtExecution(w)) return fail("weights have no value");
  if (!(in.scale > 0) || !(out.scale > 0)) return fail("input and output scales must be positive");
  if (!zeroPointFits(in.zeroPoint, in.type) || !zeroPointFits(out.zeroPoint, out.type) ||
      !zeroPointFits(w.zeroPoint, w.type)) {
    return fail("a zero point is outside its type's range");
  }
  const bool biasOmitted = isOmitted(bias);
  if (!biasOmitted) {
    if (bias.type != OperandType::TENSOR_INT32) return fail("bias must be TENSOR_INT32");
    if (!isConstant(bias) && !givenAtExecution(bias)) return fail("bias has no value");
    if (bias.dimensions.size() != 1 || bias.dimensions[0] != outChannels) {
      return fail("bias must have shape [{}]", outChannels);
    }
    if (isConstant(bias) && (bias.location.length < 4ull * outChannels || constantBytes(model_, bias) == nullptr)) {
      return fail("bias value is shorter than its shape");
    }
  }
  if (wConstant && (w.location.length < uint64_t{outChannels} * kSize || constantBytes(model_, w) == nullptr)) {
    return fail("weights value is shorter than its shape");
  }
  std::vector<float> filterScales(outChannels, w.scale);
  if (perChannel) {
    const auto* pc = std::get_if<nn::SymmPerChannelQuantParams>(&w.extraParams);
    if (pc == nullptr || pc->channelDim != static_cast<uint32_t>(perChannelDim) || pc->scales.size() != outChannels) {
      return fail("per-channel weights need channelDim {} and {} scales", perChannelDim, outChannels);
    }
    filterScales = pc->scales;
  } else if (!(w.scale > 0)) {
    return fail("weights scale must be positive");
  }
  ConvQuantization q;
  q.columns.assign(outChannels, {});
  for (uint32_t n = 0; n < outChannels; ++n) {
    if (!(filterScales[n] > 0)) return fail("weights scale of channel {} must be positive", n);
    if (checkBiasScale && !biasOmitted && !perChannel && !biasScaleMatches(in.scale, filterScales[n], bias.scale)) {
      return fail("bias scale {} is not input scale x weights scale {}", bias.scale, in.scale * filterScales[n]);
    }
    auto m = quantizeMultiplier(convolutionMultiplier(in.scale, filterScales[n], out.scale));
    if (!m) return fail("output multiplier of channel {} is out of the hardware's range", n);
    q.columns[n].multiplier = m->multiplier;
    q.columns[n].shift = static_cast<int8_t>(m->shift);
  }
  auto clamp = activationClamp(activation, out);
  if (!clamp.ok()) return clamp.error();
  q.clamp = *clamp;
  q.inZp = in.zeroPoint;
  q.wZp = w.zeroPoint;
  q.outZp = out.zeroPoint;
  q.inputType = quant8(isSignedType(in.type));
  q.weightType = quant8(isSignedType(w.type));
  q.outputType = quant8(isSignedType(out.type));
  if (!wConstant) q.runtimeWeights = op_.inputs[1];
  if (!biasOmitted && !isConstant(bias)) q.runtimeBias = op_.inputs[2];
  if (withValues && filterValues_) {
    if (wConstant) {
      const uint8_t* wBytes = constantBytes(model_, w);
      q.weights.assign(wBytes, wBytes + uint64_t{outChannels} * kSize);
    } else {
      q.weights.assign(uint64_t{outChannels} * kSize, static_cast<uint8_t>(w.zeroPoint));
    }
  }
  if (withValues) {
    if (!biasOmitted && isConstant(bias)) {
      const uint8_t* b = constantBytes(model_, bias);
      for (uint32_t n = 0; n < outChannels; ++n) std::memcpy(&q.columns[n].bias, b + 4 * n, 4);
    }
  }
  return q;
}

nn::Result<ConvQuantization> OperationReader::fp16Convolution(uint32_t outChannels, uint64_t kElements,
                                                              int32_t activation, bool withValues) const {
  const auto& in = input(0);
  const auto& w = input(1);
  const auto& bias = input(2);
  const auto& out = output(0);
  // TENSOR_FLOAT16, or TENSOR_FLOAT32 where the model lets float32 be computed in float16: its
  // tensors are kept as binary16 on the device (MemoryPlan.h), its filter rounded to binary16,
  // its bias kept in binary32 (the datapath adds binary32).
  const OperandType type = in.type;
  const bool relaxed = type == OperandType::TENSOR_FLOAT32 && model_.relaxComputationFloat32toFloat16;
  if ((type != OperandType::TENSOR_FLOAT16 && !relaxed) || w.type != type || out.type != type) {
    return fail("the fp16 datapath takes TENSOR_FLOAT16 input, filter and output, or TENSOR_FLOAT32 ones in a model "
                "relaxed to float16 (got {}, {}, {})",
                nn::toString(in.type), nn::toString(w.type), nn::toString(out.type));
  }
  const uint64_t valueBytes = relaxed ? 4 : 2;
  // A filter or bias given at execution (a model input, or another operation's output) is binary16
  // on the device like every tensor of the model (a relaxed float32 one too, MemoryPlan.h): the
  // device repacks it before the layer runs (RuntimeOperands.h), the bias widened to binary32.
  const bool wConstant = isConstant(w);
  if (wConstant && (w.location.length < valueBytes * outChannels * kElements || constantBytes(model_, w) == nullptr)) {
    return fail("weights value is shorter than its shape");
  }
  const bool biasOmitted = isOmitted(bias);
  if (!biasOmitted) {
    if (bias.type != type) return fail("the bias must be {} like the input", nn::toString(type));
    if (bias.dimensions.size() != 1 || bias.dimensions[0] != outChannels) {
      return fail("bias must have shape [{}]", outChannels);
    }
    if (isConstant(bias) && (bias.location.length < valueBytes * outChannels || constantBytes(model_, bias) == nullptr)) {
      return fail("bias value is shorter than its shape");
    }
  }
  auto clamp = fp16Clamp(activation);
  if (!clamp.ok()) return clamp.error();
  ConvQuantization q;
  q.inputType = q.weightType = q.outputType = ElementType::kFloat16;
  q.clamp = *clamp;
  q.columns.assign(outChannels, {});
  const uint64_t values = uint64_t{outChannels} * kElements;
  if (!wConstant) q.runtimeWeights = op_.inputs[1];
  if (!biasOmitted && !isConstant(bias)) q.runtimeBias = op_.inputs[2];
  if (withValues && filterValues_ && !wConstant) {
    q.weights.assign(2 * values, 0);  // +0 until the repack writes the filter
  } else if (withValues && filterValues_) {
    const uint8_t* wBytes = constantBytes(model_, w);
    if (relaxed) {
      q.weights.resize(2 * values);
      for (uint64_t i = 0; i < values; ++i) {
        uint32_t bits;
        std::memcpy(&bits, wBytes + 4 * i, 4);
        const uint16_t h = hw::fp::fp32ToFp16(bits);
        std::memcpy(&q.weights[2 * i], &h, 2);
      }
    } else {
      q.weights.assign(wBytes, wBytes + 2 * values);
    }
  }
  if (withValues) {
    if (!biasOmitted && !q.runtimeBias) {
      const uint8_t* b = constantBytes(model_, bias);
      for (uint32_t n = 0; n < outChannels; ++n) {
        uint32_t bits;
        if (relaxed) {
          std::memcpy(&bits, b + 4 * n, 4);
        } else {
          bits = hw::fp::fp16ToFp32(static_cast<uint16_t>(b[2 * n] | b[2 * n + 1] << 8));
        }
        q.columns[n].bias = static_cast<int32_t>(bits);
      }
    }
  }
  return q;
}

nn::Result<WindowPadding> OperationReader::convolutionPadding(bool implicit, uint32_t height, uint32_t width,
                                                              uint32_t strideH, uint32_t strideW, uint32_t effH,
                                                              uint32_t effW) const {
  WindowPadding pad;
  if (implicit) {
    auto scheme = int32Param(3, "padding scheme");
    if (!scheme.ok()) return scheme.error();
    auto h = implicitPadding(*scheme, height, strideH, effH);
    if (!h.ok()) return h.error();
    auto w = implicitPadding(*scheme, width, strideW, effW);
    if (!w.ok()) return w.error();
    pad.h = *h;
    pad.w = *w;
    return pad;
  }
  const char* names[4] = {"padding left", "padding right", "padding top", "padding bottom"};
  int64_t* pads[4] = {&pad.w.head, &pad.w.tail, &pad.h.head, &pad.h.tail};
  for (uint32_t i = 0; i < 4; ++i) {
    auto p = int32Param(3 + i, names[i]);
    if (!p.ok()) return p.error();
    if (*p < 0) return fail("{} is negative", names[i]);
    *pads[i] = *p;
  }
  return pad;
}

nn::Result<LayoutAndDilation> OperationReader::layoutAndDilation(uint32_t layoutIdx) const {
  LayoutAndDilation ld;
  const size_t n = op_.inputs.size();
  if (n > layoutIdx) {
    auto l = boolParam(layoutIdx, "data layout");
    if (!l.ok()) return l.error();
    ld.nchw = *l;
  }
  if (n > layoutIdx + 1) {
    auto dw = int32Param(layoutIdx + 1, "dilation width");
    if (!dw.ok()) return dw.error();
    auto dh = int32Param(layoutIdx + 2, "dilation height");
    if (!dh.ok()) return dh.error();
    ld.dilationW = *dw;
    ld.dilationH = *dh;
  }
  return ld;
}

nn::Result<Padding> OperationReader::implicitPadding(int32_t scheme, uint32_t size, uint32_t stride,
                                                     uint32_t effective) const {
  if (scheme != 1 && scheme != 2) return fail("padding scheme {} is not SAME (1) or VALID (2)", scheme);
  Padding p;
  if (scheme == 1) {
    const int64_t outSize = (int64_t{size} + stride - 1) / stride;
    const int64_t needed = (outSize - 1) * stride + effective;
    if (needed > size) {
      p.head = (needed - size) / 2;
      p.tail = (needed - size) - p.head;
    }
  }
  return p;
}

nn::Status OperationReader::checkOutputDims(const nn::Dimensions& computed, uint32_t index) const {
  const auto& declared = output(index).dimensions;
  if (declared.empty()) return {};
  if (declared.size() != computed.size()) {
    return fail("output rank {} differs from the computed rank {}", declared.size(), computed.size());
  }
  for (size_t i = 0; i < declared.size(); ++i) {
    if (declared[i] != 0 && declared[i] != computed[i]) {
      return fail("output dimension {} is {}, the operation computes {}", i, declared[i], computed[i]);
    }
  }
  return {};
}

}  // namespace weft::accel
