// ROI_ALIGN: bilinear-sampled average pooling of each region of interest to a fixed output size.
//   input [batches, height, width, depth] (NCHW when the layout flag is set), rois [numRois, 4],
//   batch split [numRois], outputHeight, outputWidth, heightStride, widthStride (image pixels per
//   feature-map pixel), heightSamplingRatio, widthSamplingRatio (0: ceil(bin size)), layout
//   -> output [numRois, outputHeight, outputWidth, depth].
// Each output bin averages samplingRatio^2 bilinear samples at the centres of a regular grid.
// Types: float32; float16 (computed in float32); quant8 asymm / signed with TENSOR_QUANT16_ASYMM
// rois, whose interpolation weights are quantized to 1/255 and accumulated in int32 exactly as
// NNAPI's reference does.
#include <algorithm>
#include <cmath>
#include <vector>

#include "RegionsOfInterest.h"
#include "TensorAsFloat.h"
#include "weft/kernels/Layout.h"
#include "weft/kernels/OperationUtils.h"
#include "weft/kernels/QuantUtils.h"

namespace weft::nn::roi_align {

constexpr uint32_t kHeightSamplingRatioScalar = 7;
constexpr uint32_t kWidthSamplingRatioScalar = 8;
constexpr uint32_t kLayoutScalar = 9;

namespace {

// The sampling grid of one roi on the feature map.
struct RoiGrid {
  float wStart, hStart;        // roi origin on the feature map
  float wStep, hStep;          // output bin size
  uint32_t wSamples, hSamples;  // samples per bin along each axis
  float wBin, hBin;            // distance between samples
};

RoiGrid gridOf(const roi::Geometry& g, float x1, float y1, float x2, float y2, int32_t hRatio, int32_t wRatio) {
  RoiGrid r;
  r.wStart = x1;
  r.hStart = y1;
  // Degenerate rois are widened to one feature-map pixel.
  const float roiWidth = std::max(x2 - x1, 1.0f);
  const float roiHeight = std::max(y2 - y1, 1.0f);
  r.wStep = roiWidth / static_cast<float>(g.outWidth);
  r.hStep = roiHeight / static_cast<float>(g.outHeight);
  r.wSamples = wRatio > 0 ? static_cast<uint32_t>(wRatio) : static_cast<uint32_t>(std::ceil(r.wStep));
  r.hSamples = hRatio > 0 ? static_cast<uint32_t>(hRatio) : static_cast<uint32_t>(std::ceil(r.hStep));
  r.wBin = r.wStep / static_cast<float>(r.wSamples);
  r.hBin = r.hStep / static_cast<float>(r.hSamples);
  return r;
}

// The four neighbours of sample (x, y) and their bilinear weights; samples past the last row or
// column use that row or column.
struct Bilinear {
  size_t offsets[4];
  float weights[4];
};

Bilinear bilinearAt(const roi::Geometry& g, float x, float y) {
  uint32_t x1 = static_cast<uint32_t>(std::floor(x));
  uint32_t y1 = static_cast<uint32_t>(std::floor(y));
  uint32_t x2 = x1 + 1, y2 = y1 + 1;
  float dx1 = x - static_cast<float>(x1);
  float dy1 = y - static_cast<float>(y1);
  if (x1 >= g.inWidth - 1) {
    x1 = x2 = g.inWidth - 1;
    dx1 = 0;
  }
  if (y1 >= g.inHeight - 1) {
    y1 = y2 = g.inHeight - 1;
    dy1 = 0;
  }
  const float dx2 = 1.0f - dx1, dy2 = 1.0f - dy1;
  const size_t row = size_t{g.inWidth} * g.inDepth;
  return {{y1 * row + x1 * g.inDepth, y1 * row + x2 * g.inDepth, y2 * row + x1 * g.inDepth,
           y2 * row + x2 * g.inDepth},
          {dx2 * dy2, dx1 * dy2, dx2 * dy1, dx1 * dy1}};
}

// Calls visit(bin output index, Bilinear) for every sample of every bin of one roi.
template <typename Visit>
void forEachSample(const roi::Geometry& g, const RoiGrid& r, Visit visit) {
  for (uint32_t i = 0; i < g.outHeight; ++i) {
    for (uint32_t j = 0; j < g.outWidth; ++j) {
      const float wStart = r.wStep * static_cast<float>(j) + r.wStart;
      const float hStart = r.hStep * static_cast<float>(i) + r.hStart;
      for (uint32_t yi = 0; yi < r.hSamples; ++yi) {
        for (uint32_t xi = 0; xi < r.wSamples; ++xi) {
          const float y = hStart + r.hBin / 2 + r.hBin * static_cast<float>(yi);
          const float x = wStart + r.wBin / 2 + r.wBin * static_cast<float>(xi);
          visit(size_t{i} * g.outWidth + j, bilinearAt(g, x, y));
        }
      }
    }
  }
}

// NHWC float kernel; `output` holds numRois * outHeight * outWidth * depth values.
Status roiAlignFloat(const roi::Geometry& g, const float* input, const float* rois, const int32_t* batches,
                     int32_t hRatio, int32_t wRatio, float* output) {
  const float heightScale = 1.0f / g.heightStride;
  const float widthScale = 1.0f / g.widthStride;
  const size_t binsPerRoi = size_t{g.outHeight} * g.outWidth;
  for (uint32_t n = 0; n < g.numRois; ++n) {
    const float* box = rois + size_t{n} * 4;
    const float x1 = box[0] * widthScale, y1 = box[1] * heightScale;
    const float x2 = box[2] * widthScale, y2 = box[3] * heightScale;
    NN_TRY(roi::checkRoi(g, n, batches[n], x1, y1, x2, y2));
    const RoiGrid r = gridOf(g, x1, y1, x2, y2, hRatio, wRatio);
    const float* image = input + size_t{static_cast<uint32_t>(batches[n])} * g.inHeight * g.inWidth * g.inDepth;
    float* out = output + n * binsPerRoi * g.inDepth;
    std::fill(out, out + binsPerRoi * g.inDepth, 0.0f);
    forEachSample(g, r, [&](size_t bin, const Bilinear& b) {
      float* o = out + bin * g.inDepth;
      for (uint32_t k = 0; k < g.inDepth; ++k) {
        float interpolation = 0;
        for (int c = 0; c < 4; ++c) interpolation += b.weights[c] * image[b.offsets[c] + k];
        o[k] += interpolation;
      }
    });
    const float samples = static_cast<float>(r.wSamples * r.hSamples);
    for (size_t i = 0; i < binsPerRoi * g.inDepth; ++i) out[i] /= samples;
  }
  return {};
}

// NHWC quantized kernel: weights quantized to 1/255, int32 accumulation, one requantization.
template <typename T>
Status roiAlignQuant(const roi::Geometry& g, const T* input, const Shape& inputShape, const uint16_t* rois,
                     const int32_t* batches, int32_t hRatio, int32_t wRatio, const Shape& outputShape, T* output) {
  constexpr float kWeightScale = 1.0f / 255.0f;
  const float heightScale = 1.0f / g.heightStride;
  const float widthScale = 1.0f / g.widthStride;
  const size_t binsPerRoi = size_t{g.outHeight} * g.outWidth;
  std::vector<int32_t> sums;
  for (uint32_t n = 0; n < g.numRois; ++n) {
    const uint16_t* box = rois + size_t{n} * 4;
    // Rois are in 1/8 pixel (scale 0.125).
    const float x1 = static_cast<float>(box[0]) * widthScale * 0.125f;
    const float y1 = static_cast<float>(box[1]) * heightScale * 0.125f;
    const float x2 = static_cast<float>(box[2]) * widthScale * 0.125f;
    const float y2 = static_cast<float>(box[3]) * heightScale * 0.125f;
    NN_TRY(roi::checkRoi(g, n, batches[n], x1, y1, x2, y2));
    const RoiGrid r = gridOf(g, x1, y1, x2, y2, hRatio, wRatio);
    const int32_t numSamples = static_cast<int32_t>(r.wSamples * r.hSamples);
    const float realMultiplier = inputShape.scale * kWeightScale / outputShape.scale / static_cast<float>(numSamples);
    int32_t multiplier = 0;
    int shift = 0;
    NN_TRY(quantizeMultiplierSmallerThanOneExp(realMultiplier, &multiplier, &shift));
    const T* image = input + size_t{static_cast<uint32_t>(batches[n])} * g.inHeight * g.inWidth * g.inDepth;
    sums.assign(binsPerRoi * g.inDepth, 0);
    forEachSample(g, r, [&](size_t bin, const Bilinear& b) {
      int32_t* s = sums.data() + bin * g.inDepth;
      int32_t weights[4];
      for (int c = 0; c < 4; ++c) weights[c] = static_cast<int32_t>(std::round(b.weights[c] / kWeightScale));
      for (uint32_t k = 0; k < g.inDepth; ++k) {
        int32_t interpolation = 0;
        for (int c = 0; c < 4; ++c) {
          interpolation += weights[c] * (static_cast<int32_t>(image[b.offsets[c] + k]) - inputShape.offset);
        }
        s[k] += interpolation;
      }
    });
    T* out = output + n * binsPerRoi * g.inDepth;
    for (size_t i = 0; i < sums.size(); ++i) {
      out[i] = saturateCast<T>(multiplyByQuantizedMultiplier(sums[i], multiplier, shift) + outputShape.offset);
    }
  }
  return {};
}

template <typename T>
Status executeQuant(IOperationExecutionContext* context, const roi::Geometry& g) {
  const int32_t hRatio = context->getInputValue<int32_t>(kHeightSamplingRatioScalar);
  const int32_t wRatio = context->getInputValue<int32_t>(kWidthSamplingRatioScalar);
  const Shape inputShape = context->getInputShape(roi::kInputTensor);
  const Shape outputShape = context->getOutputShape(roi::kOutputTensor);
  NhwcInput<T> in(context->getInputBuffer<T>(roi::kInputTensor), inputShape, g.useNchw);
  NhwcOutput<T> out(context->getOutputBuffer<T>(roi::kOutputTensor), outputShape, g.useNchw);
  NN_TRY(roiAlignQuant<T>(g, in.data(), inputShape, context->getInputBuffer<uint16_t>(roi::kRoiTensor),
                          context->getInputBuffer<int32_t>(roi::kBatchSplitTensor), hRatio, wRatio, outputShape,
                          out.data()));
  out.commit();
  return {};
}

Status executeFloat(IOperationExecutionContext* context, const roi::Geometry& g) {
  const int32_t hRatio = context->getInputValue<int32_t>(kHeightSamplingRatioScalar);
  const int32_t wRatio = context->getInputValue<int32_t>(kWidthSamplingRatioScalar);
  const Shape inputShape = context->getInputShape(roi::kInputTensor);
  const Shape outputShape = context->getOutputShape(roi::kOutputTensor);
  const std::vector<float> inputValues = inputAsFloat(context, roi::kInputTensor);
  const std::vector<float> rois = inputAsFloat(context, roi::kRoiTensor);
  NhwcInput<float> in(inputValues.data(), inputShape, g.useNchw);
  std::vector<float> result(getNumberOfElements(outputShape));
  NhwcOutput<float> out(result.data(), outputShape, g.useNchw);
  NN_TRY(roiAlignFloat(g, in.data(), rois.data(), context->getInputBuffer<int32_t>(roi::kBatchSplitTensor), hRatio,
                       wRatio, out.data()));
  out.commit();
  return writeOutputFromFloat(context, roi::kOutputTensor, result.data(), result.size());
}

}  // namespace

Status validate(const IOperationValidationContext* context) {
  NN_TRY(roi::validateCommon(context, 2));
  for (uint32_t index : {kHeightSamplingRatioScalar, kWidthSamplingRatioScalar}) {
    int32_t ratio = 0;
    if (getConstantScalar(context, index, &ratio)) {
      NN_RET_CHECK_GE(ratio, 0) << "sampling ratio must be >= 0";
    }
  }
  return {};
}

Status prepare(IOperationExecutionContext* context) {
  auto g = roi::readGeometry(context, kLayoutScalar);
  if (!g.ok()) return g.error();
  NN_RET_CHECK(context->getInputValue<int32_t>(kHeightSamplingRatioScalar) >= 0 &&
               context->getInputValue<int32_t>(kWidthSamplingRatioScalar) >= 0)
      << "sampling ratios must be >= 0";
  return roi::setOutputShape(context, *g);
}

Status execute(IOperationExecutionContext* context) {
  auto g = roi::readGeometry(context, kLayoutScalar);
  if (!g.ok()) return g.error();
  switch (context->getInputType(roi::kInputTensor)) {
    case OperandType::TENSOR_FLOAT32:
    case OperandType::TENSOR_FLOAT16:
      return executeFloat(context, *g);
    case OperandType::TENSOR_QUANT8_ASYMM:
      return executeQuant<uint8_t>(context, *g);
    case OperandType::TENSOR_QUANT8_ASYMM_SIGNED:
      return executeQuant<int8_t>(context, *g);
    default:
      return NN_ERROR(BAD_DATA) << "unsupported input type";
  }
}

}  // namespace weft::nn::roi_align

NN_REGISTER_OPERATION(ROI_ALIGN, "ROI_ALIGN", roi_align::validate, roi_align::prepare, roi_align::execute,
                      .allowZeroSizedInput = true)
