// TRANSPOSE_CONV_2D on the systolic array: one CONV_2D layer a phase of its output.
//
// A transposed convolution scatters input pixel (y, x) through the filter into output pixels
// (y*s + ky - padTop, x*s + kx - padLeft). So output row oy (u = oy + padTop = s*t + r) gathers
// the taps ky = r, r + s, r + 2s, ... from input rows t, t - 1, t - 2, ...: the outputs of one
// phase r of the rows by one phase q of the columns are an ordinary convolution of the input, at
// stride 1, with the sub-filter of those taps in reverse order (ceil((k - r) / s) of them an axis),
// padded so that the first output's window ends at its input pixel. Each is a CONV_2D layer
// (GemmLayer) writing every s-th pixel of every s-th row of the output (GemmLayer's phase: the
// views keep the output image's strides): U-Net's and a decoder's ConvTranspose2d(k=2, s=2) is
// four 1x1 convolutions, a DCGAN's (k=4, s=2, p=1) four 2x2 ones. Each output is the same sum of
// the same products as the reference's scatter, requantized by the same rule (its
// ConvQuantization): byte for byte the reference's. A phase no tap reaches (s > k) is a 1x1
// convolution by the filter's zero point: the bias alone.
//
// Quant8 asymmetric or signed, per-channel filters (dimension 0), explicit or implicit (SAME,
// VALID; a negative tail trims the output) padding, NHWC or NCHW, fused NONE/RELU/RELU1/RELU6.
// Filter and bias must be constants (each phase takes its own taps of the filter).
#include <algorithm>

#include "Families.h"

