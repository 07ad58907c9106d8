// HEATMAP_MAX_KEYPOINT: the most likely keypoint location of each heatmap, refined to sub-pixel
// precision and mapped into its box.
//   heatmap [numBoxes, size, size, numKeypoints] (NCHW: [numBoxes, numKeypoints, size, size]),
//   boxes [numBoxes, 4] as [x1, y1, x2, y2], layout
//   -> scores [numBoxes, numKeypoints], keypoints [numBoxes, numKeypoints, 2] as [x, y].
// Around the maximum, a second-order Taylor expansion of the 3x3 neighbourhood (mirrored at the
// border) gives the offset of the true peak (at most 1.5 pixels) and its score.
// Types: float32, float16 (computed in float32), quant8 asymm / signed heatmaps with
// TENSOR_QUANT16_ASYMM boxes and keypoints (scale 0.125).
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <vector>

#include "DimensionAgreement.h"
#include "TensorAsFloat.h"
#include "weft/kernels/Layout.h"
#include "weft/kernels/OperationUtils.h"

namespace weft::nn::heatmap_max_keypoint {

constexpr uint32_t kHeatmapTensor = 0;
constexpr uint32_t kBoxesTensor = 1;
constexpr uint32_t kLayoutScalar = 2;
constexpr uint32_t kOutputScoreTensor = 0;
constexpr uint32_t kOutputKeypointTensor = 1;

namespace {

bool isQuantized8(OperandType type) {
  return type == OperandType::TENSOR_QUANT8_ASYMM || type == OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
}

struct Geometry {
  bool useNchw;
  uint32_t numBoxes, size, numKeypoints;
};

Result<Geometry> readGeometry(const IOperationExecutionContext* context) {
  Geometry g;
  g.useNchw = context->getInputValue<uint8_t>(kLayoutScalar) != 0;
  const Shape heatmap = context->getInputShape(kHeatmapTensor);
  const Shape boxes = context->getInputShape(kBoxesTensor);
  NN_RET_CHECK_EQ(getNumberOfDimensions(heatmap), 4u) << "heatmap must be 4-D";
  NN_RET_CHECK_EQ(getNumberOfDimensions(boxes), 2u) << "boxes must be 2-D";
  g.numBoxes = heatmap.dimensions[0];
  g.size = heatmap.dimensions[2];
  g.numKeypoints = heatmap.dimensions[g.useNchw ? 1 : 3];
  NN_RET_CHECK_EQ(heatmap.dimensions[g.useNchw ? 3 : 1], g.size) << "heatmaps must be square";
  NN_RET_CHECK_GE(g.size, 2u) << "heatmaps must be at least 2 x 2";
  NN_RET_CHECK_EQ(boxes.dimensions[0], g.numBoxes) << "one box per heatmap";
  NN_RET_CHECK_EQ(boxes.dimensions[1], 4u) << "boxes have 4 coordinates";
  if (isQuantized8(heatmap.type)) {
    NN_RET_CHECK(boxes.scale == 0.125f && boxes.offset == 0) << "quantized boxes must have scale 0.125, zero point 0";
  }
  return g;
}

// Solves the 2nd-order Taylor expansion D(x) = D - b'x + x'Ax/2 around grid[1][1] for the
// offset `delta` of its extremum and the score there; leaves both unchanged when A is singular
// (within atol + rtol * A00 * A11).
void solveForDelta(const float grid[3][3], float* delta, float* deltaScore, float atol, float rtol) {
  float A[2][2], b[2];
  b[0] = -(grid[1][2] - grid[1][0]) / 2.0f;
  b[1] = -(grid[2][1] - grid[0][1]) / 2.0f;
  A[0][0] = grid[1][0] - 2.0f * grid[1][1] + grid[1][2];
  A[0][1] = (grid[2][2] - grid[2][0] - grid[0][2] + grid[0][0]) / 4.0f;
  A[1][0] = A[0][1];
  A[1][1] = grid[0][1] - 2.0f * grid[1][1] + grid[2][1];
  const float crossProd1 = A[0][0] * A[1][1], crossProd2 = A[0][1] * A[1][0];
  const float det = crossProd1 - crossProd2;
  if (std::abs(det) < atol + rtol * crossProd1) return;
  delta[0] = (A[1][1] * b[0] - A[0][1] * b[1]) / det;
  delta[1] = (A[0][0] * b[1] - A[1][0] * b[0]) / det;
  // The peak cannot be further than 1.5 pixels from the maximum: scale longer offsets back.
  if (std::abs(delta[0]) > 1.5f || std::abs(delta[1]) > 1.5f) {
    const float scale = 1.5f / std::max(std::abs(delta[0]), std::abs(delta[1]));
    delta[0] *= scale;
    delta[1] *= scale;
  }
  *deltaScore = grid[1][1] - b[0] * delta[0] - b[1] * delta[1] +
                ((A[0][0] * delta[0] + A[0][1] * delta[1]) * delta[0] +
                 (A[1][0] * delta[0] + A[1][1] * delta[1]) * delta[1]) /
                    2.0f;
}

// `heatmap` is NHWC float. Writes numBoxes x numKeypoints scores and (x, y) keypoints.
Status findKeypoints(const Geometry& g, const float* heatmap, const float* boxes, float atol, float rtol,
                     float* scores, float* keypoints) {
  const uint32_t n = g.size;
  const size_t perBox = size_t{n} * n * g.numKeypoints;
  for (uint32_t i = 0; i < g.numBoxes; ++i) {
    const float* box = boxes + size_t{i} * 4;
    NN_RET_CHECK(box[0] <= box[2] && box[1] <= box[3]) << "box " << i << " has x2 < x1 or y2 < y1";
    const float* map = heatmap + i * perBox;
    for (uint32_t j = 0; j < g.numKeypoints; ++j) {
      uint32_t maxIndex = 0;
      float maxScore = -FLT_MAX;
      for (uint32_t k = 0; k < n * n; ++k) {
        const float v = map[size_t{k} * g.numKeypoints + j];
        if (maxScore < v) {
          maxScore = v;
          maxIndex = k;
        }
      }
      const int32_t maxW = static_cast<int32_t>(maxIndex % n);
      const int32_t maxH = static_cast<int32_t>(maxIndex / n);
      // The 3x3 neighbourhood, mirrored at the border (size >= 2 keeps it inside).
      float grid[3][3];
      for (int32_t dh = -1; dh <= 1; ++dh) {
        for (int32_t dw = -1; dw <= 1; ++dw) {
          int32_t h = maxH + dh, w = maxW + dw;
          h = h < 0 ? 1 : (h >= static_cast<int32_t>(n) ? static_cast<int32_t>(n) - 2 : h);
          w = w < 0 ? 1 : (w >= static_cast<int32_t>(n) ? static_cast<int32_t>(n) - 2 : w);
          grid[dh + 1][dw + 1] = map[(size_t(h) * n + size_t(w)) * g.numKeypoints + j];
        }
      }
      float delta[2] = {0.0f, 0.0f}, deltaScore = maxScore;
      solveForDelta(grid, delta, &deltaScore, atol, rtol);
      const float wRelative = (static_cast<float>(maxW) + delta[0] + 0.5f) / static_cast<float>(n);
      const float hRelative = (static_cast<float>(maxH) + delta[1] + 0.5f) / static_cast<float>(n);
      const size_t o = size_t{i} * g.numKeypoints + j;
      scores[o] = deltaScore;
      keypoints[o * 2] = wRelative * (box[2] - box[0]) + box[0];
      keypoints[o * 2 + 1] = hRelative * (box[3] - box[1]) + box[1];
    }
  }
  return {};
}

}  // namespace

Status validate(const IOperationValidationContext* context) {
  NN_TRY(validateInputCount(context, 3, 3));
  NN_TRY(validateOutputCount(context, 2));
  const OperandType type = context->getInputType(kHeatmapTensor);
  NN_TRY(validateTypeIsOneOf(context, "heatmap", type,
                             {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16,
                              OperandType::TENSOR_QUANT8_ASYMM, OperandType::TENSOR_QUANT8_ASYMM_SIGNED}));
  const OperandType boxType = isQuantized8(type) ? OperandType::TENSOR_QUANT16_ASYMM : type;
  NN_TRY(validateInputTypes(context, {type, boxType, OperandType::BOOL}));
  NN_TRY(validateOutputTypes(context, {type, boxType}));
  uint8_t nchw = 0;
  DimensionAgreement dims(context);
  if (getConstantScalar(context, kLayoutScalar, &nchw)) {
    NN_TRY(nchw ? dims.input(kHeatmapTensor, {"numBoxes", "numKeypoints", "size", "size"})
                : dims.input(kHeatmapTensor, {"numBoxes", "size", "size", "numKeypoints"}));
  } else {
    NN_TRY(dims.input(kHeatmapTensor, {"numBoxes", nullptr, "size", nullptr}));
  }
  if (dims.get("size") != 0) {
    NN_RET_CHECK_GE(dims.get("size"), 2u) << "heatmaps must be at least 2 x 2";
  }
  NN_TRY(dims.input(kBoxesTensor, {"numBoxes", "4"}));
  NN_TRY(dims.output(kOutputScoreTensor, {"numBoxes", "numKeypoints"}));
  NN_TRY(dims.output(kOutputKeypointTensor, {"numBoxes", "numKeypoints", "2"}));
  if (isQuantized8(type)) {
    for (const Shape& s : {context->getInputShape(kBoxesTensor), context->getOutputShape(kOutputKeypointTensor)}) {
      NN_RET_CHECK(s.scale == 0.125f && s.offset == 0) << "quantized boxes must have scale 0.125, zero point 0";
    }
  }
  return {};
}

Status prepare(IOperationExecutionContext* context) {
  auto g = readGeometry(context);
  if (!g.ok()) return g.error();
  Shape scores = context->getOutputShape(kOutputScoreTensor);
  scores.dimensions = {g->numBoxes, g->numKeypoints};
  NN_TRY(context->setOutputShape(kOutputScoreTensor, scores));
  Shape keypoints = context->getOutputShape(kOutputKeypointTensor);
  keypoints.dimensions = {g->numBoxes, g->numKeypoints, 2};
  return context->setOutputShape(kOutputKeypointTensor, keypoints);
}

Status execute(IOperationExecutionContext* context) {
  auto g = readGeometry(context);
  if (!g.ok()) return g.error();
  std::vector<float> heatmap = inputAsFloat(context, kHeatmapTensor);
  if (g->useNchw) {
    std::vector<float> nhwc(heatmap.size());
    transposeNchwToNhwc(heatmap.data(), context->getInputShape(kHeatmapTensor).dimensions, nhwc.data());
    heatmap.swap(nhwc);
  }
  const std::vector<float> boxes = inputAsFloat(context, kBoxesTensor);
  // The reference's singularity tolerance is looser for float16, whose heatmaps are coarser.
  const float tolerance = context->getInputType(kHeatmapTensor) == OperandType::TENSOR_FLOAT16 ? 1e-3f : 1e-5f;
  const size_t count = size_t{g->numBoxes} * g->numKeypoints;
  std::vector<float> scores(count), keypoints(count * 2);
  NN_TRY(findKeypoints(*g, heatmap.data(), boxes.data(), tolerance, tolerance, scores.data(), keypoints.data()));
  NN_TRY(writeOutputFromFloat(context, kOutputScoreTensor, scores.data(), scores.size()));
  return writeOutputFromFloat(context, kOutputKeypointTensor, keypoints.data(), keypoints.size());
}

}  // namespace weft::nn::heatmap_max_keypoint

NN_REGISTER_OPERATION(HEATMAP_MAX_KEYPOINT, "HEATMAP_MAX_KEYPOINT", heatmap_max_keypoint::validate,
                      heatmap_max_keypoint::prepare, heatmap_max_keypoint::execute)
