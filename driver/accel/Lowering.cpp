#include "Lowering.h"

#include <fmt/format.h>

#include <cstring>

#include "ModelAccess.h"

namespace weft::accel {
namespace {

using nn::OperandType;

bool isQuant8Activation(OperandType t) {
  return t == OperandType::TENSOR_QUANT8_ASYMM || t == OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
}

bool zeroPointFits(int32_t zp, OperandType t) {
  if (t == OperandType::TENSOR_QUANT8_ASYMM_SIGNED) return zp >= -128 && zp <= 127;
  if (t == OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL) return zp == 0;
  return zp >= 0 && zp <= 255;
}

// Reads the operands every lowered operation shares and builds the column parameters.
class OperationReader {
 public:
  OperationReader(const nn::Model& model, uint32_t index)
      : model_(model), op_(model.main.operations[index]), name_(nn::toString(op_.type)) {}

  const nn::Operand& input(uint32_t i) const { return model_.main.operands[op_.inputs[i]]; }
  const nn::Operand& output(uint32_t i) const { return model_.main.operands[op_.outputs[i]]; }
  const nn::Operation& op() const { return op_; }

  nn::Status checkIndexes() const {
    for (uint32_t i : op_.inputs) {
      if (i >= model_.main.operands.size()) return fail("input operand index {} out of range", i);
    }
    for (uint32_t i : op_.outputs) {
      if (i >= model_.main.operands.size()) return fail("output operand index {} out of range", i);
    }
    return {};
  }

  // An INT32 scalar that must be constant.
  nn::Result<int32_t> int32Param(uint32_t i, const char* what) const {
    const auto& o = input(i);
    if (o.type != OperandType::INT32) return fail("{} (input {}) must be INT32", what, i);
    auto v = constantScalar<int32_t>(model_, o);
    if (!v) return fail("{} (input {}) is not a constant", what, i);
    return *v;
  }

  nn::Result<bool> boolParam(uint32_t i, const char* what) const {
    const auto& o = input(i);
    if (o.type != OperandType::BOOL) return fail("{} (input {}) must be BOOL", what, i);
    auto v = constantScalar<uint8_t>(model_, o);
    if (!v) return fail("{} (input {}) is not a constant", what, i);
    return *v != 0;
  }

  template <typename... Args>
  nn::Error fail(fmt::format_string<Args...> f, Args&&... args) const {
    return NN_ERROR(BAD_DATA) << name_ << ": " << fmt::format(f, std::forward<Args>(args)...);
  }

