// AVERAGE_POOL_2D, MAX_POOL_2D and MEAN (over adjacent axes) on the vector unit (WindowLayer):
// quant8 asymmetric or signed with the same quantization in and out (NNAPI's rule for these),
// windows and strides up to 255, explicit or implicit padding (the hardware counts only the taps
// inside the image, as NNAPI's average does), NHWC or NCHW, fused NONE/RELU/RELU1/RELU6. The
// lanes compute on raw values, so the STORE only clamps: max, the average rounded half away
// from zero, the MEAN truncated, as the reference kernels. With the fp16 datapath the pools and
// MEAN also take TENSOR_FLOAT16 (and relaxed TENSOR_FLOAT32): binary16 windows, an average's
// binary32 sum divided by its count of valid taps, rounded to binary16 by the STORE.
#include <algorithm>
#include <set>

#include "../ExecutionParameters.h"
#include "Families.h"
#include "WindowLayer.h"

namespace weft::accel {
namespace {

nn::Status sameQuantization(const OperationReader& r, const nn::Operand& in, const nn::Operand& out) {
  NN_TRY(r.sameType(in, out, "input and output"));
  if (in.scale != out.scale || in.zeroPoint != out.zeroPoint) {
    return r.fail("input and output must share scale and zero point");
  }
  return {};
}

// The pools' and MEAN's input 0 and output 0: binary16 (OperationReader::halfType) of one type,
// or quant8 of one quantization. The type of their values.
nn::Result<ElementType> poolTensors(const OperationReader& r, size_t minRank, size_t maxRank) {
  const auto& in = r.input(0);
  const auto& out = r.output(0);
  if (r.halfType(in)) {
    NN_TRY(r.halfTensor(in, "input", minRank, maxRank));
    NN_TRY(r.sameType(in, out, "input and output"));
    return ElementType::kFloat16;
  }
  NN_TRY(r.quant8Tensor(in, "input", minRank, maxRank));
  NN_TRY(sameQuantization(r, in, out));
  return r.valueType(in);
}

std::shared_ptr<WindowLayer> poolingLayer(const OperationReader& r, uint32_t index, hw::WinKind kind,
                                          const ImageShape& in, const ImageShape& out, DataLayout layout) {
  auto layer = std::make_shared<WindowLayer>();
  layer->operationIndex = index;
  layer->type = r.op().type;
  layer->kind = kind;
  layer->in = in;
  layer->out = out;
  layer->valueType = quant8(isSignedType(r.input(0).type));
  layer->inputs = {{r.op().inputs[0], in, layout}};
  layer->outputs = {{r.op().outputs[0], out, layout}};
  return layer;
}

}  // namespace

nn::Result<LoweredOperation> lowerPool2d(const OperationReader& r, uint32_t index, bool) {
  const auto& op = r.op();
  const size_t n = op.inputs.size();
  NN_TRY(r.expectCounts({7, 8, 10, 11}, 1));
  const bool isExplicit = n >= 10;
  const uint32_t first = isExplicit ? 5 : 2;  // stride width
  int32_t p[5];
  const char* names[5] = {"stride width", "stride height", "filter width", "filter height", "fused activation"};
  for (uint32_t i = 0; i < 5; ++i) {
    auto v = r.int32Param(first + i, names[i]);
    if (!v.ok()) return v.error();
    p[i] = *v;
  }
  const int32_t sw = p[0], sh = p[1], fw = p[2], fh = p[3], act = p[4];
  for (int32_t v : {sw, sh, fw, fh}) {
    if (v < 1 || v > 255) return r.fail("strides and the filter size must be in [1, 255]");
  }
  bool nchw = false;
  if (n == (isExplicit ? 11u : 8u)) {
    auto l = r.boolParam(isExplicit ? 10 : 7, "data layout");
    if (!l.ok()) return l.error();
    nchw = *l;
  }
  const auto& in = r.input(0);
  const auto& out = r.output(0);
  auto types = poolTensors(r, 4, 4);
  if (!types.ok()) return types.error();
  const ElementType valueType = *types;
  const auto& d = in.dimensions;
  const ImageShape image{d[0], nchw ? d[2] : d[1], nchw ? d[3] : d[2], nchw ? d[1] : d[3]};
  Padding ph, pw;
  if (isExplicit) {
    const char* padNames[4] = {"padding left", "padding right", "padding top", "padding bottom"};
    int64_t* pads[4] = {&pw.head, &pw.tail, &ph.head, &ph.tail};
    for (uint32_t i = 0; i < 4; ++i) {
      auto v = r.int32Param(1 + i, padNames[i]);
      if (!v.ok()) return v.error();
      if (*v < 0) return r.fail("{} is negative", padNames[i]);
      *pads[i] = *v;
    }
  } else {
    auto scheme = r.int32Param(1, "padding scheme");
    if (!scheme.ok()) return scheme.error();
    auto a = r.implicitPadding(*scheme, image.height, sh, fh);
    if (!a.ok()) return a.error();
    auto b = r.implicitPadding(*scheme, image.width, sw, fw);
    if (!b.ok()) return b.error();
    ph = *a;
    pw = *b;
  }
  if (ph.head > 2047 || pw.head > 2047) return r.fail("padding before the image above 2047 is not supported");
  const int64_t outH = (int64_t{image.height} - fh + sh + ph.head + ph.tail) / sh;
  const int64_t outW = (int64_t{image.width} - fw + sw + pw.head + pw.tail) / sw;
  if (outH < 1 || outW < 1) return r.fail("the window does not fit the padded input");
  auto clamp = isFloat(valueType) ? r.fp16Clamp(act) : r.activationClamp(act, out);
  if (!clamp.ok()) return clamp.error();

  const ImageShape result{image.batches, static_cast<uint32_t>(outH), static_cast<uint32_t>(outW), image.channels};
  const auto kind = op.type == nn::OperationType::MAX_POOL_2D ? hw::WinKind::kMax : hw::WinKind::kAvg;
  // binary16: the shapes count bytes, two a value (WindowLayer.h).
  const uint32_t valueBytes = bytesPerElement(valueType);
  ImageShape inBytes = image, outBytes = result;
  inBytes.channels *= valueBytes;
  outBytes.channels *= valueBytes;
  auto layer = poolingLayer(r, index, kind, inBytes, outBytes, nchw ? DataLayout::kNCHW : DataLayout::kNHWC);
  layer->valueType = valueType;
  layer->kh = static_cast<uint32_t>(fh);
  layer->kw = static_cast<uint32_t>(fw);
  layer->sh = static_cast<uint32_t>(sh);
  layer->sw = static_cast<uint32_t>(sw);
  layer->padTop = static_cast<int32_t>(ph.head);
  layer->padLeft = static_cast<int32_t>(pw.head);
  layer->clamp = *clamp;
  const nn::Dimensions outDims = nchw ? nn::Dimensions{result.batches, result.channels, result.height, result.width}
                                      : nn::Dimensions{result.batches, result.height, result.width, result.channels};
  NN_TRY(r.checkOutputDims(outDims));
  LoweredLayer lo;
  lo.work = std::move(layer);
  lo.outputDims = outDims;
  return LoweredOperation(std::move(lo));
}

namespace {

// MEAN's `count` constant axes (int32 at `bytes`), each made to lie in [0, rank).
nn::Result<std::set<int32_t>> meanAxes(const OperationReader& r, const uint8_t* bytes, uint32_t count, int32_t rank) {
  std::set<int32_t> axes;
  for (uint32_t i = 0; i < count; ++i) {
    int32_t a;
    std::memcpy(&a, bytes + 4 * i, 4);
    if (a < -rank || a >= rank) return r.fail("axis {} is out of range for rank {}", a, rank);
    axes.insert(a < 0 ? a + rank : a);
  }
  if (axes.empty()) return r.fail("no axis to reduce");
  return axes;
}

// The tensor as runs of adjacent reduced or kept axes (axes of extent 1 change nothing):
// kept? reduced (kept reduced)? kept?. Its dense bytes are then an NHWC image of
// outer x R1 x (K * R2) x inner, reduced by one R1 x R2 window with a column stride of R2:
// the window at column k covers exactly the elements of kept index k. With a single
// reduced run, R = R1 x R2 is factored so both sides fit the hardware's 255.
struct MeanWindow {
  uint64_t outer = 1, r1 = 1, kept = 1, r2 = 1, inner = 1;
};
nn::Result<MeanWindow> meanWindow(const OperationReader& r, const nn::Dimensions& d, const std::set<int32_t>& axes) {
  const auto rank = static_cast<int32_t>(d.size());
  struct Run {
    bool reduce;
    uint64_t elements;
  };
  std::vector<Run> runs;
  for (int32_t a = 0; a < rank; ++a) {
    if (d[a] == 1) continue;
    const bool reduce = axes.count(a) > 0;
    if (runs.empty() || runs.back().reduce != reduce) runs.push_back({reduce, 1});
    runs.back().elements *= d[a];
  }
  MeanWindow w;
  if (!runs.empty() && !runs.front().reduce) {
    w.outer = runs.front().elements;
    runs.erase(runs.begin());
  }
  if (!runs.empty() && !runs.back().reduce) {
    w.inner = runs.back().elements;
    runs.pop_back();
  }
  if (runs.size() == 3) {
    w.r1 = runs[0].elements;
    w.kept = runs[1].elements;
    w.r2 = runs[2].elements;
  } else if (runs.size() == 1 && rank == 4 && w.outer == d[0] && w.inner == d[3]) {
    w.r1 = d[1];  // the spatial axes: the image's own window
    w.r2 = d[2];
  } else if (runs.size() == 1) {
    const uint64_t all = runs[0].elements;
    for (w.r1 = std::min<uint64_t>(all, 255); all % w.r1 != 0;) --w.r1;
    w.r2 = all / w.r1;
  } else if (!runs.empty()) {
    return r.fail("{} over {} separate groups of axes (at most two, around one kept group)", nn::toString(r.op().type),
                  (runs.size() + 1) / 2);
  }
  if (w.r1 > 255 || w.r2 > 255) {
    return r.fail("a reduction over {}x{} values does not fit the hardware's 255x255 window", w.r1, w.r2);
  }
  if (w.outer > UINT32_MAX || w.kept * w.r2 > UINT32_MAX || w.inner > UINT32_MAX) {
    return r.fail("the tensor is too large");
  }
  return w;
}

}  // namespace

// MEAN (kMean) and REDUCE_MAX (kMax: the largest value, exact; keep_dims a BOOL) as one window.
static nn::Result<LoweredOperation> lowerReduction(const OperationReader& r, uint32_t index, bool withValues,
                                                  hw::WinKind kind) {
  NN_TRY(r.expectCounts({3}, 1));
  const auto keepDims = [&]() -> nn::Result<int32_t> {
    if (kind == hw::WinKind::kMean) return r.int32Param(2, "keep_dims");
    auto b = r.boolParam(2, "keep_dims");
    if (!b.ok()) return b.error();
    return *b ? 1 : 0;
  };
  const auto& in = r.input(0);
  auto types = poolTensors(r, 1, 4);
  if (!types.ok()) return types.error();
  const ElementType valueType = *types;
  const auto& axesOperand = r.input(1);
  if (isExecutionParameter(r, 1)) {
    if (axesOperand.type != nn::OperandType::TENSOR_INT32 || axesOperand.dimensions.size() != 1 ||
        !nn::isFullySpecified(axesOperand.type, axesOperand.dimensions)) {
      return r.fail("axes given at execution must be a fully specified 1-D TENSOR_INT32");
    }
    auto keep = keepDims();
    if (!keep.ok()) return keep.error();
    if (withValues) return r.fail("its axes are given at execution: the model is compiled when they are");
    return compiledAtExecution(r, index);
  }
  if (axesOperand.type != nn::OperandType::TENSOR_INT32 || axesOperand.dimensions.size() != 1 ||
      !isConstant(axesOperand)) {
    return r.fail("axes must be a constant 1-D TENSOR_INT32");
  }
  const uint8_t* bytes = constantBytes(r.model(), axesOperand);
  const uint32_t count = axesOperand.dimensions[0];
  if (bytes == nullptr || axesOperand.location.length < 4ull * count) return r.fail("axes value is too short");
  if (kind == hw::WinKind::kMax) NN_TRY(r.sameType(in, r.output(0), "input and output"));
  auto keep = keepDims();
  if (!keep.ok()) return keep.error();
  const auto rank = static_cast<int32_t>(in.dimensions.size());
  auto parsed = meanAxes(r, bytes, count, rank);
  if (!parsed.ok()) return parsed.error();
  const std::set<int32_t>& axes = parsed.value();
  const auto& d = in.dimensions;
  auto window = meanWindow(r, d, axes);
  if (!window.ok()) return window.error();
  const auto [outer, r1, kept, r2, inner] = window.value();
  const ImageShape image{static_cast<uint32_t>(outer), static_cast<uint32_t>(r1), static_cast<uint32_t>(kept * r2),
                         static_cast<uint32_t>(inner)};
  const ImageShape result{image.batches, 1, static_cast<uint32_t>(kept), image.channels};
  // A rank-4 tensor reduced over its spatial axes is viewed as its own NHWC image (it may carry
  // a halo or be read by others as an image); every other view reads dense bytes.
  const bool natural = rank == 4 && image.batches == d[0] && image.height == d[1] && image.width == d[2] &&
                       image.channels == d[3];
  // binary16: the innermost (lane) run counts bytes, two a value (WindowLayer.h); the sum is
  // binary32 and divided by its count, truncation being a quant8 rule.
  ImageShape inBytes = image, outBytes = result;
  inBytes.channels *= bytesPerElement(valueType);
  outBytes.channels *= bytesPerElement(valueType);
  auto layer = poolingLayer(r, index, kind, inBytes, outBytes, natural ? DataLayout::kNHWC : DataLayout::kFlat);
  layer->kh = static_cast<uint32_t>(r1);
  layer->kw = static_cast<uint32_t>(r2);
  layer->sw = static_cast<uint32_t>(r2);
  const bool isSigned = isSignedType(in.type);
  layer->clamp = ClampRange{isSigned ? -128 : 0, isSigned ? 127 : 255};
  if (isFloat(valueType)) {
    layer->valueType = valueType;
    layer->clamp = *r.fp16Clamp(0);
  }
  nn::Dimensions outDims;
  for (int32_t i = 0; i < rank; ++i) {
    if (axes.count(i) == 0) {
      outDims.push_back(d[i]);
    } else if (*keep > 0) {
      outDims.push_back(1);
    }
  }
  if (outDims.empty()) outDims = {1};  // every axis reduced away: one element, as the reference
  NN_TRY(r.checkOutputDims(outDims));
  LoweredLayer lo;
  lo.work = std::move(layer);
  lo.outputDims = outDims;
  return LoweredOperation(std::move(lo));
}

nn::Result<LoweredOperation> lowerMean(const OperationReader& r, uint32_t index, bool withValues) {
  return lowerReduction(r, index, withValues, hw::WinKind::kMean);
}

nn::Result<LoweredOperation> lowerReduceMax(const OperationReader& r, uint32_t index, bool withValues) {
  return lowerReduction(r, index, withValues, hw::WinKind::kMax);
}

}  // namespace weft::accel
