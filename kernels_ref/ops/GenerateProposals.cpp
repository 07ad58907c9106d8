// GENERATE_PROPOSALS: region proposals from anchor scores and box deltas (Faster R-CNN RPN).
//   scores [batches, height, width, numAnchors], deltas [batches, height, width, numAnchors * 4]
//   (NCHW: [batches, numAnchors(*4), height, width]), anchors [numAnchors, 4], imageInfo
//   [batches, 2] = {height, width}, heightStride, widthStride, preNmsTopN, postNmsTopN (<= 0:
//   all), iouThreshold, minSize, layout -> scoresOut [n], roiOut [n, 4], batchesOut [n].
// Per image: every anchor is placed at every feature-map position (shifted by the strides), moved
// by its deltas and clipped to the image; the preNmsTopN best are kept, boxes no larger than
// minSize or centred outside the image are dropped, and hard NMS keeps postNmsTopN.
// The number of proposals depends on the values: prepare() runs the computation to size the
// outputs and execute() runs it again to write them.
// Types: float32, float16 (computed in float32), quant8 asymm / signed scores and deltas with
// TENSOR_QUANT16_SYMM anchors and TENSOR_QUANT16_ASYMM image info and rois (scale 0.125).
#include <algorithm>
#include <numeric>
#include <vector>

#include "BoundingBoxes.h"
#include "DimensionAgreement.h"
#include "TensorAsFloat.h"
#include "weft/kernels/Layout.h"
#include "weft/kernels/OperationUtils.h"