  // Types, constness and quantization of input, weights, bias and output; fills the layer's
  // zero points, signedness, weights and column parameters. `perChannelAllowed` for CONV_2D.
  nn::Status readQuantization(GemmLayer& layer, uint32_t outChannels, uint32_t kSize,
                              int32_t activation, bool perChannelAllowed, bool withValues) const {
    const auto& in = input(0);
    const auto& w = input(1);
    const auto& bias = input(2);
    const auto& out = output(0);
    if (!isQuant8Activation(in.type)) {
      return fail("input type {} is not supported (TENSOR_QUANT8_ASYMM or "
                  "TENSOR_QUANT8_ASYMM_SIGNED only)", nn::toString(in.type));
    }
    const bool perChannel = w.type == OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL;
    if (w.type != in.type && !(perChannel && perChannelAllowed)) {
      return fail("weights of type {} with input {} are not supported", nn::toString(w.type),
                  nn::toString(in.type));
    }
    if (out.type != in.type) {
      return fail("output type {} differs from input type {}", nn::toString(out.type),
                  nn::toString(in.type));
    }
    if (!isConstant(w)) return fail("weights are not constant (the accelerator keeps them in device memory)");
    if (!(in.scale > 0) || !(out.scale > 0)) return fail("input and output scales must be positive");
    if (!zeroPointFits(in.zeroPoint, in.type) || !zeroPointFits(out.zeroPoint, out.type) ||
        !zeroPointFits(w.zeroPoint, w.type)) {
      return fail("a zero point is outside its type's range");
    }
    const bool biasOmitted = isOmitted(bias);
    if (!biasOmitted) {
      if (bias.type != OperandType::TENSOR_INT32) return fail("bias must be TENSOR_INT32");
      if (!isConstant(bias)) return fail("bias is not constant");
      if (bias.dimensions.size() != 1 || bias.dimensions[0] != outChannels) {
        return fail("bias must have shape [{}]", outChannels);
      }
      if (bias.location.length < 4ull * outChannels || constantBytes(model_, bias) == nullptr) {
        return fail("bias value is shorter than its shape");
      }
    }
    if (w.location.length < uint64_t{outChannels} * kSize || constantBytes(model_, w) == nullptr) {
      return fail("weights value is shorter than its shape");
    }
    std::vector<float> filterScales(outChannels, w.scale);
    if (perChannel) {
      const auto* pc = std::get_if<nn::SymmPerChannelQuantParams>(&w.extraParams);
      if (pc == nullptr || pc->channelDim != 0 || pc->scales.size() != outChannels) {
        return fail("per-channel weights need channelDim 0 and {} scales", outChannels);
      }
      filterScales = pc->scales;
    } else if (!(w.scale > 0)) {
      return fail("weights scale must be positive");
    }
    layer.columns.assign(outChannels, {});
    for (uint32_t n = 0; n < outChannels; ++n) {
      if (!(filterScales[n] > 0)) return fail("weights scale of channel {} must be positive", n);
      if (!biasOmitted && !perChannel && !biasScaleMatches(in.scale, filterScales[n], bias.scale)) {
        return fail("bias scale {} is not input scale x weights scale {}", bias.scale,
                    in.scale * filterScales[n]);
      }
      auto q = quantizeMultiplier(convolutionMultiplier(in.scale, filterScales[n], out.scale));
      if (!q) return fail("output multiplier of channel {} is out of the hardware's range", n);
      layer.columns[n].multiplier = q->multiplier;
      layer.columns[n].shift = static_cast<int8_t>(q->shift);
    }
    auto clamp = activationRange(activation, out.type, out.scale, out.zeroPoint);
    if (!clamp) return fail("fused activation {} is not NONE, RELU, RELU1 or RELU6", activation);
    layer.clamp = *clamp;
    layer.inZp = in.zeroPoint;
    layer.wZp = w.zeroPoint;
    layer.outZp = out.zeroPoint;
    layer.inSigned = in.type == OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
    layer.wSigned = w.type != OperandType::TENSOR_QUANT8_ASYMM;
    layer.inputOperand = op_.inputs[0];
    layer.outputOperand = op_.outputs[0];
    if (withValues) {
      const uint8_t* wBytes = constantBytes(model_, w);
      layer.weights.assign(wBytes, wBytes + uint64_t{outChannels} * kSize);
      if (!biasOmitted) {
        const uint8_t* b = constantBytes(model_, bias);
        for (uint32_t n = 0; n < outChannels; ++n) std::memcpy(&layer.columns[n].bias, b + 4 * n, 4);
      }
    }
    return {};
  }

