// BOX_WITH_NMS_LIMIT: per-class non-maximum suppression of scored boxes, batch by batch.
//   scores [numRois, numClasses], roi [numRois, numClasses * 4], batches [numRois] (rois of one
//   image are consecutive), scoreThreshold, maxNumDetections (< 0: unlimited), NMS kernel
//   (0 hard, 1 linear, 2 gaussian), iouThreshold, sigma, nmsScoreThreshold
//   -> scoresOut [n], roiOut [n, 4], classesOut [n], batchesOut [n].
// Class 0 is background and never selected. Within an image the survivors are ordered by class,
// then by decreasing (rescaled) score. The output size depends on the values, so prepare() runs
// the selection to size the outputs and execute() runs it again to write them.
// Types: float32, float16 (computed in float32), quant8 asymm / asymm signed scores with
// TENSOR_QUANT16_ASYMM rois (scale 0.125, zero point 0).
#include <algorithm>
#include <cstring>
#include <vector>

#include "BoundingBoxes.h"
#include "DimensionAgreement.h"
#include "TensorAsFloat.h"
#include "weft/kernels/OperationUtils.h"

namespace weft::nn::box_with_nms_limit {

constexpr uint32_t kScoreTensor = 0;
constexpr uint32_t kRoiTensor = 1;
constexpr uint32_t kBatchesTensor = 2;
constexpr uint32_t kScoreThresholdScalar = 3;
constexpr uint32_t kMaxNumDetectionScalar = 4;
constexpr uint32_t kNmsKernelScalar = 5;
constexpr uint32_t kIoUThresholdScalar = 6;
constexpr uint32_t kSigmaScalar = 7;
constexpr uint32_t kNmsScoreThresholdScalar = 8;

constexpr uint32_t kOutputScoreTensor = 0;
constexpr uint32_t kOutputRoiTensor = 1;
constexpr uint32_t kOutputClassTensor = 2;
constexpr uint32_t kOutputBatchesTensor = 3;

namespace {

bool isQuantized8(OperandType type) {
  return type == OperandType::TENSOR_QUANT8_ASYMM || type == OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
}

struct Geometry {
  uint32_t numRois, numClasses;
};

Result<Geometry> readGeometry(const IOperationExecutionContext* context) {
  const Shape scores = context->getInputShape(kScoreTensor);
  const Shape roi = context->getInputShape(kRoiTensor);
  const Shape batches = context->getInputShape(kBatchesTensor);
  NN_RET_CHECK_EQ(getNumberOfDimensions(scores), 2u) << "scores must be 2-D";
  NN_RET_CHECK_EQ(getNumberOfDimensions(roi), 2u) << "roi must be 2-D";
  NN_RET_CHECK_EQ(getNumberOfDimensions(batches), 1u) << "batches must be 1-D";
  Geometry g{scores.dimensions[0], scores.dimensions[1]};
  NN_RET_CHECK_GT(g.numClasses, 1u) << "scores need a background class and at least one more";
  NN_RET_CHECK_EQ(roi.dimensions[0], g.numRois) << "one row of boxes per roi";
  NN_RET_CHECK_EQ(roi.dimensions[1], g.numClasses * boxes::kBoxSize) << "one box per class";
  NN_RET_CHECK_EQ(batches.dimensions[0], g.numRois) << "one batch index per roi";
  if (isQuantized8(scores.type)) {
    NN_RET_CHECK(roi.scale == 0.125f && roi.offset == 0) << "quantized rois must have scale 0.125, zero point 0";
  }
  return g;
}

// The selection: indexes into the flattened [numRois][numClasses] scores (already offset to the
// whole tensor), the rescaled scores they refer to, and the image of each.
struct Selection {
  std::vector<uint32_t> indexes;
  std::vector<int32_t> batchOfIndex;
  std::vector<float> scores;
};

Result<Selection> select(const IOperationExecutionContext* context, const Geometry& g) {
  Selection result;
  if (g.numRois == 0) return result;
  const float scoreThreshold = scalarAsFloat(context, kScoreThresholdScalar);
  const int32_t maxDetections = context->getInputValue<int32_t>(kMaxNumDetectionScalar);
  const int32_t kernelKind = context->getInputValue<int32_t>(kNmsKernelScalar);
  const float iouThreshold = scalarAsFloat(context, kIoUThresholdScalar);
  const float sigma = scalarAsFloat(context, kSigmaScalar);
  const float nmsScoreThreshold = scalarAsFloat(context, kNmsScoreThresholdScalar);
  auto kernel = boxes::nmsKernel(kernelKind, iouThreshold, sigma);
  if (!kernel.ok()) return kernel.error();

  result.scores = inputAsFloat(context, kScoreTensor);
  const std::vector<float> rois = inputAsFloat(context, kRoiTensor);
  const int32_t* batches = context->getInputBuffer<int32_t>(kBatchesTensor);
  for (size_t i = 0; i < rois.size(); i += boxes::kBoxSize) {
    NN_RET_CHECK(rois[i] <= rois[i + 2] && rois[i + 1] <= rois[i + 3])
        << "box " << i / boxes::kBoxSize << " has x2 < x1 or y2 < y1";
  }
  // Rois of one image are consecutive: run NMS over each run of equal batch indexes.
  for (uint32_t start = 0; start < g.numRois;) {
    uint32_t end = start + 1;
    while (end < g.numRois && batches[end] == batches[start]) ++end;
    const size_t base = size_t{start} * g.numClasses;
    float* scores = result.scores.data() + base;
    const float* roiBase = rois.data() + base * boxes::kBoxSize;
    std::vector<uint32_t> kept = boxes::softNmsMultiClass(
        scores, g.numClasses, end - start, scoreThreshold, nmsScoreThreshold, maxDetections, maxDetections,
        [roiBase](uint32_t index) { return roiBase + size_t{index} * boxes::kBoxSize; }, *kernel);
    const uint32_t numClasses = g.numClasses;
    std::stable_sort(kept.begin(), kept.end(), [scores, numClasses](uint32_t a, uint32_t b) {
      const uint32_t classA = a % numClasses, classB = b % numClasses;
      return classA == classB ? scores[a] > scores[b] : classA < classB;
    });
    for (uint32_t index : kept) {
      result.indexes.push_back(static_cast<uint32_t>(base + index));
      result.batchOfIndex.push_back(batches[start]);
    }
    start = end;
  }
  return result;
}

}  // namespace

Status validate(const IOperationValidationContext* context) {
  NN_TRY(validateInputCount(context, 9, 9));
  NN_TRY(validateOutputCount(context, 4));
  const OperandType scoreType = context->getInputType(kScoreTensor);
  NN_TRY(validateTypeIsOneOf(context, "scores", scoreType,
                             {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16,
                              OperandType::TENSOR_QUANT8_ASYMM, OperandType::TENSOR_QUANT8_ASYMM_SIGNED}));
  const bool quant = isQuantized8(scoreType);
  const OperandType roiType = quant ? OperandType::TENSOR_QUANT16_ASYMM : scoreType;
  const OperandType scalar = scoreType == OperandType::TENSOR_FLOAT16 ? OperandType::FLOAT16 : OperandType::FLOAT32;
  NN_TRY(validateInputTypes(context, {scoreType, roiType, OperandType::TENSOR_INT32, scalar, OperandType::INT32,
                                      OperandType::INT32, scalar, scalar, scalar}));
  NN_TRY(validateOutputTypes(context,
                             {scoreType, roiType, OperandType::TENSOR_INT32, OperandType::TENSOR_INT32}));
  DimensionAgreement dims(context);
  NN_TRY(dims.input(kScoreTensor, {"numRois", "numClasses"}));
  if (dims.get("numClasses") != 0) {
    NN_RET_CHECK_GT(dims.get("numClasses"), 1u) << "scores need a background class and at least one more";
    NN_TRY(dims.set("boxesPerRoi", dims.get("numClasses") * boxes::kBoxSize));
  }
  NN_TRY(dims.input(kRoiTensor, {"numRois", "boxesPerRoi"}));
  NN_TRY(dims.input(kBatchesTensor, {"numRois"}));
  NN_TRY(dims.output(kOutputScoreTensor, {"numSelected"}));
  NN_TRY(dims.output(kOutputRoiTensor, {"numSelected", "4"}));
  NN_TRY(dims.output(kOutputClassTensor, {"numSelected"}));
  NN_TRY(dims.output(kOutputBatchesTensor, {"numSelected"}));
  if (quant) {
    const Shape roi = context->getInputShape(kRoiTensor);
    NN_RET_CHECK(roi.scale == 0.125f && roi.offset == 0) << "quantized rois must have scale 0.125, zero point 0";
    const Shape roiOut = context->getOutputShape(kOutputRoiTensor);
    NN_RET_CHECK(roiOut.scale == 0.125f && roiOut.offset == 0) << "roiOut must have scale 0.125, zero point 0";
  }
  int32_t kernelKind = 0;
  if (getConstantScalar(context, kNmsKernelScalar, &kernelKind)) {
    NN_RET_CHECK(kernelKind >= 0 && kernelKind <= 2) << "unknown NMS kernel " << kernelKind;
  }
  return {};
}

Status prepare(IOperationExecutionContext* context) {
  auto g = readGeometry(context);
  if (!g.ok()) return g.error();
  auto selection = select(context, *g);
  if (!selection.ok()) return selection.error();
  const auto count = static_cast<uint32_t>(selection->indexes.size());
  // Scores, rois, classes and batch indexes, in output order.
  return setOutputDimensions(context, {{count}, {count, boxes::kBoxSize}, {count}, {count}});
}

Status execute(IOperationExecutionContext* context) {
  auto g = readGeometry(context);
  if (!g.ok()) return g.error();
  auto selection = select(context, *g);
  if (!selection.ok()) return selection.error();
  const size_t count = selection->indexes.size();
  NN_RET_CHECK_EQ(getNumberOfElements(context->getOutputShape(kOutputScoreTensor)), count);

  std::vector<float> scoresOut(count);
  for (size_t i = 0; i < count; ++i) scoresOut[i] = selection->scores[selection->indexes[i]];
  NN_TRY(writeOutputFromFloat(context, kOutputScoreTensor, scoresOut.data(), count));

  // Boxes are copied through unchanged, in their own element type.
  const size_t boxBytes = boxes::kBoxSize * sizeOfElement(context->getInputType(kRoiTensor));
  const auto* roiIn = static_cast<const uint8_t*>(context->getInputBuffer(kRoiTensor));
  auto* roiOut = static_cast<uint8_t*>(context->getOutputBuffer(kOutputRoiTensor));
  int32_t* classesOut = context->getOutputBuffer<int32_t>(kOutputClassTensor);
  int32_t* batchesOut = context->getOutputBuffer<int32_t>(kOutputBatchesTensor);
  for (size_t i = 0; i < count; ++i) {
    const uint32_t index = selection->indexes[i];
    std::memcpy(roiOut + i * boxBytes, roiIn + size_t{index} * boxBytes, boxBytes);
    classesOut[i] = static_cast<int32_t>(index % g->numClasses);
    batchesOut[i] = selection->batchOfIndex[i];
  }
  return {};
}

}  // namespace weft::nn::box_with_nms_limit

NN_REGISTER_OPERATION(BOX_WITH_NMS_LIMIT, "BOX_WITH_NMS_LIMIT", box_with_nms_limit::validate,
                      box_with_nms_limit::prepare, box_with_nms_limit::execute, .allowZeroSizedInput = true)