namespace weft::nn::generate_proposals {

constexpr uint32_t kScoreTensor = 0;
constexpr uint32_t kDeltaTensor = 1;
constexpr uint32_t kAnchorTensor = 2;
constexpr uint32_t kImageInfoTensor = 3;
constexpr uint32_t kHeightStrideScalar = 4;
constexpr uint32_t kWidthStrideScalar = 5;
constexpr uint32_t kPreNmsMaxScalar = 6;
constexpr uint32_t kPostNmsMaxScalar = 7;
constexpr uint32_t kIoUThresholdScalar = 8;
constexpr uint32_t kMinSizeScalar = 9;
constexpr uint32_t kLayoutScalar = 10;

constexpr uint32_t kOutputScoreTensor = 0;
constexpr uint32_t kOutputRoiTensor = 1;
constexpr uint32_t kOutputBatchesTensor = 2;

namespace {

bool isQuantized8(OperandType type) {
  return type == OperandType::TENSOR_QUANT8_ASYMM || type == OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
}

struct Geometry {
  bool useNchw;
  uint32_t numBatches, height, width, numAnchors;
};

Result<Geometry> readGeometry(const IOperationExecutionContext* context) {
  Geometry g;
  g.useNchw = context->getInputValue<uint8_t>(kLayoutScalar) != 0;
  const Shape scores = context->getInputShape(kScoreTensor);
  const Shape deltas = context->getInputShape(kDeltaTensor);
  const Shape anchors = context->getInputShape(kAnchorTensor);
  const Shape imageInfo = context->getInputShape(kImageInfoTensor);
  NN_RET_CHECK_EQ(getNumberOfDimensions(scores), 4u) << "scores must be 4-D";
  NN_RET_CHECK_EQ(getNumberOfDimensions(deltas), 4u) << "deltas must be 4-D";
  NN_RET_CHECK_EQ(getNumberOfDimensions(anchors), 2u) << "anchors must be 2-D";
  NN_RET_CHECK_EQ(getNumberOfDimensions(imageInfo), 2u) << "imageInfo must be 2-D";
  g.numBatches = scores.dimensions[0];
  g.height = scores.dimensions[g.useNchw ? 2 : 1];
  g.width = scores.dimensions[g.useNchw ? 3 : 2];
  g.numAnchors = scores.dimensions[g.useNchw ? 1 : 3];
  NN_RET_CHECK_EQ(deltas.dimensions[0], g.numBatches) << "deltas batches";
  NN_RET_CHECK_EQ(deltas.dimensions[g.useNchw ? 2 : 1], g.height) << "deltas height";
  NN_RET_CHECK_EQ(deltas.dimensions[g.useNchw ? 3 : 2], g.width) << "deltas width";
  NN_RET_CHECK_EQ(deltas.dimensions[g.useNchw ? 1 : 3], g.numAnchors * boxes::kBoxSize) << "4 deltas per anchor";
  NN_RET_CHECK_EQ(imageInfo.dimensions[0], g.numBatches) << "one imageInfo row per batch";
  NN_RET_CHECK_EQ(imageInfo.dimensions[1], 2u) << "imageInfo rows are {height, width}";
  NN_RET_CHECK_EQ(anchors.dimensions[0], g.numAnchors) << "one anchor per score channel";
  NN_RET_CHECK_EQ(anchors.dimensions[1], boxes::kBoxSize) << "anchors have 4 coordinates";
  if (isQuantized8(scores.type)) {
    NN_RET_CHECK_EQ(anchors.scale, 0.125f) << "quantized anchors must have scale 0.125";
    NN_RET_CHECK(imageInfo.scale == 0.125f && imageInfo.offset == 0)
        << "quantized imageInfo must have scale 0.125, zero point 0";
  }
  return g;
}

// The input tensor as float in NHWC order.
std::vector<float> nhwcAsFloat(const IOperationExecutionContext* context, uint32_t index, bool useNchw) {
  std::vector<float> values = inputAsFloat(context, index);
  if (!useNchw || values.empty()) return values;
  std::vector<float> nhwc(values.size());
  transposeNchwToNhwc(values.data(), context->getInputShape(index).dimensions, nhwc.data());
  return nhwc;
}

struct Proposals {
  std::vector<float> scores;
  std::vector<float> rois;
  std::vector<int32_t> batches;
};

// Keeps the candidates whose box is larger than minSize and centred inside the image.
void filterBoxes(const float* rois, const float* imageInfo, float minSize, std::vector<uint32_t>* select) {
  size_t kept = 0;
  for (uint32_t index : *select) {
    const float* box = rois + size_t{index} * boxes::kBoxSize;
    const float width = box[2] - box[0];
    const float height = box[3] - box[1];
    const float centerX = box[0] + width / 2.0f;
    const float centerY = box[1] + height / 2.0f;
    if (width > minSize && height > minSize && centerX < imageInfo[1] && centerY < imageInfo[0]) {
      (*select)[kept++] = index;
    }
  }
  select->resize(kept);
}

Result<Proposals> generate(const IOperationExecutionContext* context, const Geometry& g) {
  const std::vector<float> scores = nhwcAsFloat(context, kScoreTensor, g.useNchw);
  const std::vector<float> deltas = nhwcAsFloat(context, kDeltaTensor, g.useNchw);
  const std::vector<float> anchors = inputAsFloat(context, kAnchorTensor);
  const std::vector<float> imageInfo = inputAsFloat(context, kImageInfoTensor);
  const float heightStride = scalarAsFloat(context, kHeightStrideScalar);
  const float widthStride = scalarAsFloat(context, kWidthStrideScalar);
  const int32_t preNmsTopN = context->getInputValue<int32_t>(kPreNmsMaxScalar);
  const int32_t postNmsTopN = context->getInputValue<int32_t>(kPostNmsMaxScalar);
  const float iouThreshold = scalarAsFloat(context, kIoUThresholdScalar);
  const float minSize = scalarAsFloat(context, kMinSizeScalar);

  // The anchors placed at every feature-map position, in NHWC order.
  const uint32_t perImage = g.height * g.width * g.numAnchors;
  std::vector<float> anchorBoxes(size_t{perImage} * boxes::kBoxSize);
  for (uint32_t h = 0; h < g.height; ++h) {
    const float hShift = static_cast<float>(h) * heightStride;
    for (uint32_t w = 0; w < g.width; ++w) {
      const float wShift = static_cast<float>(w) * widthStride;
      for (uint32_t a = 0; a < g.numAnchors; ++a) {
        float* box = anchorBoxes.data() + ((size_t{h} * g.width + w) * g.numAnchors + a) * boxes::kBoxSize;
        const float* anchor = anchors.data() + size_t{a} * boxes::kBoxSize;
        box[0] = anchor[0] + wShift;
        box[1] = anchor[1] + hShift;
        box[2] = anchor[2] + wShift;
        box[3] = anchor[3] + hShift;
      }
    }
  }

  Proposals out;
  std::vector<float> transformed(anchorBoxes.size());
  const std::vector<int32_t> sameImage(perImage, 0);
  for (uint32_t b = 0; b < g.numBatches; ++b) {
    const float* imageScores = scores.data() + size_t{b} * perImage;
    const float* image = imageInfo.data() + size_t{b} * 2;
    NN_TRY(boxes::transformBoxes(anchorBoxes.data(), perImage, deltas.data() + size_t{b} * perImage * boxes::kBoxSize,
                                 1, sameImage.data(), image, 1, transformed.data()));
    std::vector<uint32_t> select(perImage);
    std::iota(select.begin(), select.end(), 0);
    if (preNmsTopN > 0 && static_cast<size_t>(preNmsTopN) < select.size()) {
      std::stable_sort(select.begin(), select.end(),
                       [imageScores](uint32_t a, uint32_t c) { return imageScores[a] > imageScores[c]; });
      select.resize(preNmsTopN);
    }
    filterBoxes(transformed.data(), image, minSize, &select);
    const size_t kept = boxes::hardNmsSingleClass(
        imageScores, iouThreshold, postNmsTopN,
        [&transformed](uint32_t index) { return transformed.data() + size_t{index} * boxes::kBoxSize; },
        select.data(), select.size());
    for (size_t i = 0; i < kept; ++i) {
      const float* box = transformed.data() + size_t{select[i]} * boxes::kBoxSize;
      out.rois.insert(out.rois.end(), box, box + boxes::kBoxSize);
      out.scores.push_back(imageScores[select[i]]);
      out.batches.push_back(static_cast<int32_t>(b));
    }
  }
  return out;
}

}  // namespace

Status validate(const IOperationValidationContext* context) {
  NN_TRY(validateInputCount(context, 11, 11));
  NN_TRY(validateOutputCount(context, 3));
  const OperandType scoreType = context->getInputType(kScoreTensor);
  NN_TRY(validateTypeIsOneOf(context, "scores", scoreType,
                             {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16,
                              OperandType::TENSOR_QUANT8_ASYMM, OperandType::TENSOR_QUANT8_ASYMM_SIGNED}));
  const bool quant = isQuantized8(scoreType);
  const OperandType anchorType = quant ? OperandType::TENSOR_QUANT16_SYMM : scoreType;
  const OperandType boxType = quant ? OperandType::TENSOR_QUANT16_ASYMM : scoreType;
  const OperandType scalar = scoreType == OperandType::TENSOR_FLOAT16 ? OperandType::FLOAT16 : OperandType::FLOAT32;
  NN_TRY(validateInputTypes(context, {scoreType, scoreType, anchorType, boxType, scalar, scalar, OperandType::INT32,
                                      OperandType::INT32, scalar, scalar, OperandType::BOOL}));
  NN_TRY(validateOutputTypes(context, {scoreType, boxType, OperandType::TENSOR_INT32}));
  uint8_t nchw = 0;
  const bool layoutKnown = getConstantScalar(context, kLayoutScalar, &nchw);
  DimensionAgreement dims(context);
  if (layoutKnown) {
    NN_TRY(nchw ? dims.input(kScoreTensor, {"batches", "numAnchors", "height", "width"})
                : dims.input(kScoreTensor, {"batches", "height", "width", "numAnchors"}));
    if (dims.get("numAnchors") != 0) NN_TRY(dims.set("deltasPerPosition", dims.get("numAnchors") * boxes::kBoxSize));
    NN_TRY(nchw ? dims.input(kDeltaTensor, {"batches", "deltasPerPosition", "height", "width"})
                : dims.input(kDeltaTensor, {"batches", "height", "width", "deltasPerPosition"}));
  } else {
    NN_TRY(dims.input(kScoreTensor, {"batches", nullptr, nullptr, nullptr}));
    NN_TRY(dims.input(kDeltaTensor, {"batches", nullptr, nullptr, nullptr}));
  }
  NN_TRY(dims.input(kAnchorTensor, {"numAnchors", "4"}));
  NN_TRY(dims.input(kImageInfoTensor, {"batches", "2"}));
  NN_TRY(dims.output(kOutputScoreTensor, {"numProposals"}));
  NN_TRY(dims.output(kOutputRoiTensor, {"numProposals", "4"}));
  NN_TRY(dims.output(kOutputBatchesTensor, {"numProposals"}));
  if (quant) {
    NN_RET_CHECK_EQ(context->getInputShape(kAnchorTensor).scale, 0.125f) << "quantized anchors need scale 0.125";
    const Shape imageInfo = context->getInputShape(kImageInfoTensor);
    NN_RET_CHECK(imageInfo.scale == 0.125f && imageInfo.offset == 0)
        << "quantized imageInfo must have scale 0.125, zero point 0";
  }
  return {};
}

Status prepare(IOperationExecutionContext* context) {
  auto g = readGeometry(context);
  if (!g.ok()) return g.error();
  auto proposals = generate(context, *g);
  if (!proposals.ok()) return proposals.error();
  const auto count = static_cast<uint32_t>(proposals->scores.size());
  // Scores, rois and batch indexes, in output order.
  return setOutputDimensions(context, {{count}, {count, boxes::kBoxSize}, {count}});
}

Status execute(IOperationExecutionContext* context) {
  auto g = readGeometry(context);
  if (!g.ok()) return g.error();
  auto proposals = generate(context, *g);
  if (!proposals.ok()) return proposals.error();
  const size_t count = proposals->scores.size();
  NN_RET_CHECK_EQ(getNumberOfElements(context->getOutputShape(kOutputScoreTensor)), count);
  NN_TRY(writeOutputFromFloat(context, kOutputScoreTensor, proposals->scores.data(), count));
  NN_TRY(writeOutputFromFloat(context, kOutputRoiTensor, proposals->rois.data(), proposals->rois.size()));
  std::copy(proposals->batches.begin(), proposals->batches.end(),
            context->getOutputBuffer<int32_t>(kOutputBatchesTensor));
  return {};
}

}  // namespace weft::nn::generate_proposals

NN_REGISTER_OPERATION(GENERATE_PROPOSALS, "GENERATE_PROPOSALS", generate_proposals::validate,
                      generate_proposals::prepare, generate_proposals::execute, .allowZeroSizedInput = true)