  // The declared output dimensions must agree with the computed ones where they are given.
  nn::Status checkOutputDims(const nn::Dimensions& computed) const {
    const auto& declared = output(0).dimensions;
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

 private:
  const nn::Model& model_;
  const nn::Operation& op_;
  const char* name_;
};

uint32_t effectiveFilter(uint32_t filter, uint32_t dilation) { return (filter - 1) * dilation + 1; }

nn::Result<LoweredOperation> lowerConv2d(const OperationReader& r, const nn::Model&, uint32_t index,
                                         bool withValues) {
  const auto& op = r.op();
  const size_t numInputs = op.inputs.size();
  if (op.outputs.size() != 1) return r.fail("expects 1 output, got {}", op.outputs.size());
  const bool implicitPadding =
      numInputs == 7 || (numInputs >= 8 && r.input(7).type == OperandType::BOOL);
  if (implicitPadding ? (numInputs != 7 && numInputs != 8 && numInputs != 10)
                      : (numInputs != 10 && numInputs != 11 && numInputs != 13)) {
    return r.fail("unexpected number of inputs {}", numInputs);
  }
  const uint32_t strideIdx = implicitPadding ? 4 : 7;
  int32_t strideW = 0, strideH = 0, activation = 0, dilationW = 1, dilationH = 1;
  bool nchw = false;
  {
    auto sw = r.int32Param(strideIdx, "stride width");
    if (!sw.ok()) return sw.error();
    auto sh = r.int32Param(strideIdx + 1, "stride height");
    if (!sh.ok()) return sh.error();
    auto act = r.int32Param(strideIdx + 2, "fused activation");
    if (!act.ok()) return act.error();
    strideW = *sw;
    strideH = *sh;
    activation = *act;
    const uint32_t layoutIdx = strideIdx + 3;
    if (numInputs > layoutIdx) {
      auto l = r.boolParam(layoutIdx, "data layout");
      if (!l.ok()) return l.error();
      nchw = *l;
    }
    if (numInputs > layoutIdx + 1) {
      auto dw = r.int32Param(layoutIdx + 1, "dilation width");
      if (!dw.ok()) return dw.error();
      auto dh = r.int32Param(layoutIdx + 2, "dilation height");
      if (!dh.ok()) return dh.error();
      dilationW = *dw;
      dilationH = *dh;
    }
  }
  if (strideW < 1 || strideH < 1) return r.fail("strides must be at least 1");
  if (dilationW < 1 || dilationH < 1) return r.fail("dilation factors must be at least 1");

  const auto& in = r.input(0);
  const auto& filter = r.input(1);
  if (in.dimensions.size() != 4 || !nn::isFullySpecified(in.type, in.dimensions)) {
    return r.fail("input must be a fully specified 4-D tensor");
  }
  if (filter.dimensions.size() != 4 || !nn::isFullySpecified(filter.type, filter.dimensions)) {
    return r.fail("filter must be a fully specified 4-D tensor");
  }
  const auto& d = in.dimensions;
  ImageShape image{d[0], nchw ? d[2] : d[1], nchw ? d[3] : d[2], nchw ? d[1] : d[3]};
  const uint32_t outC = filter.dimensions[0], fh = filter.dimensions[1], fw = filter.dimensions[2];
  if (filter.dimensions[3] != image.channels) {
    return r.fail("filter depth {} differs from input depth {}", filter.dimensions[3], image.channels);
  }
  const uint32_t effH = effectiveFilter(fh, dilationH), effW = effectiveFilter(fw, dilationW);
  int64_t padTop = 0, padBottom = 0, padLeft = 0, padRight = 0;
  if (implicitPadding) {
    auto scheme = r.int32Param(3, "padding scheme");
    if (!scheme.ok()) return scheme.error();
    if (*scheme != 1 && *scheme != 2) return r.fail("padding scheme {} is not SAME (1) or VALID (2)", *scheme);
    auto same = [&](uint32_t size, uint32_t stride, uint32_t eff, int64_t& head, int64_t& tail) {
      const int64_t outSize = (int64_t{size} + stride - 1) / stride;
      const int64_t needed = (outSize - 1) * stride + eff;
      if (needed > size) {
        head = (needed - size) / 2;
        tail = (needed - size) - head;
      }
    };
    if (*scheme == 1) {
      same(image.height, strideH, effH, padTop, padBottom);
      same(image.width, strideW, effW, padLeft, padRight);
    }
  } else {
    const char* names[4] = {"padding left", "padding right", "padding top", "padding bottom"};
    int64_t* pads[4] = {&padLeft, &padRight, &padTop, &padBottom};
    for (uint32_t i = 0; i < 4; ++i) {
      auto p = r.int32Param(3 + i, names[i]);
      if (!p.ok()) return p.error();
      if (*p < 0) return r.fail("{} is negative", names[i]);
      *pads[i] = *p;
    }
  }
  const int64_t outH = (int64_t{image.height} - effH + strideH + padTop + padBottom) / strideH;
  const int64_t outW = (int64_t{image.width} - effW + strideW + padLeft + padRight) / strideW;
  if (outH < 1 || outW < 1) return r.fail("the filter does not fit the padded input");
  if (padTop > 0xFFFF || padLeft > 0xFFFF || padBottom > 0xFFFF || padRight > 0xFFFF) {
    return r.fail("padding larger than 65535 is not supported");
  }

  LoweredOperation lo;
  GemmLayer& layer = lo.layer;
  layer.operationIndex = index;
  layer.type = nn::OperationType::CONV_2D;
  layer.input = image;
  layer.output = ImageShape{image.batches, static_cast<uint32_t>(outH), static_cast<uint32_t>(outW), outC};
  layer.filterH = fh;
  layer.filterW = fw;
  layer.strideH = strideH;
  layer.strideW = strideW;
  layer.dilationH = dilationH;
  layer.dilationW = dilationW;
  layer.padTop = static_cast<uint32_t>(padTop);
  layer.padLeft = static_cast<uint32_t>(padLeft);
  // Only the padding the last window actually reads needs to exist in memory.
  const int64_t lastRow = (outH - 1) * strideH - padTop + effH;  // one past the last row read
  const int64_t lastCol = (outW - 1) * strideW - padLeft + effW;
  layer.padBottom = static_cast<uint32_t>(std::max<int64_t>(0, lastRow - image.height));
  layer.padRight = static_cast<uint32_t>(std::max<int64_t>(0, lastCol - image.width));
  layer.nchw = nchw;
  lo.inputLayout = lo.outputLayout = nchw ? DataLayout::kNCHW : DataLayout::kNHWC;

  auto q = r.readQuantization(layer, outC, fh * fw * image.channels, activation,
                              /*perChannelAllowed=*/true, withValues);
  if (!q.ok()) return q.error();
  const nn::Dimensions outDims =
      nchw ? nn::Dimensions{image.batches, outC, layer.output.height, layer.output.width}
           : nn::Dimensions{image.batches, layer.output.height, layer.output.width, outC};
  auto od = r.checkOutputDims(outDims);
  if (!od.ok()) return od.error();
  lo.outputDims = outDims;
  return lo;
}

nn::Result<LoweredOperation> lowerFullyConnected(const OperationReader& r, uint32_t index,
                                                 bool withValues) {
  const auto& op = r.op();
  if (op.inputs.size() != 4 || op.outputs.size() != 1) {
    return r.fail("expects 4 inputs and 1 output, got {} and {}", op.inputs.size(), op.outputs.size());
  }
  auto act = r.int32Param(3, "fused activation");
  if (!act.ok()) return act.error();
  const auto& in = r.input(0);
  const auto& w = r.input(1);
  if (in.dimensions.size() < 2 || !nn::isFullySpecified(in.type, in.dimensions)) {
    return r.fail("input must be a fully specified tensor of rank 2 or more");
  }
  if (w.dimensions.size() != 2 || !nn::isFullySpecified(w.type, w.dimensions)) {
    return r.fail("weights must be a fully specified 2-D tensor");
  }
  const uint32_t units = w.dimensions[0], inputSize = w.dimensions[1];
  const uint64_t elements = nn::numberOfElements(in.dimensions);
  if (inputSize == 0 || elements % inputSize != 0) {
    return r.fail("input of {} elements is not a multiple of input_size {}", elements, inputSize);
  }
  const auto batch = static_cast<uint32_t>(elements / inputSize);
  if (batch > 0xFFFF) return r.fail("batch {} is larger than 65535", batch);

  LoweredOperation lo;
  GemmLayer& layer = lo.layer;
  layer.operationIndex = index;
  layer.type = nn::OperationType::FULLY_CONNECTED;
  layer.input = ImageShape{1, batch, 1, inputSize};
  layer.output = ImageShape{1, batch, 1, units};
  lo.fcInputDims = in.dimensions;
  auto q = r.readQuantization(layer, units, inputSize, *act, /*perChannelAllowed=*/false, withValues);
  if (!q.ok()) return q.error();
  auto od = r.checkOutputDims({batch, units});
  if (!od.ok()) return od.error();
  lo.outputDims = {batch, units};
  return lo;
}

}  // namespace

nn::Result<LoweredOperation> lowerOperation(const nn::Model& model, uint32_t index, bool withValues) {
  if (index >= model.main.operations.size()) {
    return NN_ERROR(BAD_DATA) << "operation index " << index << " out of range";
  }
  OperationReader r(model, index);
  auto idx = r.checkIndexes();
  if (!idx.ok()) return idx.error();
  switch (r.op().type) {
    case nn::OperationType::CONV_2D:
      if (r.op().inputs.size() < 7) return r.fail("expects at least 7 inputs");
      return lowerConv2d(r, model, index, withValues);
    case nn::OperationType::FULLY_CONNECTED:
      return lowerFullyConnected(r, index, withValues);
    default:
      return NN_ERROR(BAD_DATA) << nn::toString(r.op().type)
                                << " is not supported by the accelerator (CONV_2D and "
                                   "FULLY_CONNECTED only)";
  }
}

nn::Result<GemmLayer> fullyConnectedOverImage(const LoweredOperation& fc, DataLayout layout) {
  const auto& d = fc.fcInputDims;
  const GemmLayer& dense = fc.layer;
  if (d.size() != 4 || d[0] != dense.input.height || uint64_t{d[1]} * d[2] * d[3] != dense.input.channels) {
    return NN_ERROR(BAD_DATA) << "FULLY_CONNECTED: input is not [batch, ...] with input_size the "
                                 "product of its inner dimensions";
  }
  GemmLayer g = dense;
  const bool nchw = layout == DataLayout::kNCHW;
  const uint32_t h = nchw ? d[2] : d[1], w = nchw ? d[3] : d[2], c = nchw ? d[1] : d[3];
  g.input = ImageShape{d[0], h, w, c};
  g.output = ImageShape{d[0], 1, 1, dense.output.channels};
  g.filterH = h;
  g.filterW = w;
  g.nchw = nchw;
  if (nchw && !dense.weights.empty()) {
    // Column (y, x, ch) of the image bytes is element ch*H*W + y*W + x of the NCHW flattening.
    const uint32_t k = h * w * c;
    for (uint32_t n = 0; n < g.output.channels; ++n) {
      const uint8_t* src = &dense.weights[uint64_t{n} * k];
      uint8_t* dst = &g.weights[uint64_t{n} * k];
      for (uint32_t y = 0; y < h; ++y)
        for (uint32_t x = 0; x < w; ++x)
          for (uint32_t ch = 0; ch < c; ++ch) dst[(y * w + x) * c + ch] = src[ch * h * w + y * w + x];
    }
  }
  return g;
}

}  // namespace weft::accel
