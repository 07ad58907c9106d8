// ROI_POOLING: max pooling of each region of interest to a fixed output size.
//   input [batches, height, width, depth] (NCHW when the layout flag is set), rois [numRois, 4],
//   batch split [numRois], outputHeight, outputWidth, heightStride, widthStride, layout
//   -> output [numRois, outputHeight, outputWidth, depth].
// The roi corners are rounded to feature-map pixels; bin i covers [floor(i * step), ceil((i + 1) *
// step)) from the roi start, so neighbouring bins may share a row or column. Max pooling selects
// an existing element, so quantized types pool their raw values.
// Types: float32, float16, quant8 asymm / signed with TENSOR_QUANT16_ASYMM rois (scale 0.125).
#include <algorithm>
#include <cmath>
#include <vector>

#include "RegionsOfInterest.h"
#include "TensorAsFloat.h"
#include "weft/kernels/Float16.h"
#include "weft/kernels/Layout.h"
#include "weft/kernels/OperationUtils.h"

namespace weft::nn::roi_pooling {

constexpr uint32_t kLayoutScalar = 7;

namespace {

// NHWC kernel over elements of type T; `rois` are in original-image coordinates (float).
template <typename T>
Status roiPoolingNhwc(const roi::Geometry& g, const T* input, T zero, const float* rois, const int32_t* batches,
                      T* output) {
  const float heightScale = 1.0f / g.heightStride;
  const float widthScale = 1.0f / g.widthStride;
  T* out = output;
  for (uint32_t n = 0; n < g.numRois; ++n) {
    const float* box = rois + size_t{n} * 4;
    NN_TRY(roi::checkRoi(g, n, batches[n], box[0] * widthScale, box[1] * heightScale, box[2] * widthScale,
                         box[3] * heightScale));
    const int32_t wRoiStart = static_cast<int32_t>(std::round(box[0] * widthScale));
    const int32_t hRoiStart = static_cast<int32_t>(std::round(box[1] * heightScale));
    const int32_t wRoiEnd = static_cast<int32_t>(std::round(box[2] * widthScale));
    const int32_t hRoiEnd = static_cast<int32_t>(std::round(box[3] * heightScale));
    // Rois narrower than one pixel are widened to one.
    const float roiWidth = static_cast<float>(std::max(wRoiEnd - wRoiStart + 1, 1));
    const float roiHeight = static_cast<float>(std::max(hRoiEnd - hRoiStart + 1, 1));
    const float wStep = roiWidth / static_cast<float>(g.outWidth);
    const float hStep = roiHeight / static_cast<float>(g.outHeight);
    const T* image = input + size_t{static_cast<uint32_t>(batches[n])} * g.inHeight * g.inWidth * g.inDepth;
    for (uint32_t i = 0; i < g.outHeight; ++i) {
      for (uint32_t j = 0; j < g.outWidth; ++j) {
        const uint32_t wStart = std::min(
            static_cast<uint32_t>(std::floor(wStep * static_cast<float>(j) + static_cast<float>(wRoiStart))), g.inWidth);
        const uint32_t wEnd = std::min(
            static_cast<uint32_t>(std::ceil(wStep * static_cast<float>(j + 1) + static_cast<float>(wRoiStart))),
            g.inWidth);
        const uint32_t hStart = std::min(
            static_cast<uint32_t>(std::floor(hStep * static_cast<float>(i) + static_cast<float>(hRoiStart))),
            g.inHeight);
        const uint32_t hEnd = std::min(
            static_cast<uint32_t>(std::ceil(hStep * static_cast<float>(i + 1) + static_cast<float>(hRoiStart))),
            g.inHeight);
        for (uint32_t k = 0; k < g.inDepth; ++k) {
          // An empty bin (clipped away at the border) yields the real value zero, as in the reference.
          T maxValue = zero;
          bool first = true;
          for (uint32_t h = hStart; h < hEnd; ++h) {
            for (uint32_t w = wStart; w < wEnd; ++w) {
              const T v = image[(size_t{h} * g.inWidth + w) * g.inDepth + k];
              if (first || v > maxValue) {
                maxValue = v;
                first = false;
              }
            }
          }
          *out++ = maxValue;
        }
      }
    }
  }
  return {};
}

template <typename T>
Status executeTyped(IOperationExecutionContext* context, const roi::Geometry& g) {
  const std::vector<float> rois = inputAsFloat(context, roi::kRoiTensor);
  NhwcInput<T> in(context->getInputBuffer<T>(roi::kInputTensor), context->getInputShape(roi::kInputTensor),
                  g.useNchw);
  NhwcOutput<T> out(context->getOutputBuffer<T>(roi::kOutputTensor), context->getOutputShape(roi::kOutputTensor),
                    g.useNchw);
  const T zero = static_cast<T>(context->getInputShape(roi::kInputTensor).offset);
  NN_TRY(roiPoolingNhwc<T>(g, in.data(), zero, rois.data(), context->getInputBuffer<int32_t>(roi::kBatchSplitTensor),
                           out.data()));
  out.commit();
  return {};
}

}  // namespace

Status validate(const IOperationValidationContext* context) { return roi::validateCommon(context, 0); }

Status prepare(IOperationExecutionContext* context) {
  auto g = roi::readGeometry(context, kLayoutScalar);
  if (!g.ok()) return g.error();
  return roi::setOutputShape(context, *g);
}

Status execute(IOperationExecutionContext* context) {
  auto g = roi::readGeometry(context, kLayoutScalar);
  if (!g.ok()) return g.error();
  switch (context->getInputType(roi::kInputTensor)) {
    case OperandType::TENSOR_FLOAT32:
      return executeTyped<float>(context, *g);
    case OperandType::TENSOR_FLOAT16:
      return executeTyped<Float16>(context, *g);
    case OperandType::TENSOR_QUANT8_ASYMM:
      return executeTyped<uint8_t>(context, *g);
    case OperandType::TENSOR_QUANT8_ASYMM_SIGNED:
      return executeTyped<int8_t>(context, *g);
    default:
      return NN_ERROR(BAD_DATA) << "unsupported input type";
  }
}

}  // namespace weft::nn::roi_pooling

NN_REGISTER_OPERATION(ROI_POOLING, "ROI_POOLING", roi_pooling::validate, roi_pooling::prepare, roi_pooling::execute,
                      .allowZeroSizedInput = true)
