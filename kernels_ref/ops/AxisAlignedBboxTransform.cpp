// AXIS_ALIGNED_BBOX_TRANSFORM: applies per-class box deltas to regions of interest.
//   roi [numRois, 4] as [x1, y1, x2, y2], deltas [numRois, numClasses * 4] as [dx, dy, dw, dh],
//   batches [numRois] (TENSOR_INT32, image of each roi), imageInfo [numBatches, 2] = {height, width}
//   -> output [numRois, numClasses * 4], each box clipped to its image.
// Types: float32, float16 (computed in float32), and TENSOR_QUANT16_ASYMM rois / image info /
// output (scale 0.125, zero point 0) with TENSOR_QUANT8_ASYMM or _SIGNED deltas.
#include <vector>

#include "BoundingBoxes.h"
#include "DimensionAgreement.h"
#include "TensorAsFloat.h"
#include "weft/kernels/OperationUtils.h"

namespace weft::nn::axis_aligned_bbox_transform {

constexpr uint32_t kRoiTensor = 0;
constexpr uint32_t kDeltaTensor = 1;
constexpr uint32_t kBatchesTensor = 2;
constexpr uint32_t kImageInfoTensor = 3;
constexpr uint32_t kOutputTensor = 0;

namespace {

bool isQuantRoi(OperandType type) { return type == OperandType::TENSOR_QUANT16_ASYMM; }

// Quantized boxes are fixed to 1/8 pixel: NNAPI requires scale 0.125 and zero point 0.
Status checkQuantBoxes(const Shape& shape, const char* what) {
  NN_RET_CHECK(shape.scale == 0.125f && shape.offset == 0) << what << " must have scale 0.125 and zero point 0";
  return {};
}

struct Geometry {
  uint32_t numRois, numClasses, numBatches;
};

Result<Geometry> readGeometry(const IOperationExecutionContext* context) {
  const Shape roi = context->getInputShape(kRoiTensor);
  const Shape deltas = context->getInputShape(kDeltaTensor);
  const Shape batches = context->getInputShape(kBatchesTensor);
  const Shape imageInfo = context->getInputShape(kImageInfoTensor);
  NN_RET_CHECK_EQ(getNumberOfDimensions(roi), 2u) << "roi must be 2-D";
  NN_RET_CHECK_EQ(getNumberOfDimensions(deltas), 2u) << "deltas must be 2-D";
  NN_RET_CHECK_EQ(getNumberOfDimensions(batches), 1u) << "batches must be 1-D";
  NN_RET_CHECK_EQ(getNumberOfDimensions(imageInfo), 2u) << "imageInfo must be 2-D";
  Geometry g;
  g.numRois = roi.dimensions[0];
  g.numClasses = deltas.dimensions[1] / boxes::kBoxSize;
  g.numBatches = imageInfo.dimensions[0];
  NN_RET_CHECK_EQ(roi.dimensions[1], boxes::kBoxSize) << "each roi has 4 coordinates";
  NN_RET_CHECK_GT(g.numClasses, 0u) << "deltas must have at least one class";
  NN_RET_CHECK_EQ(deltas.dimensions[1], g.numClasses * boxes::kBoxSize) << "deltas per roi must be 4 per class";
  NN_RET_CHECK_EQ(deltas.dimensions[0], g.numRois) << "one row of deltas per roi";
  NN_RET_CHECK_EQ(batches.dimensions[0], g.numRois) << "one batch index per roi";
  NN_RET_CHECK_GT(g.numBatches, 0u) << "imageInfo must describe at least one image";
  NN_RET_CHECK_EQ(imageInfo.dimensions[1], 2u) << "imageInfo rows are {height, width}";
  return g;
}

}  // namespace

Status validate(const IOperationValidationContext* context) {
  NN_TRY(validateInputCount(context, 4, 4));
  NN_TRY(validateOutputCount(context, 1));
  const OperandType roiType = context->getInputType(kRoiTensor);
  NN_TRY(validateTypeIsOneOf(context, "roi", roiType,
                             {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16,
                              OperandType::TENSOR_QUANT16_ASYMM}));
  if (isQuantRoi(roiType)) {
    const OperandType deltaType = context->getInputType(kDeltaTensor);
    NN_TRY(validateTypeIsOneOf(context, "deltas", deltaType,
                               {OperandType::TENSOR_QUANT8_ASYMM, OperandType::TENSOR_QUANT8_ASYMM_SIGNED}));
    NN_TRY(validateInputTypes(context, {roiType, deltaType, OperandType::TENSOR_INT32, roiType}));
    NN_TRY(checkQuantBoxes(context->getInputShape(kRoiTensor), "roi"));
    NN_TRY(checkQuantBoxes(context->getInputShape(kImageInfoTensor), "imageInfo"));
    NN_TRY(checkQuantBoxes(context->getOutputShape(kOutputTensor), "output"));
  } else {
    NN_TRY(validateInputTypes(context, {roiType, roiType, OperandType::TENSOR_INT32, roiType}));
  }
  NN_TRY(validateOutputTypes(context, {roiType}));
  DimensionAgreement dims(context);
  NN_TRY(dims.input(kRoiTensor, {"numRois", "4"}));
  NN_TRY(dims.input(kDeltaTensor, {"numRois", "deltasPerRoi"}));
  NN_TRY(dims.input(kBatchesTensor, {"numRois"}));
  NN_TRY(dims.input(kImageInfoTensor, {"numBatches", "2"}));
  NN_TRY(dims.output(kOutputTensor, {"numRois", "deltasPerRoi"}));
  if (const uint32_t perRoi = dims.get("deltasPerRoi"); perRoi != 0) {
    NN_RET_CHECK(perRoi % boxes::kBoxSize == 0) << "deltas per roi must be 4 per class";
  }
  return {};
}

Status prepare(IOperationExecutionContext* context) {
  auto g = readGeometry(context);
  if (!g.ok()) return g.error();
  if (isQuantRoi(context->getInputType(kRoiTensor))) {
    NN_TRY(checkQuantBoxes(context->getInputShape(kRoiTensor), "roi"));
    NN_TRY(checkQuantBoxes(context->getInputShape(kImageInfoTensor), "imageInfo"));
  }
  Shape output = context->getOutputShape(kOutputTensor);
  output.dimensions = {g->numRois, g->numClasses * boxes::kBoxSize};
  return context->setOutputShape(kOutputTensor, output);
}

Status execute(IOperationExecutionContext* context) {
  auto g = readGeometry(context);
  if (!g.ok()) return g.error();
  const std::vector<float> rois = inputAsFloat(context, kRoiTensor);
  const std::vector<float> deltas = inputAsFloat(context, kDeltaTensor);
  const std::vector<float> imageInfo = inputAsFloat(context, kImageInfoTensor);
  std::vector<float> output(size_t{g->numRois} * g->numClasses * boxes::kBoxSize);
  NN_TRY(boxes::transformBoxes(rois.data(), g->numRois, deltas.data(), g->numClasses,
                               context->getInputBuffer<int32_t>(kBatchesTensor), imageInfo.data(), g->numBatches,
                               output.data()));
  return writeOutputFromFloat(context, kOutputTensor, output.data(), output.size());
}

}  // namespace weft::nn::axis_aligned_bbox_transform

NN_REGISTER_OPERATION(AXIS_ALIGNED_BBOX_TRANSFORM, "AXIS_ALIGNED_BBOX_TRANSFORM", axis_aligned_bbox_transform::validate,
                      axis_aligned_bbox_transform::prepare, axis_aligned_bbox_transform::execute,
                      .allowZeroSizedInput = true)
