// DEPTHWISE_CONV_2D on the vector unit (WindowLayer, kind dwconv): quant8 asymmetric or signed,
// filters of the input's type or TENSOR_QUANT8_SYMM_PER_CHANNEL along the output channels
// (dimension 3), int32 bias; filter and bias constant or given at execution; any kernel size,
// stride, dilation and depth multiplier up to 255, explicit or implicit padding up to 2047, NHWC
// or NCHW, fused NONE/RELU/RELU1/RELU6. The store's requantization is the convolution's, per output channel.
// With the fp16 datapath also TENSOR_FLOAT16 (and relaxed TENSOR_FLOAT32) with a constant filter
// and bias, any depth multiplier: binary16 windows (WindowLayer's fp16), exact products summed
// in binary32, the bias added and the result rounded by STORE mode fp16.
#include "Families.h"
#include "WindowLayer.h"

namespace weft::accel {

namespace {

// DEPTHWISE_CONV_2D's scalar parameters.
struct DepthwiseParams {
  bool implicit = false;  // implicit padding (a scheme at input 3)
  int32_t strideW = 1, strideH = 1, depthMultiplier = 1, activation = 0;
  LayoutAndDilation layout;
};

nn::Result<DepthwiseParams> readParams(const OperationReader& r) {
  const size_t n = r.op().inputs.size();
  NN_TRY(r.expectCounts({8, 9, 11, 12, 14}, 1));
  DepthwiseParams p;
  // Implicit padding: 8 inputs, or a layout flag (BOOL) where the explicit form has stride height.
  p.implicit = n == 8 || (n >= 9 && r.input(8).type == nn::OperandType::BOOL);
  if (p.implicit ? (n != 8 && n != 9 && n != 11) : (n != 11 && n != 12 && n != 14)) {
    return r.fail("unexpected number of inputs {}", n);
  }
  const uint32_t strideIdx = p.implicit ? 4 : 7;
  auto sw = r.int32Param(strideIdx, "stride width");
  if (!sw.ok()) return sw.error();
  auto sh = r.int32Param(strideIdx + 1, "stride height");
  if (!sh.ok()) return sh.error();
  auto dm = r.int32Param(strideIdx + 2, "depth multiplier");
  if (!dm.ok()) return dm.error();
  auto act = r.int32Param(strideIdx + 3, "fused activation");
  if (!act.ok()) return act.error();
  auto ld = r.layoutAndDilation(strideIdx + 4);
  if (!ld.ok()) return ld.error();
  p.strideW = *sw;
  p.strideH = *sh;
  p.depthMultiplier = *dm;
  p.activation = *act;
  p.layout = *ld;
  for (int32_t v : {p.strideW, p.strideH, p.depthMultiplier, p.layout.dilationW, p.layout.dilationH}) {
    if (v < 1 || v > 255) return r.fail("strides, dilations and the depth multiplier must be in [1, 255]");
  }
  return p;
}

}  // namespace

nn::Result<LoweredOperation> lowerDepthwiseConv2d(const OperationReader& r, uint32_t index, bool withValues) {
  const auto& op = r.op();
  auto params = readParams(r);
  if (!params.ok()) return params.error();
  const DepthwiseParams& p = params.value();
  const bool implicit = p.implicit, nchw = p.layout.nchw;
  const int32_t sw = p.strideW, sh = p.strideH, dm = p.depthMultiplier, act = p.activation;
  const int32_t dilW = p.layout.dilationW, dilH = p.layout.dilationH;

  const auto& in = r.input(0);
  const auto& filter = r.input(1);
  const bool binary16 = isFloat(r.valueType(in));
  if (binary16) {
    NN_TRY(r.halfTensor(in, "input", 4, 4));
  } else {
    NN_TRY(r.quant8Tensor(in, "input", 4, 4));
  }
  if (filter.dimensions.size() != 4 || !nn::isFullySpecified(filter.type, filter.dimensions) ||
      filter.dimensions[0] != 1) {
    return r.fail("filter must be a fully specified [1, h, w, out_channels] tensor");
  }
  const auto& d = in.dimensions;
  const ImageShape image{d[0], nchw ? d[2] : d[1], nchw ? d[3] : d[2], nchw ? d[1] : d[3]};
  const uint32_t kh = filter.dimensions[1], kw = filter.dimensions[2], outC = filter.dimensions[3];
  if (kh > 255 || kw > 255) return r.fail("a {}x{} window is larger than 255", kh, kw);
  if (uint64_t{image.channels} * static_cast<uint32_t>(dm) != outC) {
    return r.fail("output channels {} are not input channels {} x depth multiplier {}", outC, image.channels, dm);
  }
  const uint32_t effH = effectiveFilter(kh, dilH), effW = effectiveFilter(kw, dilW);
  auto pad = r.convolutionPadding(implicit, image.height, image.width, static_cast<uint32_t>(sh),
                                  static_cast<uint32_t>(sw), effH, effW);
  if (!pad.ok()) return pad.error();
  const Padding ph = pad->h, pw = pad->w;
  if (ph.head > 2047 || pw.head > 2047) return r.fail("padding before the image above 2047 is not supported");
  const int64_t outH = (int64_t{image.height} - effH + sh + ph.head + ph.tail) / sh;
  const int64_t outW = (int64_t{image.width} - effW + sw + pw.head + pw.tail) / sw;
  if (outH < 1 || outW < 1) return r.fail("the filter does not fit the padded input");

  auto q = binary16 ? r.fp16Convolution(outC, uint64_t{kh} * kw, act, withValues)
              : r.convQuantization(outC, uint64_t{kh} * kw, act, /*perChannelDim=*/3, /*checkBiasScale=*/false,
                                   withValues);
  if (!q.ok()) return q.error();
  auto layer = std::make_shared<WindowLayer>();
  layer->operationIndex = index;
  layer->type = nn::OperationType::DEPTHWISE_CONV_2D;
  layer->kind = hw::WinKind::kDwconv;
  layer->in = image;
  layer->out = ImageShape{image.batches, static_cast<uint32_t>(outH), static_cast<uint32_t>(outW), outC};
  layer->kh = kh;
  layer->kw = kw;
  layer->sh = static_cast<uint32_t>(sh);
  layer->sw = static_cast<uint32_t>(sw);
  layer->dh = static_cast<uint32_t>(dilH);
  layer->dw = static_cast<uint32_t>(dilW);
  layer->padTop = static_cast<int32_t>(ph.head);
  layer->padLeft = static_cast<int32_t>(pw.head);
  layer->depthMultiplier = static_cast<uint32_t>(dm);
  layer->valueType = q->inputType;  // kFloat16 for a binary16 layer
  layer->weightType = q->weightType;
  layer->inZp = q->inZp;
  layer->wZp = q->wZp;
  layer->outZp = q->outZp;
  layer->clamp = q->clamp;
  layer->columns = std::move(q->columns);
  layer->weights = std::move(q->weights);
  // Shapes in bytes, two a binary16 value (`columns` stay one a value).
  layer->in.channels *= layer->valueBytes();
  layer->out.channels *= layer->valueBytes();
  const DataLayout layout = nchw ? DataLayout::kNCHW : DataLayout::kNHWC;
  layer->inputs = {{op.inputs[0], layer->in, layout}};
  if (q->runtimeWeights) {
    layer->weightsInput = static_cast<uint32_t>(layer->inputs.size());
    ImageShape filterBytes = paddedImage(filter.dimensions);
    filterBytes.channels *= layer->valueBytes();
    layer->inputs.push_back({*q->runtimeWeights, filterBytes, DataLayout::kFlat});
  }
  if (q->runtimeBias) {  // int32, or binary16 on the device (widened when repacked)
    layer->biasInput = static_cast<uint32_t>(layer->inputs.size());
    layer->inputs.push_back({*q->runtimeBias, ImageShape{1, 1, 1, (binary16 ? 2 : 4) * outC}, DataLayout::kFlat});
  }
  layer->outputs = {{op.outputs[0], layer->out, layout}};
  const nn::Dimensions outDims = nchw ? nn::Dimensions{image.batches, outC, layer->out.height, layer->out.width}
                                      : nn::Dimensions{image.batches, layer->out.height, layer->out.width, outC};
  NN_TRY(r.checkOutputDims(outDims));
  LoweredLayer lo;
  lo.work = std::move(layer);
  lo.outputDims = outDims;
  return LoweredOperation(std::move(lo));
}

}  // namespace weft::accel
