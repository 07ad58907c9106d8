// CONV_2D and FULLY_CONNECTED on the systolic array: quant8 asymmetric or signed activations,
// weights of the same type or TENSOR_QUANT8_SYMM_PER_CHANNEL (CONV_2D, channel dimension 0), int32
// bias; weights and bias constant or given at execution; constant scalar parameters; fully
// specified input shapes; NHWC or NCHW; explicit or implicit (SAME/VALID) padding; any strides
// and dilations; fused NONE/RELU/RELU1/RELU6. Lowered to a GemmLayer (GemmLayer.h).
// TENSOR_FLOAT16 too (GemmLayer::inputType kFloat16), and TENSOR_FLOAT32 in a model relaxed to float16, for the
// fp16 datapath (Fp16 hardware; the support check refuses the layer elsewhere): filter and bias
// constant or given at execution (a binary16 bias widened when repacked), each value two bytes of K; CONV_2D in NHWC or NCHW (the host's copies reorder whole
// values, Transfer.h), FULLY_CONNECTED over an image in either (its weights permuted a value at a
// time).
#include <algorithm>
#include <cstring>

#include "Families.h"

namespace weft::accel {
namespace {

using nn::OperandType;

// Copies a convolution's quantization and filter into its GEMM layer.
void applyConvQuantization(GemmLayer& layer, ConvQuantization q, const nn::Operation& op) {
  applyQuantization(layer, q);
  layer.weights = std::move(q.weights);
  layer.runtimeWeights = q.runtimeWeights;
  layer.runtimeBias = q.runtimeBias;
  layer.inputOperand = op.inputs[0];
  layer.outputOperand = op.outputs[0];
}

// The window of a convolution over `image` (fh x fw taps `dilation` apart, `stride`): its padding
// and output size set on `layer`, and the padding reaching past the input that the last window
// actually reads (bottom and right), which alone needs to exist in memory.
nn::Status setWindow(const OperationReader& r, bool implicitPadding, const ImageShape& image, uint32_t fh, uint32_t fw,
                     GemmLayer& layer) {
  const int64_t strideH = layer.strideH, strideW = layer.strideW;
  const uint32_t effH = effectiveFilter(fh, layer.dilationH), effW = effectiveFilter(fw, layer.dilationW);
  auto pad = r.convolutionPadding(implicitPadding, image.height, image.width, layer.strideH, layer.strideW, effH, effW);
  if (!pad.ok()) return pad.error();
  const int64_t padTop = pad->h.head, padBottom = pad->h.tail, padLeft = pad->w.head, padRight = pad->w.tail;
  const int64_t outH = (int64_t{image.height} - effH + strideH + padTop + padBottom) / strideH;
  const int64_t outW = (int64_t{image.width} - effW + strideW + padLeft + padRight) / strideW;
  if (outH < 1 || outW < 1) return r.fail("the filter does not fit the padded input");
  if (padTop > 0xFFFF || padLeft > 0xFFFF || padBottom > 0xFFFF || padRight > 0xFFFF) {
    return r.fail("padding larger than 65535 is not supported");
  }
  layer.filterH = fh;
  layer.filterW = fw;
  layer.output.batches = image.batches;
  layer.output.height = static_cast<uint32_t>(outH);
  layer.output.width = static_cast<uint32_t>(outW);
  layer.padTop = static_cast<uint32_t>(padTop);
  layer.padLeft = static_cast<uint32_t>(padLeft);
  const int64_t lastRow = (outH - 1) * strideH - padTop + effH;  // one past the last row read
  const int64_t lastCol = (outW - 1) * strideW - padLeft + effW;
  layer.padBottom = static_cast<uint32_t>(std::max<int64_t>(0, lastRow - image.height));
  layer.padRight = static_cast<uint32_t>(std::max<int64_t>(0, lastCol - image.width));
  return {};
}

// A convolution's output dimensions in its layout.
nn::Dimensions convOutputDims(const GemmLayer& layer, uint32_t outC, bool nchw) {
  const ImageShape& o = layer.output;
  return nchw ? nn::Dimensions{o.batches, outC, o.height, o.width} : nn::Dimensions{o.batches, o.height, o.width, outC};
}

}  // namespace

nn::Result<LoweredOperation> lowerConv2d(const OperationReader& r, uint32_t index, bool withValues) {
  const auto& op = r.op();
  const size_t numInputs = op.inputs.size();
  if (numInputs < 7) return r.fail("expects at least 7 inputs");
  if (op.outputs.size() != 1) return r.fail("expects 1 output, got {}", op.outputs.size());
  const bool implicitPadding =
      numInputs == 7 || (numInputs >= 8 && r.input(7).type == OperandType::BOOL);
  if (implicitPadding ? (numInputs != 7 && numInputs != 8 && numInputs != 10)
                      : (numInputs != 10 && numInputs != 11 && numInputs != 13)) {
    return r.fail("unexpected number of inputs {}", numInputs);
  }
  const uint32_t strideIdx = implicitPadding ? 4 : 7;
  auto sw = r.int32Param(strideIdx, "stride width");
  if (!sw.ok()) return sw.error();
  auto sh = r.int32Param(strideIdx + 1, "stride height");
  if (!sh.ok()) return sh.error();
  auto act = r.int32Param(strideIdx + 2, "fused activation");
  if (!act.ok()) return act.error();
  auto ld = r.layoutAndDilation(strideIdx + 3);
  if (!ld.ok()) return ld.error();
  const int32_t strideW = *sw, strideH = *sh, activation = *act;
  const int32_t dilationW = ld->dilationW, dilationH = ld->dilationH;
  const bool nchw = ld->nchw;
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
  LoweredLayer lo;
  GemmLayer& layer = *lo.gemm();
  layer.operationIndex = index;
  layer.type = nn::OperationType::CONV_2D;
  layer.input = image;
  layer.output.channels = outC;
  layer.strideH = static_cast<uint32_t>(strideH);
  layer.strideW = static_cast<uint32_t>(strideW);
  layer.dilationH = static_cast<uint32_t>(dilationH);
  layer.dilationW = static_cast<uint32_t>(dilationW);
  NN_TRY(setWindow(r, implicitPadding, image, fh, fw, layer));
  layer.nchw = nchw;
  lo.inputLayout = lo.outputLayout = nchw ? DataLayout::kNCHW : DataLayout::kNHWC;

  const bool binary16 = isFloat(r.valueType(in));
  auto q = binary16 ? r.fp16Convolution(outC, uint64_t{fh} * fw * image.channels, activation, withValues)
                : r.convQuantization(outC, uint64_t{fh} * fw * image.channels, activation, /*perChannelDim=*/0,
                                     /*checkBiasScale=*/true, withValues);
  if (!q.ok()) return q.error();
  applyConvQuantization(layer, std::move(q).value(), op);
  layer.input.channels *= layer.inputValueBytes();  // K counts bytes
  const nn::Dimensions outDims = convOutputDims(layer, outC, nchw);
  auto od = r.checkOutputDims(outDims);
  if (!od.ok()) return od.error();
  lo.outputDims = outDims;
  return LoweredOperation(std::move(lo));
}

// GROUPED_CONV_2D (quant8, NHWC or NCHW, explicit or implicit padding, constant filter and bias):
// one CONV_2D layer a group, each reading its group's slice of the input's channels and writing
// its slice of the output's (GemmLayer::inputOffset and outputOffset into the whole images, whose
// strides the views keep), with its rows of the filter and its columns' parameters. ResNeXt's and
// RegNet's grouped 3x3 convolutions.
nn::Result<LoweredOperation> lowerGroupedConv2d(const OperationReader& r, uint32_t index, bool withValues) {
  const auto& op = r.op();
  const size_t numInputs = op.inputs.size();
  if (numInputs != 9 && numInputs != 12) return r.fail("expects 9 or 12 inputs, got {}", numInputs);
  if (op.outputs.size() != 1) return r.fail("expects 1 output, got {}", op.outputs.size());
  const bool implicitPadding = numInputs == 9;
  const uint32_t strideIdx = implicitPadding ? 4 : 7;
  auto sw = r.int32Param(strideIdx, "stride width");
  if (!sw.ok()) return sw.error();
  auto sh = r.int32Param(strideIdx + 1, "stride height");
  if (!sh.ok()) return sh.error();
  auto groupsValue = r.int32Param(strideIdx + 2, "num_groups");
  if (!groupsValue.ok()) return groupsValue.error();
  auto act = r.int32Param(strideIdx + 3, "fused activation");
  if (!act.ok()) return act.error();
  auto layout = r.boolParam(strideIdx + 4, "data layout");
  if (!layout.ok()) return layout.error();
  const int32_t strideW = *sw, strideH = *sh;
  const bool nchw = *layout;
  if (strideW < 1 || strideH < 1) return r.fail("strides must be at least 1");
  const auto& in = r.input(0);
  const auto& filter = r.input(1);
  if (isFloat(r.valueType(in))) return r.fail("a float16 grouped convolution is not lowered (quant8 only)");
  if (in.dimensions.size() != 4 || !nn::isFullySpecified(in.type, in.dimensions)) {
    return r.fail("input must be a fully specified 4-D tensor");
  }
  if (filter.dimensions.size() != 4 || !nn::isFullySpecified(filter.type, filter.dimensions)) {
    return r.fail("filter must be a fully specified 4-D tensor");
  }
  const auto& d = in.dimensions;
  const ImageShape image{d[0], nchw ? d[2] : d[1], nchw ? d[3] : d[2], nchw ? d[1] : d[3]};
  const uint32_t outC = filter.dimensions[0], fh = filter.dimensions[1], fw = filter.dimensions[2];
  const uint32_t groupDepth = filter.dimensions[3];
  if (*groupsValue < 1) return r.fail("num_groups must be positive");
  const auto groups = static_cast<uint32_t>(*groupsValue);
  if (uint64_t{groupDepth} * groups != image.channels || outC % groups != 0) {
    return r.fail("{} groups of filter depth {} and {} outputs do not split {} input channels", groups, groupDepth,
                  outC, image.channels);
  }
  const uint32_t outPerGroup = outC / groups;
  GemmLayer window;  // the geometry every group's layer shares
  window.input = ImageShape{image.batches, image.height, image.width, groupDepth};
  window.output.channels = outPerGroup;
  window.strideH = static_cast<uint32_t>(strideH);
  window.strideW = static_cast<uint32_t>(strideW);
  NN_TRY(setWindow(r, implicitPadding, image, fh, fw, window));
  window.nchw = nchw;
  const uint64_t k = uint64_t{fh} * fw * groupDepth;
  auto q = r.convQuantization(outC, k, *act, /*perChannelDim=*/0, /*checkBiasScale=*/true, withValues);
  if (!q.ok()) return q.error();
  if (q->runtimeWeights || q->runtimeBias) return r.fail("a grouped convolution's filter and bias must be constants");
  const nn::Dimensions outDims = convOutputDims(window, outC, nchw);
  NN_TRY(r.checkOutputDims(outDims));
  LoweredOperation lowered;
  for (uint32_t g = 0; g < groups; ++g) {
    LoweredLayer lo;
    GemmLayer& layer = *lo.gemm();
    layer = window;
    layer.operationIndex = index;
    layer.type = nn::OperationType::GROUPED_CONV_2D;
    lo.inputLayout = lo.outputLayout = nchw ? DataLayout::kNCHW : DataLayout::kNHWC;
    ConvQuantization part = *q;
    part.columns.assign(q->columns.begin() + size_t{g} * outPerGroup, q->columns.begin() + size_t{g + 1} * outPerGroup);
    if (!q->weights.empty()) {
      part.weights.assign(q->weights.begin() + static_cast<ptrdiff_t>(g * outPerGroup * k),
                          q->weights.begin() + static_cast<ptrdiff_t>((g + 1) * outPerGroup * k));
    }
    applyConvQuantization(layer, std::move(part), op);
    layer.inputOffset = uint64_t{g} * groupDepth;
    layer.outputOffset = uint64_t{g} * outPerGroup * layer.outputElementBytes();
    lo.outputDims = outDims;
    lowered.layers.push_back(std::move(lo));
  }
  return lowered;
}

nn::Result<LoweredOperation> lowerFullyConnected(const OperationReader& r, uint32_t index, bool withValues) {
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

  LoweredLayer lo;
  GemmLayer& layer = *lo.gemm();
  layer.operationIndex = index;
  layer.type = nn::OperationType::FULLY_CONNECTED;
  layer.input = ImageShape{1, batch, 1, inputSize};
  layer.output = ImageShape{1, batch, 1, units};
  lo.fcInputDims = in.dimensions;
  const bool binary16 = isFloat(r.valueType(in));
  auto q = binary16 ? r.fp16Convolution(units, inputSize, *act, withValues)
                : r.convQuantization(units, inputSize, *act, /*perChannelDim=*/-1, /*checkBiasScale=*/true, withValues);
  if (!q.ok()) return q.error();
  applyConvQuantization(layer, std::move(q).value(), op);
  layer.input.channels *= layer.inputValueBytes();  // K counts bytes
  auto od = r.checkOutputDims({batch, units});
  if (!od.ok()) return od.error();
  lo.outputDims = {batch, units};
  return LoweredOperation(std::move(lo));
}

nn::Result<GemmLayer> fullyConnectedOverImage(const LoweredLayer& fc, DataLayout layout) {
  const auto& d = fc.fcInputDims;
  const GemmLayer& dense = *fc.gemm();
  const uint32_t valueBytes = dense.inputValueBytes();  // the dense input counts bytes as channels
  if (d.size() != 4 || d[0] != dense.input.height || uint64_t{d[1]} * d[2] * d[3] * valueBytes != dense.input.channels) {
    return NN_ERROR(BAD_DATA) << "FULLY_CONNECTED: input is not [batch, ...] with input_size the "
                                 "product of its inner dimensions";
  }
  const bool nchw = layout == DataLayout::kNCHW;
  if (nchw && dense.runtimeWeights) {
    return NN_ERROR(BAD_DATA) << "FULLY_CONNECTED: weights given at execution cannot be permuted for an input kept "
                                 "in NCHW order";
  }
  GemmLayer g = dense;
  const uint32_t h = nchw ? d[2] : d[1], w = nchw ? d[3] : d[2], c = nchw ? d[1] : d[3];
  g.input = ImageShape{d[0], h, w, c * valueBytes};
  g.output = ImageShape{d[0], 1, 1, dense.output.channels};
  g.filterH = h;
  g.filterW = w;
  g.nchw = nchw;
  if (nchw && !dense.weights.empty()) {
    // Value (y, x, ch) of the image is element ch*H*W + y*W + x of the NCHW flattening; a value
    // is valueBytes bytes of K (binary16: two).
    const uint64_t k = uint64_t{h} * w * c * valueBytes;
    for (uint32_t n = 0; n < g.output.channels; ++n) {
      const uint8_t* src = &dense.weights[n * k];
      uint8_t* dst = &g.weights[n * k];
      for (uint32_t y = 0; y < h; ++y)
        for (uint32_t x = 0; x < w; ++x)
          for (uint32_t ch = 0; ch < c; ++ch) {
            std::memcpy(dst + (uint64_t{y * w + x} * c + ch) * valueBytes,
                        src + (uint64_t{ch} * h * w + y * w + x) * valueBytes, valueBytes);
          }
    }
  }
  return g;
}

}  // namespace weft::accel
