// DETECTION_POSTPROCESSING: SSD-style decoding of box encodings against anchors, then NMS.
//   scores [batches, numAnchors, numClasses], deltas [batches, numAnchors, lengthBoxEncoding >= 4]
//   as [ty, tx, th, tw, ...], anchors [numAnchors, 4] as [yCtr, xCtr, h, w], scaleY, scaleX, scaleH,
//   scaleW, useRegularNms, maxNumDetections, maxClassesPerDetection, maxNumDetectionsPerClass,
//   scoreThreshold, iouThreshold, isBGInLabel
//   -> scores [batches, n], boxes [batches, n, 4] as [y1, x1, y2, x2], classes [batches, n],
//      numDetections [batches], with n = maxNumDetections (* maxClassesPerDetection for the fast
//      path). Unused detection slots are zero.
// Regular NMS runs hard NMS per class (class 0 is background); the fast path runs one NMS over
// each anchor's best non-background score and reports that anchor's top classes. Class labels
// count from the first non-background class unless isBGInLabel.
// Types: float32, float16 (computed in float32).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <vector>

#include "BoundingBoxes.h"
#include "DimensionAgreement.h"
#include "TensorAsFloat.h"
#include "weft/kernels/OperationUtils.h"

namespace weft::nn::detection_postprocessing {

constexpr uint32_t kScoreTensor = 0;
constexpr uint32_t kDeltaTensor = 1;
constexpr uint32_t kAnchorTensor = 2;
constexpr uint32_t kScaleYScalar = 3;
constexpr uint32_t kScaleXScalar = 4;
constexpr uint32_t kScaleHScalar = 5;
constexpr uint32_t kScaleWScalar = 6;
constexpr uint32_t kUseRegularNmsScalar = 7;
constexpr uint32_t kMaxNumDetectionScalar = 8;
constexpr uint32_t kMaxClassesPerDetectionScalar = 9;
constexpr uint32_t kMaxNumDetectionPerClassScalar = 10;
constexpr uint32_t kScoreThresholdScalar = 11;
constexpr uint32_t kIoUThresholdScalar = 12;
constexpr uint32_t kIsBGInLabelScalar = 13;

constexpr uint32_t kOutputScoreTensor = 0;
constexpr uint32_t kOutputRoiTensor = 1;
constexpr uint32_t kOutputClassTensor = 2;
constexpr uint32_t kOutputDetectionTensor = 3;

namespace {

struct Params {
  uint32_t numBatches, numAnchors, numClasses, boxEncodingLength;
  float scaleY, scaleX, scaleH, scaleW;
  bool useRegularNms, isBGInLabel;
  int32_t maxDetections, maxClassesPerDetection, maxDetectionsPerClass;
  float scoreThreshold, iouThreshold;
  uint32_t detectionsPerBatch;  // output slots per batch
};

Result<Params> readParams(const IOperationExecutionContext* context) {
  const Shape scores = context->getInputShape(kScoreTensor);
  const Shape deltas = context->getInputShape(kDeltaTensor);
  const Shape anchors = context->getInputShape(kAnchorTensor);
  NN_RET_CHECK_EQ(getNumberOfDimensions(scores), 3u) << "scores must be 3-D";
  NN_RET_CHECK_EQ(getNumberOfDimensions(deltas), 3u) << "deltas must be 3-D";
  NN_RET_CHECK_EQ(getNumberOfDimensions(anchors), 2u) << "anchors must be 2-D";
  Params p;
  p.numBatches = scores.dimensions[0];
  p.numAnchors = scores.dimensions[1];
  p.numClasses = scores.dimensions[2];
  p.boxEncodingLength = deltas.dimensions[2];
  NN_RET_CHECK_EQ(deltas.dimensions[0], p.numBatches) << "deltas batches";
  NN_RET_CHECK_EQ(deltas.dimensions[1], p.numAnchors) << "one box encoding per anchor";
  NN_RET_CHECK_EQ(anchors.dimensions[0], p.numAnchors) << "one anchor per score row";
  NN_RET_CHECK_EQ(anchors.dimensions[1], boxes::kBoxSize) << "anchors have 4 values";
  NN_RET_CHECK_GT(p.numClasses, 1u) << "scores need a background class and at least one more";
  NN_RET_CHECK_GE(p.boxEncodingLength, 4u) << "box encodings have at least 4 values";
  p.scaleY = scalarAsFloat(context, kScaleYScalar);
  p.scaleX = scalarAsFloat(context, kScaleXScalar);
  p.scaleH = scalarAsFloat(context, kScaleHScalar);
  p.scaleW = scalarAsFloat(context, kScaleWScalar);
  NN_RET_CHECK(p.scaleY > 0 && p.scaleX > 0 && p.scaleH > 0 && p.scaleW > 0) << "box scales must be positive";
  p.useRegularNms = context->getInputValue<uint8_t>(kUseRegularNmsScalar) != 0;
  p.maxDetections = context->getInputValue<int32_t>(kMaxNumDetectionScalar);
  p.maxClassesPerDetection = context->getInputValue<int32_t>(kMaxClassesPerDetectionScalar);
  p.maxDetectionsPerClass = context->getInputValue<int32_t>(kMaxNumDetectionPerClassScalar);
  p.scoreThreshold = scalarAsFloat(context, kScoreThresholdScalar);
  p.iouThreshold = scalarAsFloat(context, kIoUThresholdScalar);
  p.isBGInLabel = context->getInputValue<uint8_t>(kIsBGInLabelScalar) != 0;
  NN_RET_CHECK(p.scoreThreshold >= 0 && p.iouThreshold >= 0) << "thresholds must be non-negative";
  NN_RET_CHECK_GT(p.maxDetections, 0) << "maxNumDetections must be positive";
  p.detectionsPerBatch = static_cast<uint32_t>(p.maxDetections);
  if (p.useRegularNms) {
    NN_RET_CHECK_GT(p.maxDetectionsPerClass, 0) << "maxNumDetectionsPerClass must be positive";
  } else {
    NN_RET_CHECK_GT(p.maxClassesPerDetection, 0) << "maxClassesPerDetection must be positive";
    const uint64_t slots = uint64_t{p.detectionsPerBatch} * static_cast<uint32_t>(p.maxClassesPerDetection);
    NN_RET_CHECK_LE(slots, uint64_t{UINT32_MAX}) << "maxNumDetections * maxClassesPerDetection overflows";
    p.detectionsPerBatch = static_cast<uint32_t>(slots);
  }
  return p;
}

// Decodes the anchors' boxes of one batch to [y1, x1, y2, x2].
void decodeBoxes(const Params& p, const float* deltas, const float* anchors, float* out) {
  for (uint32_t a = 0; a < p.numAnchors; ++a) {
    const float* anchor = anchors + size_t{a} * boxes::kBoxSize;
    const float* d = deltas + size_t{a} * p.boxEncodingLength;
    const float yCenter = anchor[0] + anchor[2] * d[0] / p.scaleY;
    const float xCenter = anchor[1] + anchor[3] * d[1] / p.scaleX;
    const float halfHeight = anchor[2] * std::exp(d[2] / p.scaleH) * 0.5f;
    const float halfWidth = anchor[3] * std::exp(d[3] / p.scaleW) * 0.5f;
    float* box = out + size_t{a} * boxes::kBoxSize;
    box[0] = yCenter - halfHeight;
    box[1] = xCenter - halfWidth;
    box[2] = yCenter + halfHeight;
    box[3] = xCenter + halfWidth;
  }
}

struct BatchOutput {
  float* scores;
  float* boxes;
  int32_t* classes;
};

// Returns the number of detections written.
uint32_t regularNms(const Params& p, const float* scores, const std::vector<float>& decoded, BatchOutput out) {
  const uint32_t numClasses = p.numClasses;
  const std::vector<uint32_t> select = boxes::hardNmsMultiClass(
      scores, numClasses, p.numAnchors, p.scoreThreshold, p.iouThreshold, p.maxDetections, p.maxDetectionsPerClass,
      [&decoded, numClasses](uint32_t index) { return decoded.data() + size_t{index / numClasses} * boxes::kBoxSize; });
  for (size_t i = 0; i < select.size(); ++i) {
    const uint32_t index = select[i];
    out.scores[i] = scores[index];
    std::copy_n(decoded.data() + size_t{index / numClasses} * boxes::kBoxSize, boxes::kBoxSize,
                out.boxes + i * boxes::kBoxSize);
    out.classes[i] = static_cast<int32_t>(index % numClasses) - (p.isBGInLabel ? 0 : 1);
  }
  return static_cast<uint32_t>(select.size());
}

uint32_t fastNms(const Params& p, const float* scores, const std::vector<float>& decoded, BatchOutput out) {
  const uint32_t classesOut = std::min<uint32_t>(p.numClasses - 1, static_cast<uint32_t>(p.maxClassesPerDetection));
  std::vector<float> maxScores(p.numAnchors);
  for (uint32_t a = 0; a < p.numAnchors; ++a) {
    const float* row = scores + size_t{a} * p.numClasses;
    maxScores[a] = *std::max_element(row + 1, row + p.numClasses);
  }
  std::vector<uint32_t> select;
  for (uint32_t a = 0; a < p.numAnchors; ++a) {
    if (maxScores[a] > p.scoreThreshold) select.push_back(a);
  }
  const size_t kept = boxes::hardNmsSingleClass(
      maxScores.data(), p.iouThreshold, p.maxDetections,
      [&decoded](uint32_t a) { return decoded.data() + size_t{a} * boxes::kBoxSize; }, select.data(), select.size());
  size_t slot = 0;
  std::vector<uint32_t> classOrder(p.numClasses - 1);
  for (size_t i = 0; i < kept; ++i) {
    const uint32_t a = select[i];
    const float* row = scores + size_t{a} * p.numClasses;
    std::iota(classOrder.begin(), classOrder.end(), 1);
    std::stable_sort(classOrder.begin(), classOrder.end(), [row](uint32_t x, uint32_t y) { return row[x] > row[y]; });
    for (uint32_t c = 0; c < classesOut; ++c, ++slot) {
      out.scores[slot] = row[classOrder[c]];
      std::copy_n(decoded.data() + size_t{a} * boxes::kBoxSize, boxes::kBoxSize, out.boxes + slot * boxes::kBoxSize);
      out.classes[slot] = static_cast<int32_t>(classOrder[c]) - (p.isBGInLabel ? 0 : 1);
    }
  }
  return static_cast<uint32_t>(kept * classesOut);
}

}  // namespace

Status validate(const IOperationValidationContext* context) {
  NN_TRY(validateInputCount(context, 14, 14));
  NN_TRY(validateOutputCount(context, 4));
  const OperandType type = context->getInputType(kScoreTensor);
  NN_TRY(validateTypeIsOneOf(context, "scores", type, {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16}));
  const OperandType scalar = type == OperandType::TENSOR_FLOAT16 ? OperandType::FLOAT16 : OperandType::FLOAT32;
  NN_TRY(validateInputTypes(context, {type, type, type, scalar, scalar, scalar, scalar, OperandType::BOOL,
                                      OperandType::INT32, OperandType::INT32, OperandType::INT32, scalar, scalar,
                                      OperandType::BOOL}));
  NN_TRY(validateOutputTypes(context, {type, type, OperandType::TENSOR_INT32, OperandType::TENSOR_INT32}));
  DimensionAgreement dims(context);
  NN_TRY(dims.input(kScoreTensor, {"batches", "numAnchors", "numClasses"}));
  NN_TRY(dims.input(kDeltaTensor, {"batches", "numAnchors", "boxEncodingLength"}));
  NN_TRY(dims.input(kAnchorTensor, {"numAnchors", "4"}));
  if (dims.get("numClasses") != 0) {
    NN_RET_CHECK_GT(dims.get("numClasses"), 1u) << "scores need a background class and at least one more";
  }
  if (dims.get("boxEncodingLength") != 0) {
    NN_RET_CHECK_GE(dims.get("boxEncodingLength"), 4u) << "box encodings have at least 4 values";
  }
  int32_t maxDetections = 0;
  if (getConstantScalar(context, kMaxNumDetectionScalar, &maxDetections)) {
    NN_RET_CHECK_GT(maxDetections, 0) << "maxNumDetections must be positive";
    uint8_t regular = 0;
    int32_t maxClasses = 0;
    if (getConstantScalar(context, kUseRegularNmsScalar, &regular) &&
        (regular || getConstantScalar(context, kMaxClassesPerDetectionScalar, &maxClasses))) {
      if (!regular) {
        NN_RET_CHECK_GT(maxClasses, 0) << "maxClassesPerDetection must be positive";
      }
      const uint64_t slots = uint64_t{static_cast<uint32_t>(maxDetections)} * (regular ? 1u : uint32_t(maxClasses));
      NN_RET_CHECK_LE(slots, uint64_t{UINT32_MAX}) << "maxNumDetections * maxClassesPerDetection overflows";
      NN_TRY(dims.set("numDetections", static_cast<uint32_t>(slots)));
    }
  }
  NN_TRY(dims.output(kOutputScoreTensor, {"batches", "numDetections"}));
  NN_TRY(dims.output(kOutputRoiTensor, {"batches", "numDetections", "4"}));
  NN_TRY(dims.output(kOutputClassTensor, {"batches", "numDetections"}));
  return dims.output(kOutputDetectionTensor, {"batches"});
}

Status prepare(IOperationExecutionContext* context) {
  auto p = readParams(context);
  if (!p.ok()) return p.error();
  const uint32_t n = p->detectionsPerBatch;
  return setOutputDimensions(
      context, {{p->numBatches, n}, {p->numBatches, n, boxes::kBoxSize}, {p->numBatches, n}, {p->numBatches}});
}

Status execute(IOperationExecutionContext* context) {
  auto p = readParams(context);
  if (!p.ok()) return p.error();
  const std::vector<float> scores = inputAsFloat(context, kScoreTensor);
  const std::vector<float> deltas = inputAsFloat(context, kDeltaTensor);
  const std::vector<float> anchors = inputAsFloat(context, kAnchorTensor);
  const uint32_t n = p->detectionsPerBatch;
  std::vector<float> scoresOut(size_t{p->numBatches} * n, 0.0f);
  std::vector<float> boxesOut(scoresOut.size() * boxes::kBoxSize, 0.0f);
  int32_t* classesOut = context->getOutputBuffer<int32_t>(kOutputClassTensor);
  int32_t* detectionsOut = context->getOutputBuffer<int32_t>(kOutputDetectionTensor);
  std::fill_n(classesOut, scoresOut.size(), 0);
  std::vector<float> decoded(size_t{p->numAnchors} * boxes::kBoxSize);
  for (uint32_t b = 0; b < p->numBatches; ++b) {
    decodeBoxes(*p, deltas.data() + size_t{b} * p->numAnchors * p->boxEncodingLength, anchors.data(),
                decoded.data());
    const float* batchScores = scores.data() + size_t{b} * p->numAnchors * p->numClasses;
    const BatchOutput out{scoresOut.data() + size_t{b} * n, boxesOut.data() + size_t{b} * n * boxes::kBoxSize,
                          classesOut + size_t{b} * n};
    const uint32_t found = p->useRegularNms ? regularNms(*p, batchScores, decoded, out)
                                            : fastNms(*p, batchScores, decoded, out);
    detectionsOut[b] = static_cast<int32_t>(found);
  }
  NN_TRY(writeOutputFromFloat(context, kOutputScoreTensor, scoresOut.data(), scoresOut.size()));
  return writeOutputFromFloat(context, kOutputRoiTensor, boxesOut.data(), boxesOut.size());
}

}  // namespace weft::nn::detection_postprocessing

NN_REGISTER_OPERATION(DETECTION_POSTPROCESSING, "DETECTION_POSTPROCESSING", detection_postprocessing::validate,
                      detection_postprocessing::prepare, detection_postprocessing::execute)