namespace weft::accel {
namespace {

// One axis of the transposed convolution: its phases as convolutions.
struct AxisPhase {
  uint32_t taps = 1;       // of the sub-filter (0: no tap reaches the phase; a 1x1 by zeros)
  uint32_t firstTap = 0;   // the filter tap of the sub-filter's last tap (r): tap j is firstTap + (taps - 1 - j) * s
  uint32_t outFirst = 0;   // its first output pixel
  uint32_t count = 0;      // its outputs, s apart
  uint32_t inFirst = 0;    // the input pixel the first window starts at (when it starts inside)
  uint32_t padHead = 0, padTail = 0;
};

// The phases of an axis of `in` input pixels, `out` output pixels, filter size `k`, stride `s`,
// head padding `pad`.
std::vector<AxisPhase> phasesOf(uint32_t in, uint32_t out, uint32_t k, uint32_t s, uint32_t pad) {
  std::vector<AxisPhase> phases;
  for (uint32_t r = 0; r < s; ++r) {
    AxisPhase p;
    p.firstTap = r;
    p.taps = r < k ? (k - r + s - 1) / s : 0;
    // Its outputs: oy = s*t + r - pad for the t that fall in [0, out).
    const int64_t t0 = r >= pad ? 0 : (int64_t{pad} - r + s - 1) / s;
    const int64_t first = s * t0 + r - int64_t{pad};
    if (first >= out) continue;
    p.outFirst = static_cast<uint32_t>(first);
    p.count = static_cast<uint32_t>((out - 1 - first) / s + 1);
    // A phase whose first output's window started past the input would read only padding, as one
    // without taps does (the output's size keeps every window within reach of the input, so this
    // only guards the shapes below against underflow).
    if (p.taps > 0 && t0 - (int64_t{p.taps} - 1) > int64_t{in} - 1) p.taps = 0;
    if (p.taps == 0) {  // weights of nothing: any pixels do, from the first
      p.padTail = p.count > in ? p.count - in : 0;
      phases.push_back(p);
      continue;
    }
    // Output t reads input pixels t - (taps - 1) .. t: a window from t0 - (taps - 1) on.
    const int64_t start = t0 - (int64_t{p.taps} - 1);
    p.padHead = start < 0 ? static_cast<uint32_t>(-start) : 0;
    p.inFirst = start > 0 ? static_cast<uint32_t>(start) : 0;
    const int64_t lastRead = t0 + p.count - 1;  // the last window's last input pixel
    p.padTail = lastRead > int64_t{in} - 1 ? static_cast<uint32_t>(lastRead - (in - 1)) : 0;
    phases.push_back(p);
  }
  return phases;
}

struct TransposeParams {
  int32_t padLeft = 0, padRight = 0, padTop = 0, padBottom = 0;
  int32_t strideW = 1, strideH = 1, activation = 0;
  bool nchw = false;
};

// NNAPI's SAME padding of a transposed convolution making `outSize` (the reference kernel's): the
// head as a convolution over the output would have it, the tail what is left (maybe negative).
void samePadding(int32_t outSize, int32_t stride, int32_t filter, int32_t* head, int32_t* tail) {
  const int32_t windows = (outSize + stride - 1) / stride;
  const int32_t needed = (windows - 1) * stride + filter - outSize;
  *head = needed > 0 ? needed / 2 : 0;
  *tail = needed - *head;
}

nn::Result<TransposeParams> readParams(const OperationReader& r, uint32_t fh, uint32_t fw) {
  const size_t n = r.op().inputs.size();
  if (n != 9 && n != 11) return r.fail("expects 9 or 11 inputs, got {}", n);
  TransposeParams p;
  const auto int32 = [&](uint32_t i, const char* what, int32_t& v) -> nn::Status {
    auto value = r.int32Param(i, what);
    if (!value.ok()) return value.error();
    v = *value;
    return {};
  };
  uint32_t at = 0;
  if (n == 11) {
    NN_TRY(int32(3, "left padding", p.padLeft));
    NN_TRY(int32(4, "right padding", p.padRight));
    NN_TRY(int32(5, "top padding", p.padTop));
    NN_TRY(int32(6, "bottom padding", p.padBottom));
    at = 7;
  } else {
    at = 5;
  }
  NN_TRY(int32(at, "stride width", p.strideW));
  NN_TRY(int32(at + 1, "stride height", p.strideH));
  NN_TRY(int32(at + 2, "fused activation", p.activation));
  auto layout = r.boolParam(at + 3, "layout");
  if (!layout.ok()) return layout.error();
  p.nchw = *layout;
  if (p.strideW < 1 || p.strideH < 1 || p.strideW > 255 || p.strideH > 255) {
    return r.fail("strides must be in [1, 255]");
  }
  if (n == 9) {
    auto shape = r.int32Tensor(3, "output shape");
    if (!shape.ok()) return shape.error();
    if (shape->size() != 4) return r.fail("the output shape has {} values, not 4", shape->size());
    int32_t scheme = 0;
    NN_TRY(int32(4, "padding scheme", scheme));
    const int32_t outH = (*shape)[p.nchw ? 2 : 1], outW = (*shape)[p.nchw ? 3 : 2];
    if (outH < 1 || outW < 1) return r.fail("an output of {}x{}", outW, outH);
    if (scheme == 1) {  // SAME
      samePadding(outW, p.strideW, static_cast<int32_t>(fw), &p.padLeft, &p.padRight);
      samePadding(outH, p.strideH, static_cast<int32_t>(fh), &p.padTop, &p.padBottom);
    } else if (scheme != 2) {
      return r.fail("padding scheme {}", scheme);
    }
  }
  if (p.padLeft < 0 || p.padTop < 0) return r.fail("negative left or top padding");
  return p;
}

}  // namespace

nn::Result<LoweredOperation> lowerTransposeConv2d(const OperationReader& r, uint32_t index, bool withValues) {
  const auto& op = r.op();
  if (op.outputs.size() != 1) return r.fail("expects 1 output, got {}", op.outputs.size());
  if (op.inputs.size() < 9) return r.fail("expects 9 or 11 inputs, got {}", op.inputs.size());
  const auto& in = r.input(0);
  const auto& filter = r.input(1);
  if (isFloat(r.valueType(in))) return r.fail("a float16 transposed convolution is not lowered (quant8 only)");
  NN_TRY(r.quant8Tensor(in, "input", 4, 4));
  if (filter.dimensions.size() != 4 || !nn::isFullySpecified(filter.type, filter.dimensions)) {
    return r.fail("filter must be a fully specified [out, h, w, in] tensor");
  }
  const uint32_t outC = filter.dimensions[0], fh = filter.dimensions[1], fw = filter.dimensions[2];
  auto params = readParams(r, fh, fw);
  if (!params.ok()) return params.error();
  const TransposeParams& p = *params;
  const auto& d = in.dimensions;
  const ImageShape image{d[0], p.nchw ? d[2] : d[1], p.nchw ? d[3] : d[2], p.nchw ? d[1] : d[3]};
  if (filter.dimensions[3] != image.channels) {
    return r.fail("filter depth {} differs from input depth {}", filter.dimensions[3], image.channels);
  }
  const int64_t outH = int64_t{image.height} * p.strideH + fh - p.strideH - p.padTop - p.padBottom;
  const int64_t outW = int64_t{image.width} * p.strideW + fw - p.strideW - p.padLeft - p.padRight;
  if (outH < 1 || outW < 1 || outH > 65535 || outW > 65535) return r.fail("an output of {}x{}", outW, outH);
  const nn::Dimensions outDims = p.nchw ? nn::Dimensions{image.batches, outC, static_cast<uint32_t>(outH),
                                                         static_cast<uint32_t>(outW)}
                                        : nn::Dimensions{image.batches, static_cast<uint32_t>(outH),
                                                         static_cast<uint32_t>(outW), outC};
  NN_TRY(r.checkOutputDims(outDims));
  const uint64_t k = uint64_t{fh} * fw * image.channels;
  auto q = r.convQuantization(outC, k, p.activation, /*perChannelDim=*/0, /*checkBiasScale=*/true, withValues);
  if (!q.ok()) return q.error();
  if (q->runtimeWeights || q->runtimeBias) {
    return r.fail("a transposed convolution's filter and bias must be constants (each phase takes its own taps)");
  }
  const auto rows = phasesOf(image.height, static_cast<uint32_t>(outH), fh, static_cast<uint32_t>(p.strideH),
                             static_cast<uint32_t>(p.padTop));
  const auto cols = phasesOf(image.width, static_cast<uint32_t>(outW), fw, static_cast<uint32_t>(p.strideW),
                             static_cast<uint32_t>(p.padLeft));
  LoweredOperation lowered;
  for (const AxisPhase& y : rows) {
    for (const AxisPhase& x : cols) {
      LoweredLayer lo;
      GemmLayer& layer = *lo.gemm();
      layer.operationIndex = index;
      layer.type = nn::OperationType::TRANSPOSE_CONV_2D;
      layer.nchw = p.nchw;
      lo.inputLayout = lo.outputLayout = p.nchw ? DataLayout::kNCHW : DataLayout::kNHWC;
      const uint32_t th = std::max(1u, y.taps), tw = std::max(1u, x.taps);
      layer.filterH = th;
      layer.filterW = tw;
      layer.input = ImageShape{image.batches, image.height - y.inFirst, image.width - x.inFirst, image.channels};
      layer.inputFirstRow = y.inFirst;
      layer.inputFirstCol = x.inFirst;
      layer.output = ImageShape{image.batches, y.count, x.count, outC};
      layer.outputFirstRow = y.outFirst;
      layer.outputFirstCol = x.outFirst;
      layer.outputRowStep = static_cast<uint32_t>(p.strideH);
      layer.outputColStep = static_cast<uint32_t>(p.strideW);
      layer.padTop = y.padHead;
      layer.padBottom = y.padTail;
      layer.padLeft = x.padHead;
      layer.padRight = x.padTail;
      ConvQuantization part = *q;
      if (!q->weights.empty()) {
        // Sub-filter tap (jy, jx) is filter tap (firstTap + (taps - 1 - j) * s) along each axis;
        // a phase no tap reaches weighs by the zero point (nothing).
        const uint64_t subK = uint64_t{th} * tw * image.channels;
        part.weights.assign(outC * subK, static_cast<uint8_t>(q->wZp));
        for (uint32_t o = 0; o < outC; ++o)
          for (uint32_t jy = 0; jy < y.taps; ++jy)
            for (uint32_t jx = 0; jx < x.taps; ++jx) {
              const uint32_t ky = y.firstTap + (y.taps - 1 - jy) * static_cast<uint32_t>(p.strideH);
              const uint32_t kx = x.firstTap + (x.taps - 1 - jx) * static_cast<uint32_t>(p.strideW);
              std::copy_n(q->weights.begin() + static_cast<std::ptrdiff_t>(o * k + (uint64_t{ky} * fw + kx) * image.channels),
                          image.channels,
                          part.weights.begin() + static_cast<std::ptrdiff_t>(o * subK + (uint64_t{jy} * tw + jx) * image.channels));
            }
      }
      applyQuantization(layer, part);
      layer.weights = std::move(part.weights);
      layer.inputOperand = op.inputs[0];
      layer.outputOperand = op.outputs[0];
      lo.outputDims = outDims;
      lowered.layers.push_back(std::move(lo));
    }
  }
  if (lowered.layers.empty()) return r.fail("no output pixel");
  return lowered;
}

}  // namespace weft::accel
