// RESIZE_NEAREST_NEIGHBOR on the vector unit (StridedCopy.h): every output pixel is a copy of the
// input pixel the reference kernel samples (weft/kernels/ResizeSampling.h, float rounding
// included), so the resize is a strided copy. The rows (and columns) it reads repeat with a
// period: a whole upscale by s reads row k for output rows s*k to s*k + s - 1, a whole downscale
// by s reads every s-th row. Each phase of the period is one box, its rows strided by the period
// in the output and by the period's input advance in the input: an upscale by 2 in both axes is
// four boxes, each the whole input written to every other pixel of every other row. Mappings that
// repeat only after more than kMaxBoxes boxes (a ratio of large coprime sizes) are refused.
// Quant8 or fp16, NHWC or NCHW, sizes or scales as constants; the output keeps the input's
// quantization, as the operation requires. U-Nets, feature pyramids and YOLO's necks upsample so.
#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "Families.h"
#include "ResizeOperands.h"
#include "StridedCopy.h"
#include "weft/kernels/Float16.h"
#include "weft/kernels/ResizeSampling.h"

namespace weft::accel {
namespace {

constexpr size_t kMaxBoxes = 64;

// One phase along an axis: output indexes first, first + period, ... read input indexes
// source, source + advance, ...
struct Phase {
  uint32_t first, source, count;
};
struct Phases {
  uint32_t period = 1, advance = 0;
  std::vector<Phase> phases;
};

// The shortest period p with source(i + p) = source(i) + a for every i (a > 0 unless each phase
// is one index: a copy never reads one value twice in a box), found from the sources.
Phases phasesOf(const std::vector<uint32_t>& source) {
  const auto n = static_cast<uint32_t>(source.size());
  for (uint32_t p = 1; p <= n; ++p) {
    const uint32_t advance = p < n ? source[p] - source[0] : 0;
    if (p < n && (source[p] < source[0] || advance == 0)) continue;
    bool repeats = true;
    for (uint32_t i = p; i < n && repeats; ++i) repeats = source[i] == source[i - p] + advance;
    if (!repeats) continue;
    Phases result{p, advance, {}};
    for (uint32_t a = 0; a < p; ++a) result.phases.push_back(Phase{a, source[a], (n - a + p - 1) / p});
    return result;
  }
  return {};  // not reached: p = n always repeats
}

}  // namespace

nn::Result<ResizeOperands> readResizeOperands(const OperationReader& r) {
  const nn::Dimensions& dims = r.input(0).dimensions;
  if (dims.size() != 4) return r.fail("a {}-D input (an image is 4-D)", dims.size());
  const size_t inputs = r.op().inputs.size();
  const auto flag = [&](uint32_t i, const char* what) -> nn::Result<bool> {
    if (inputs <= i) return false;
    return r.boolParam(i, what);
  };
  auto nchw = flag(3, "layout");
  if (!nchw.ok()) return nchw.error();
  auto alignCorners = flag(4, "align_corners");
  if (!alignCorners.ok()) return alignCorners.error();
  auto halfPixel = flag(5, "half_pixel_centers");
  if (!halfPixel.ok()) return halfPixel.error();
  ResizeOperands o;
  o.nchw = *nchw;
  o.alignCorners = *alignCorners;
  o.halfPixel = *halfPixel;
  o.hAxis = o.nchw ? 2 : 1;
  o.wAxis = o.nchw ? 3 : 2;
  o.inH = dims[o.hAxis];
  o.inW = dims[o.wAxis];
  // The output's size, from the sizes or the scales given (the reference kernel's prepare()).
  if (r.input(1).type == nn::OperandType::INT32) {
    auto w = r.int32Param(1, "output width");
    if (!w.ok()) return w.error();
    auto h = r.int32Param(2, "output height");
    if (!h.ok()) return h.error();
    if (*w <= 0 || *h <= 0) return r.fail("an output of {}x{}", *w, *h);
    o.outW = static_cast<uint32_t>(*w), o.outH = static_cast<uint32_t>(*h);
  } else {
    // FLOAT32 scales, or a float16 model's FLOAT16 ones (widened, as the reference reads them).
    const auto scale = [&](uint32_t i, const char* what) -> nn::Result<float> {
      if (r.input(i).type != nn::OperandType::FLOAT16) return r.floatParam(i, what);
      auto bits = r.halfParam(i, what);
      if (!bits.ok()) return bits.error();
      nn::Float16 h;
      std::memcpy(&h, &*bits, sizeof h);
      return static_cast<float>(h);
    };
    auto w = scale(1, "width scale");
    if (!w.ok()) return w.error();
    auto h = scale(2, "height scale");
    if (!h.ok()) return h.error();
    const float fh = std::floor(static_cast<float>(o.inH) * *h), fw = std::floor(static_cast<float>(o.inW) * *w);
    if (!(fh >= 1 && fw >= 1 && fh < 65536 && fw < 65536)) {
      return r.fail("scales {} and {} of {}x{}", *w, *h, o.inW, o.inH);
    }
    o.outH = static_cast<uint32_t>(fh), o.outW = static_cast<uint32_t>(fw);
  }
  o.outDims = dims;
  o.outDims[o.hAxis] = o.outH;
  o.outDims[o.wAxis] = o.outW;
  return o;
}

nn::Result<LoweredOperation> lowerResizeNearest(const OperationReader& r, uint32_t index, bool /*withValues*/) {
  NN_TRY(checkCopiedOperands(r));
  auto operands = readResizeOperands(r);
  if (!operands.ok()) return operands.error();
  const ResizeOperands& o = *operands;
  const nn::Dimensions& dims = r.input(0).dimensions;
  const size_t hAxis = o.hAxis, wAxis = o.wAxis;
  const uint32_t inH = o.inH, inW = o.inW, outH = o.outH, outW = o.outW;
  const bool alignCorners = o.alignCorners, halfPixel = o.halfPixel;
  const auto sources = [&](uint32_t inSize, uint32_t outSize) {
    const float scale = nn::resize_image::resizeScale(inSize, outSize, alignCorners);
    std::vector<uint32_t> s(outSize);
    for (uint32_t i = 0; i < outSize; ++i)
      s[i] = nn::resize_image::nearestSource(i, scale, inSize, alignCorners, halfPixel);
    return s;
  };
  const Phases rows = phasesOf(sources(inH, outH)), cols = phasesOf(sources(inW, outW));
  if (rows.phases.size() * cols.phases.size() > kMaxBoxes) {
    return r.fail("{}x{} -> {}x{}: its rows and columns repeat only every {} and {} (more than {} copies)", inW, inH,
                  outW, outH, rows.period, cols.period, kMaxBoxes);
  }
  const nn::Dimensions& outDims = o.outDims;
  const uint32_t valueBytes = bytesPerElement(r.valueType(r.input(0)));
  const std::vector<uint64_t> in = denseStrides(dims, valueBytes), out = denseStrides(outDims, valueBytes);
  std::vector<CopyBox> boxes;
  for (const Phase& y : rows.phases) {
    for (const Phase& x : cols.phases) {
      CopyBox box;
      box.inputOffset = y.source * in[hAxis] + x.source * in[wAxis];
      box.outputOffset = y.first * out[hAxis] + x.first * out[wAxis];
      for (size_t k = 0; k < 4; ++k) {
        if (k == hAxis) {
          box.axes.push_back(CopyAxis{y.count, rows.advance * in[hAxis], rows.period * out[hAxis]});
        } else if (k == wAxis) {
          box.axes.push_back(CopyAxis{x.count, cols.advance * in[wAxis], cols.period * out[wAxis]});
        } else {
          box.axes.push_back(CopyAxis{dims[k], in[k], out[k]});
        }
      }
      boxes.push_back(std::move(box));
    }
  }
  return lowerToCopies(r, index, std::move(boxes), outDims,
                       fmt::format("nearest resize {}x{} -> {}x{} ({} copies)", inW, inH, outW, outH,
                                   rows.phases.size() * cols.phases.size()));
}

}  // namespace weft::accel
