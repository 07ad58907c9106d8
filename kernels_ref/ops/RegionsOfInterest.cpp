#include "RegionsOfInterest.h"

#include "DimensionAgreement.h"
#include "TensorAsFloat.h"
#include "weft/kernels/OperationUtils.h"

namespace weft::nn::roi {

namespace {

bool isQuantized8(OperandType type) {
  return type == OperandType::TENSOR_QUANT8_ASYMM || type == OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
}

}  // namespace

Result<Geometry> readGeometry(const IOperationExecutionContext* context, uint32_t layoutIndex) {
  Geometry g;
  g.useNchw = context->getInputValue<uint8_t>(layoutIndex) != 0;
  const Shape input = context->getInputShape(kInputTensor);
  const Shape roi = context->getInputShape(kRoiTensor);
  const Shape batches = context->getInputShape(kBatchSplitTensor);
  NN_RET_CHECK_EQ(getNumberOfDimensions(input), 4u) << "input must be 4-D";
  NN_RET_CHECK_EQ(getNumberOfDimensions(roi), 2u) << "roi must be 2-D";
  NN_RET_CHECK_EQ(getNumberOfDimensions(batches), 1u) << "batch split must be 1-D";
  g.numBatches = input.dimensions[0];
  g.inHeight = input.dimensions[g.useNchw ? 2 : 1];
  g.inWidth = input.dimensions[g.useNchw ? 3 : 2];
  g.inDepth = input.dimensions[g.useNchw ? 1 : 3];
  g.numRois = roi.dimensions[0];
  // Only the number of rois may be zero.
  NN_RET_CHECK(g.numBatches > 0 && g.inHeight > 0 && g.inWidth > 0 && g.inDepth > 0)
      << "input dimensions must be positive, got " << toString(input.dimensions);
  NN_RET_CHECK_EQ(roi.dimensions[1], 4u) << "each roi has 4 coordinates";
  NN_RET_CHECK_EQ(batches.dimensions[0], g.numRois) << "one batch index per roi";
  const int32_t outHeight = context->getInputValue<int32_t>(kOutputHeightScalar);
  const int32_t outWidth = context->getInputValue<int32_t>(kOutputWidthScalar);
  NN_RET_CHECK(outHeight > 0 && outWidth > 0) << "output size must be positive";
  g.outHeight = static_cast<uint32_t>(outHeight);
  g.outWidth = static_cast<uint32_t>(outWidth);
  g.heightStride = scalarAsFloat(context, kHeightStrideScalar);
  g.widthStride = scalarAsFloat(context, kWidthStrideScalar);
  NN_RET_CHECK(g.heightStride > 0 && g.widthStride > 0) << "strides must be positive";
  if (roi.type == OperandType::TENSOR_QUANT16_ASYMM) {
    NN_RET_CHECK(roi.scale == 0.125f && roi.offset == 0) << "quantized rois must have scale 0.125, zero point 0";
  }
  return g;
}

Status validateCommon(const IOperationValidationContext* context, uint32_t extraInt32Inputs) {
  NN_TRY(validateInputCount(context, 8 + extraInt32Inputs, 8 + extraInt32Inputs));
  NN_TRY(validateOutputCount(context, 1));
  const OperandType inputType = context->getInputType(kInputTensor);
  NN_TRY(validateTypeIsOneOf(context, "input", inputType,
                             {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16,
                              OperandType::TENSOR_QUANT8_ASYMM, OperandType::TENSOR_QUANT8_ASYMM_SIGNED}));
  const bool quant = isQuantized8(inputType);
  const OperandType roiType = quant ? OperandType::TENSOR_QUANT16_ASYMM : inputType;
  const OperandType strideType = inputType == OperandType::TENSOR_FLOAT16 ? OperandType::FLOAT16 : OperandType::FLOAT32;
  std::vector<OperandType> expected = {inputType, roiType, OperandType::TENSOR_INT32, OperandType::INT32,
                                       OperandType::INT32, strideType, strideType};
  for (uint32_t i = 0; i < extraInt32Inputs; ++i) expected.push_back(OperandType::INT32);
  expected.push_back(OperandType::BOOL);
  for (uint32_t i = 0; i < expected.size(); ++i) {
    NN_RET_CHECK(context->getInputType(i) == expected[i])
        << context->getOperationName() << ": input " << i << " has type " << toString(context->getInputType(i))
        << ", expected " << toString(expected[i]);
  }
  NN_TRY(validateOutputTypes(context, {inputType}));
  uint8_t nchw = 0;
  const bool layoutKnown = getConstantScalar(context, 7 + extraInt32Inputs, &nchw);
  DimensionAgreement dims(context);
  const char* d1 = !layoutKnown ? nullptr : nchw ? "depth" : "height";
  const char* d3 = !layoutKnown ? nullptr : nchw ? "width" : "depth";
  NN_TRY(dims.input(kInputTensor, {"batches", d1, nullptr, d3}));
  NN_TRY(dims.input(kRoiTensor, {"numRois", "4"}));
  NN_TRY(dims.input(kBatchSplitTensor, {"numRois"}));
  if (quant) {
    const Shape roi = context->getInputShape(kRoiTensor);
    NN_RET_CHECK(roi.scale == 0.125f && roi.offset == 0) << "quantized rois must have scale 0.125, zero point 0";
  }
  for (auto [index, name] : {std::pair{kOutputHeightScalar, "outHeight"}, std::pair{kOutputWidthScalar, "outWidth"}}) {
    int32_t size = 0;
    if (getConstantScalar(context, index, &size)) {
      NN_RET_CHECK_GT(size, 0) << "output size must be positive";
      NN_TRY(dims.set(name, static_cast<uint32_t>(size)));
    }
  }
  if (layoutKnown) {
    NN_TRY(nchw ? dims.output(kOutputTensor, {"numRois", "depth", "outHeight", "outWidth"})
                : dims.output(kOutputTensor, {"numRois", "outHeight", "outWidth", "depth"}));
  }
  return {};
}

Status setOutputShape(IOperationExecutionContext* context, const Geometry& g) {
  Shape output = context->getOutputShape(kOutputTensor);
  output.dimensions = g.useNchw ? Dimensions{g.numRois, g.inDepth, g.outHeight, g.outWidth}
                                : Dimensions{g.numRois, g.outHeight, g.outWidth, g.inDepth};
  return context->setOutputShape(kOutputTensor, output);
}

Status checkRoi(const Geometry& g, uint32_t roiIndex, int32_t batch, float x1, float y1, float x2, float y2) {
  NN_RET_CHECK(batch >= 0 && static_cast<uint32_t>(batch) < g.numBatches)
      << "roi " << roiIndex << " names batch " << batch << " of " << g.numBatches;
  NN_RET_CHECK(x1 >= 0 && y1 >= 0 && x2 >= 0 && y2 >= 0) << "roi " << roiIndex << " has a negative coordinate";
  NN_RET_CHECK(x1 <= g.inWidth && x2 <= g.inWidth && y1 <= g.inHeight && y2 <= g.inHeight)
      << "roi " << roiIndex << " lies outside the feature map";
  NN_RET_CHECK(x1 <= x2 && y1 <= y2) << "roi " << roiIndex << " has x2 < x1 or y2 < y1";
  return {};
}

}  // namespace weft::nn::roi
