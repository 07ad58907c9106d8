// What ROI_ALIGN and ROI_POOLING share: the same operand layout (a 4-D feature map, rois
// [numRois, 4] as [x1, y1, x2, y2] in original-image coordinates, a batch index per roi, output
// height and width, the image-to-feature-map strides, and an NCHW flag), the same shape inference
// and the same checks on roi values.
#pragma once

#include <cstdint>

#include "weft/kernels/OperationResolver.h"

namespace weft::nn::roi {

// Operand indexes both operations use (ROI_ALIGN has its sampling ratios in between).
constexpr uint32_t kInputTensor = 0;
constexpr uint32_t kRoiTensor = 1;
constexpr uint32_t kBatchSplitTensor = 2;
constexpr uint32_t kOutputHeightScalar = 3;
constexpr uint32_t kOutputWidthScalar = 4;
constexpr uint32_t kHeightStrideScalar = 5;
constexpr uint32_t kWidthStrideScalar = 6;
constexpr uint32_t kOutputTensor = 0;

struct Geometry {
  bool useNchw = false;
  uint32_t numBatches = 0, inHeight = 0, inWidth = 0, inDepth = 0;
  uint32_t numRois = 0;
  uint32_t outHeight = 0, outWidth = 0;
  float heightStride = 0, widthStride = 0;
};

// Reads and checks the shapes and scalar parameters; `layoutIndex` is the BOOL NCHW flag.
Result<Geometry> readGeometry(const IOperationExecutionContext* context, uint32_t layoutIndex);

// Validation common to both: types (float32, float16 with FLOAT16 strides, quant8 asymm / signed
// with TENSOR_QUANT16_ASYMM rois of scale 0.125), ranks, and the constant scalars that are known.
// `extraInt32Inputs` are the INT32 inputs between the strides and the layout flag.
Status validateCommon(const IOperationValidationContext* context, uint32_t extraInt32Inputs);

// Sets the output shape: [numRois, outHeight, outWidth, depth] (NCHW: [numRois, depth, h, w]).
Status setOutputShape(IOperationExecutionContext* context, const Geometry& g);

// The checks NNAPI's reference makes of each roi before using it: batch index in range, x1 <= x2,
// y1 <= y2, and (scaled to the feature map) inside [0, width] x [0, height].
Status checkRoi(const Geometry& g, uint32_t roiIndex, int32_t batch, float x1, float y1, float x2, float y2);

}  // namespace weft::nn::roi
