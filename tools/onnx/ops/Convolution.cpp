// Convolutions and the normalizations around them, in ONNX's NCHW layout (NNAPI's layout flag
// set: no transposes are added). Weights are constants, rearranged at import into NNAPI's
// filter layouts: CONV_2D and GROUPED_CONV_2D [out, h, w, in/groups], DEPTHWISE_CONV_2D
// [1, h, w, out], TRANSPOSE_CONV_2D [out, h, w, in].
#include <fmt/format.h>

#include <algorithm>

#include <cmath>

#include "OpUtil.h"
#include "Registry.h"
#include "weft/WeftExtension.h"

namespace weft::onnx::ops {
namespace {

using Op = nn::OperationType;


// A float constant of the float type of `like`, from float values.
uint32_t weightsLike(Lowering& l, const std::string& like, const std::vector<float>& values, const Shape& shape,
                     const std::string& name) {
  return floatConstantLike(l, like, values, shape, name);
}

// Weights computed at run time (an input of the model): NNAPI's CONV_2D takes its filter as an
// operand, so a TRANSPOSE puts ONNX's [out, in, h, w] into its [out, h, w, in].
void convertConvRuntimeWeights(const Node& node, Lowering& l) {
  requireAttr(node, "group", 1, 1);
  const Shape &x = shapeOf(l, node.input(0)), &ws = shapeOf(l, node.input(1));
  if (ws.size() != 4) throw ImportError(node.error("weights that are not 4-D"));
  const ConvGeometry g = convGeometry(node, x, ws);
  const int64_t outC = ws[0];
  const std::string name = node.output(0);
  const nn::OperandType type = l.nn().operand(l.operand(node.input(0))).type;
  const uint32_t filter = l.temporary(type, {ws[0], ws[2], ws[3], ws[1]}, name + "_filter");
  l.add(Op::TRANSPOSE, {in(node, l, 1), l.nn().int32Vector({0, 2, 3, 1})}, {filter});
  const uint32_t bias = node.hasInput(2) ? in(node, l, 2)
                                         : weightsLike(l, node.input(0), std::vector<float>(outC, 0.0f), {outC}, name + "_bias");
  auto scalar = [&](int64_t v) { return l.nn().scalarInt32(static_cast<int32_t>(v)); };
  l.add(Op::CONV_2D,
        {in(node, l, 0), filter, bias, scalar(g.pad.left), scalar(g.pad.right), scalar(g.pad.top), scalar(g.pad.bottom),
         scalar(g.strides[1]), scalar(g.strides[0]), scalar(kFuseNone), l.nn().scalarBool(true), scalar(g.dilations[1]),
         scalar(g.dilations[0])},
        {l.output(node, 0)});
}

void convertConv(const Node& node, Lowering& l) {
  onlyAttributes(node, {"auto_pad", "dilations", "group", "kernel_shape", "pads", "strides"});
  requireFloat(node, l, node.input(0));
  const Shape& x = shapeOf(l, node.input(0));
  if (x.size() == 3) return convertAs2d(node, l, convertConv);
  if (x.size() != 4) {
    throw ImportError(node.error(fmt::format("a {}-D input: only 1-D and 2-D convolutions (NCHW) are supported", x.size())));
  }
  if (!l.isConstant(node.input(1))) {
    convertConvRuntimeWeights(node, l);
    return;
  }
  const HostTensor& w = constantInput(node, l, 1, "the weights");
  if (w.shape.size() != 4) throw ImportError(node.error("weights that are not 4-D"));
  const int64_t outC = w.shape[0], inPerGroup = w.shape[1], kh = w.shape[2], kw = w.shape[3];
  const int64_t group = node.attrInt("group", 1), inC = x[1];
  if (group <= 0 || inC != inPerGroup * group || outC % group != 0) {
    throw ImportError(node.error(fmt::format("group {} does not divide {} input and {} output channels", group, inC, outC)));
  }
  const ConvGeometry g = convGeometry(node, x, w.shape);
  const std::vector<float> wf = toFloats(w);
  std::vector<float> bias(static_cast<size_t>(outC), 0.0f);
  if (node.hasInput(2)) bias = toFloats(constantInput(node, l, 2, "the bias"));
  if (static_cast<int64_t>(bias.size()) != outC) throw ImportError(node.error("a bias that is not one value per output channel"));
  const std::string name = node.output(0);
  const uint32_t b = weightsLike(l, node.input(0), bias, {outC}, name + "_bias");
  auto scalar = [&](int64_t v) { return l.nn().scalarInt32(static_cast<int32_t>(v)); };
  std::vector<uint32_t> pads = {scalar(g.pad.left), scalar(g.pad.right), scalar(g.pad.top), scalar(g.pad.bottom),
                                scalar(g.strides[1]), scalar(g.strides[0])};
  const uint32_t input = in(node, l, 0), out = l.output(node, 0);
  if (group == 1) {
    std::vector<float> ohwi(wf.size());
    for (int64_t o = 0; o < outC; ++o)
      for (int64_t i = 0; i < inC; ++i)
        for (int64_t h = 0; h < kh; ++h)
          for (int64_t c = 0; c < kw; ++c) ohwi[((o * kh + h) * kw + c) * inC + i] = wf[((o * inC + i) * kh + h) * kw + c];
    const uint32_t filter = weightsLike(l, node.input(0), ohwi, {outC, kh, kw, inC}, name + "_filter");
    std::vector<uint32_t> args = {input, filter, b};
    args.insert(args.end(), pads.begin(), pads.end());
    args.insert(args.end(), {scalar(kFuseNone), l.nn().scalarBool(true), scalar(g.dilations[1]), scalar(g.dilations[0])});
    l.add(Op::CONV_2D, args, {out});
    return;
  }
  if (group == inC && inPerGroup == 1) {
    // Depthwise: output channel m reads input channel m / multiplier.
    std::vector<float> filter1hwo(wf.size());
    for (int64_t o = 0; o < outC; ++o)
      for (int64_t h = 0; h < kh; ++h)
        for (int64_t c = 0; c < kw; ++c) filter1hwo[(h * kw + c) * outC + o] = wf[(o * kh + h) * kw + c];
    const uint32_t filter = weightsLike(l, node.input(0), filter1hwo, {1, kh, kw, outC}, name + "_filter");
    std::vector<uint32_t> args = {input, filter, b};
    args.insert(args.end(), pads.begin(), pads.end());
    args.insert(args.end(), {scalar(outC / inC), scalar(kFuseNone), l.nn().scalarBool(true), scalar(g.dilations[1]),
                             scalar(g.dilations[0])});
    l.add(Op::DEPTHWISE_CONV_2D, args, {out});
    return;
  }
  if (g.dilations[0] != 1 || g.dilations[1] != 1) {
    throw ImportError(node.error("a dilated grouped convolution (NNAPI's GROUPED_CONV_2D has no dilation)"));
  }
  std::vector<float> ohwi(wf.size());
  for (int64_t o = 0; o < outC; ++o)
    for (int64_t i = 0; i < inPerGroup; ++i)
      for (int64_t h = 0; h < kh; ++h)
        for (int64_t c = 0; c < kw; ++c)
          ohwi[((o * kh + h) * kw + c) * inPerGroup + i] = wf[((o * inPerGroup + i) * kh + h) * kw + c];
  const uint32_t filter = weightsLike(l, node.input(0), ohwi, {outC, kh, kw, inPerGroup}, name + "_filter");
  std::vector<uint32_t> args = {input, filter, b};
  args.insert(args.end(), pads.begin(), pads.end());
  args.insert(args.end(), {scalar(group), scalar(kFuseNone), l.nn().scalarBool(true)});
  l.add(Op::GROUPED_CONV_2D, args, {out});
}

void convertConvTranspose(const Node& node, Lowering& l);
void convertConvTranspose(const Node& node, Lowering& l) {
  onlyAttributes(node, {"auto_pad", "dilations", "group", "kernel_shape", "output_padding", "output_shape", "pads",
                        "strides"});
  requireFloat(node, l, node.input(0));
  requireAttr(node, "group", 1, 1);
  const Shape &x = shapeOf(l, node.input(0)), &y = shapeOf(l, node.output(0));
  if (x.size() == 3) return convertAs2d(node, l, convertConvTranspose);
  if (x.size() != 4) throw ImportError(node.error("only 1-D and 2-D transposed convolutions (NCHW) are supported"));
  const Shape& ws = shapeOf(l, node.input(1));
  if (ws.size() != 4) throw ImportError(node.error("weights that are not 4-D"));
  const int64_t inC = ws[0], outC = ws[1], kh = ws[2], kw = ws[3];
  const auto strides = node.attrInts("strides", {1, 1});
  for (int64_t d : node.attrInts("dilations", {1, 1})) {
    if (d != 1) throw ImportError(node.error("a dilated transposed convolution"));
  }
  // The begin padding by ONNX's rules; the end padding whatever makes NNAPI's output the size
  // shape inference gave (output_padding and output_shape included).
  const std::string autoPad = node.attrString("auto_pad", "NOTSET");
  const auto outPad = node.attrInts("output_padding", {0, 0});
  int64_t begin[2] = {0, 0};
  const int64_t k[2] = {kh, kw};
  for (int d = 0; d < 2; ++d) {
    if (autoPad == "NOTSET" && !node.has("output_shape")) {
      const auto pads = node.attrInts("pads", {0, 0, 0, 0});
      begin[d] = pads[d];
    } else if (autoPad != "VALID") {
      const int64_t total = strides[d] * (x[2 + d] - 1) + outPad[d] + k[d] - y[2 + d];
      begin[d] = autoPad == "SAME_UPPER" || autoPad == "NOTSET" ? total / 2 : total - total / 2;
    }
  }
  int64_t end[2];
  for (int d = 0; d < 2; ++d) {
    end[d] = (x[2 + d] - 1) * strides[d] + k[d] - begin[d] - y[2 + d];
    if (begin[d] < 0 || end[d] < 0) {
      throw ImportError(node.error("an output larger than NNAPI's TRANSPOSE_CONV_2D makes (negative padding)"));
    }
  }
  const std::string name = node.output(0);
  uint32_t filter;
  if (l.isConstant(node.input(1))) {
    const std::vector<float> wf = toFloats(l.constant(node.input(1)));
    std::vector<float> ohwi(wf.size());
    for (int64_t c = 0; c < inC; ++c)
      for (int64_t o = 0; o < outC; ++o)
        for (int64_t h = 0; h < kh; ++h)
          for (int64_t v = 0; v < kw; ++v) ohwi[((o * kh + h) * kw + v) * inC + c] = wf[((c * outC + o) * kh + h) * kw + v];
    filter = weightsLike(l, node.input(0), ohwi, {outC, kh, kw, inC}, name + "_filter");
  } else {
    // Weights computed at run time: a TRANSPOSE puts [in, out, h, w] into NNAPI's [out, h, w, in].
    filter = l.temporary(l.nn().operand(l.operand(node.input(0))).type, {outC, kh, kw, inC}, name + "_filter");
    l.add(Op::TRANSPOSE, {in(node, l, 1), l.nn().int32Vector({1, 2, 3, 0})}, {filter});
  }
  uint32_t bias;
  if (node.hasInput(2) && !l.isConstant(node.input(2))) {
    bias = in(node, l, 2);
  } else {
    std::vector<float> b(static_cast<size_t>(outC), 0.0f);
    if (node.hasInput(2)) b = toFloats(l.constant(node.input(2)));
    bias = weightsLike(l, node.input(0), b, {outC}, name + "_bias");
  }
  auto scalar = [&](int64_t v) { return l.nn().scalarInt32(static_cast<int32_t>(v)); };
  l.add(Op::TRANSPOSE_CONV_2D,
        {in(node, l, 0), filter, bias, scalar(begin[1]), scalar(end[1]), scalar(begin[0]),
         scalar(end[0]), scalar(strides[1]), scalar(strides[0]), scalar(kFuseNone), l.nn().scalarBool(true)},
        {l.output(node, 0)});
}

// Per-channel y = x * a + b as a MUL and an ADD, the channel on axis 1.
void channelAffine(const Node& node, Lowering& l, uint32_t x, const std::vector<float>& a, const std::vector<float>& b,
                   uint32_t out) {
  const Shape& shape = shapeOf(l, node.input(0));
  Shape param(shape.size() - 1, 1);
  param[0] = shape[1];
  const std::string name = node.output(0);
  const uint32_t scaled = l.temporary(l.nn().operand(out).type, shape, name + "_scaled");
  l.add(Op::MUL, {x, floatConstantLike(l, node.input(0), a, param, name + "_scale"), l.nn().scalarInt32(kFuseNone)},
        {scaled});
  l.add(Op::ADD, {scaled, floatConstantLike(l, node.input(0), b, param, name + "_shift"), l.nn().scalarInt32(kFuseNone)},
        {out});
}

void convertBatchNorm(const Node& node, Lowering& l) {
  onlyAttributes(node, {"epsilon", "momentum", "training_mode", "spatial", "is_test"});
  requireAttr(node, "training_mode", 0, 0);
  requireAttr(node, "spatial", 1, 1);
  for (size_t i = 1; i < node.outputCount(); ++i) {
    if (node.hasOutput(i)) throw ImportError(node.error("training outputs (running mean and variance)"));
  }
  requireFloat(node, l, node.input(0));
  if (rankOf(l, node.input(0)) < 2) throw ImportError(node.error("an input without a channel axis"));
  const auto scale = toFloats(constantInput(node, l, 1, "scale")), bias = toFloats(constantInput(node, l, 2, "B"));
  const auto mean = toFloats(constantInput(node, l, 3, "the mean")), var = toFloats(constantInput(node, l, 4, "the variance"));
  const float eps = node.attrFloat("epsilon", 1e-5f);
  std::vector<float> a(scale.size()), b(scale.size());
  for (size_t c = 0; c < scale.size(); ++c) {
    a[c] = scale[c] / std::sqrt(var[c] + eps);
    b[c] = bias[c] - mean[c] * a[c];
  }
  channelAffine(node, l, in(node, l, 0), a, b, l.output(node, 0));
}

// InstanceNormalization of [N, C, D1, ...]: each channel of each item normalized over its
// D1 x ... values, then scaled and shifted by channel. Rank 3 too: PyTorch exports GroupNorm as a
// Reshape to [N, groups, -1], an InstanceNormalization of scale 1 and bias 0, a Reshape back and
// the affine by channel.
void convertInstanceNorm(const Node& node, Lowering& l) {
  onlyAttributes(node, {"epsilon"});
  requireFloat(node, l, node.input(0));
  const Shape& x = shapeOf(l, node.input(0));
  if (x.size() < 3) throw ImportError(node.error("an input of rank below 3 (no axes to normalize over)"));
  const auto scale = toFloats(constantInput(node, l, 1, "scale")), bias = toFloats(constantInput(node, l, 2, "B"));
  const uint32_t out = l.output(node, 0);
  const nn::OperandType type = l.nn().operand(out).type;
  const float epsilon = node.attrFloat("epsilon", 1e-5f);
  const bool identity = std::all_of(scale.begin(), scale.end(), [](float v) { return v == 1.0f; }) &&
                        std::all_of(bias.begin(), bias.end(), [](float v) { return v == 0.0f; });
  const std::string name = node.output(0);
  const uint32_t normalized = identity ? out : l.temporary(type, x, name + "_norm");
  int64_t length = 1;
  for (size_t d = 2; d < x.size(); ++d) length *= x[d];
  // The input seen as `shape`: itself, or a RESHAPE of it.
  const auto seenAs = [&](const Shape& shape, const std::string& what) {
    if (shape == x) return in(node, l, 0);
    const uint32_t seen = l.temporary(type, shape, name + what);
    reshapeTo(l, in(node, l, 0), shape, seen);
    return seen;
  };
  // The normalization computed as `shape`, written to `normalized` (reshaped back where needed).
  const auto into = [&](const Shape& shape, const std::string& what) {
    return shape == x ? normalized : l.temporary(type, shape, name + what);
  };
  if (l.weftExtensions()) {
    // Rows [N, C, D1 x ...] are WEFT_LAYER_NORM over their last axis (gamma 1, beta 0), which int8
    // quantizes and the accelerator runs (NNAPI's INSTANCE_NORMALIZATION is float only: a style
    // transfer network's normalizations stayed float on the CPU).
    const Shape rowsShape{x[0], x[1], length};
    const uint32_t normalizedRows = into(rowsShape, "_normalized_rows");
    const auto n = static_cast<size_t>(length);
    l.add(l.nn().weftOperation(WEFT_LAYER_NORM),
          {seenAs(rowsShape, "_rows"), floatConstantLike(l, node.input(0), std::vector<float>(n, 1.0f), {length}, name + "_gamma"),
           floatConstantLike(l, node.input(0), std::vector<float>(n, 0.0f), {length}, name + "_beta"),
           floatScalarLike(l, node.input(0), epsilon)},
          {normalizedRows});
    if (normalizedRows != normalized) reshapeTo(l, normalizedRows, x, normalized);
  } else {
    // NNAPI's takes an NCHW image: other ranks as [N, C, D1 x ..., 1].
    const Shape image = x.size() == 4 ? x : Shape{x[0], x[1], length, 1};
    const uint32_t normalizedImage = into(image, "_normalized_image");
    l.add(Op::INSTANCE_NORMALIZATION,
          {seenAs(image, "_image"), floatScalarLike(l, node.input(0), 1.0f), floatScalarLike(l, node.input(0), 0.0f),
           floatScalarLike(l, node.input(0), epsilon), l.nn().scalarBool(true)},
          {normalizedImage});
    if (normalizedImage != normalized) reshapeTo(l, normalizedImage, x, normalized);
  }
  if (!identity) channelAffine(node, l, normalized, scale, bias, out);
}

void convertLrn(const Node& node, Lowering& l) {
  onlyAttributes(node, {"alpha", "beta", "bias", "size"});
  requireFloat(node, l, node.input(0));
  const int64_t size = node.attrInt("size", 0);
  if (size <= 0 || size % 2 == 0) throw ImportError(node.error("an even or missing size (NNAPI's window is symmetric)"));
  if (rankOf(l, node.input(0)) > 4) throw ImportError(node.error("an input of rank above 4"));
  // ONNX divides alpha by the window's size; NNAPI does not.
  l.add(Op::LOCAL_RESPONSE_NORMALIZATION,
        {in(node, l, 0), l.nn().scalarInt32(static_cast<int32_t>((size - 1) / 2)),
         floatScalarLike(l, node.input(0), node.attrFloat("bias", 1.0f)),
         floatScalarLike(l, node.input(0), node.attrFloat("alpha", 1e-4f) / static_cast<float>(size)),
         floatScalarLike(l, node.input(0), node.attrFloat("beta", 0.75f)), l.nn().scalarInt32(1)},
        {l.output(node, 0)});
}

}  // namespace

void registerConvolution(Registry& r) {
  r.add("Conv", convertConv);
  r.add("ConvTranspose", convertConvTranspose);
  r.add("BatchNormalization", convertBatchNorm);
  r.add("InstanceNormalization", convertInstanceNorm);
  r.add("LRN", convertLrn);
}

}  // namespace weft::onnx::ops
