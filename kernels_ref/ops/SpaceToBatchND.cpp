// SPACE_TO_BATCH_ND: pads the spatial dimensions (paddings [[top, bottom], [left, right]]) and
// moves block_shape [bh, bw] spatial blocks into batches:
//   output[(dy * bw + dx) * batches + b, y, x, c] = padded[b, y * bh + dy, x * bw + dx, c]
// The padded height and width must be multiples of the block. Padding is 0, or the zero point for
// quantized tensors. Optional NCHW layout flag. Types: float32, float16, quant8 asymm and asymm
// signed (quantization unchanged).
#include <vector>

#include "ElementCopy.h"
#include "PaddingUtils.h"
#include "TensorOpUtils.h"

namespace weft::nn::space_to_batch_nd {

constexpr uint32_t kInput = 0;
constexpr uint32_t kBlockShape = 1;
constexpr uint32_t kPaddings = 2;
constexpr uint32_t kLayout = 3;
constexpr uint32_t kOutput = 0;

namespace {

struct Spec {
  uint32_t blockHeight = 1, blockWidth = 1;
  std::vector<DimPadding> paddings;  // per dimension of the input in its own layout
  ImageGeometry padded;              // the padded input
};

Result<Spec> readSpec(const IOperationExecutionContext* context) {
  const Shape input = context->getInputShape(kInput);
  NN_RET_CHECK_EQ(getNumberOfDimensions(input), 4u) << "input must be 4-D";
  const bool nchw = getOptionalBool(context, kLayout, false);
  auto block = readInt32Vector(context, kBlockShape, 2);
  if (!block.ok()) return block.error();
  NN_RET_CHECK((*block)[0] >= 1 && (*block)[1] >= 1) << "block sizes must be positive";
  auto spatial = readPaddings(context, kPaddings, 2);
  if (!spatial.ok()) return spatial.error();
  Spec spec;
  spec.blockHeight = static_cast<uint32_t>((*block)[0]);
  spec.blockWidth = static_cast<uint32_t>((*block)[1]);
  spec.paddings.assign(4, DimPadding{});
  spec.paddings[nchw ? 2 : 1] = (*spatial)[0];
  spec.paddings[nchw ? 3 : 2] = (*spatial)[1];
  auto padded = paddedDimensions(input.dimensions, spec.paddings);
  if (!padded.ok()) return padded.error();
  spec.padded = imageGeometry(*padded, nchw);
  NN_RET_CHECK(spec.padded.height % spec.blockHeight == 0 && spec.padded.width % spec.blockWidth == 0)
      << "padded size " << spec.padded.height << "x" << spec.padded.width << " is not a multiple of the block "
      << spec.blockHeight << "x" << spec.blockWidth;
  NN_RET_CHECK_LE(uint64_t{spec.padded.batches} * spec.blockHeight * spec.blockWidth, uint64_t{UINT32_MAX})
      << "output batches overflow";
  return spec;
}

}  // namespace

Status validate(const IOperationValidationContext* context) {
  NN_TRY(validateBlockRearrangement(context, {OperandType::TENSOR_INT32, OperandType::TENSOR_INT32}));
  NN_TRY(validateInputRank(context, kBlockShape, 1, 1));
  return validateInputRank(context, kPaddings, 2, 2);
}

Status prepare(IOperationExecutionContext* context) {
  auto spec = readSpec(context);
  if (!spec.ok()) return spec.error();
  const bool nchw = getOptionalBool(context, kLayout, false);
  const ImageGeometry& p = spec->padded;
  Shape output = context->getOutputShape(kOutput);
  output.dimensions = imageDimensions(p.batches * spec->blockHeight * spec->blockWidth, p.height / spec->blockHeight,
                                      p.width / spec->blockWidth, p.channels, nchw);
  return context->setOutputShape(kOutput, output);
}

Status execute(IOperationExecutionContext* context) {
  auto spec = readSpec(context);
  if (!spec.ok()) return spec.error();
  const Shape input = context->getInputShape(kInput);
  const bool nchw = getOptionalBool(context, kLayout, false);
  const size_t elementSize = sizeOfElement(input.type);
  // Pad into a scratch copy first (0 bits are +0.0 for the float types), then regroup its blocks.
  const uint32_t zeroPoint = isQuantized(input.type) ? static_cast<uint32_t>(input.offset) : 0;
  const uint8_t padValue[4] = {static_cast<uint8_t>(zeroPoint), 0, 0, 0};
  const ImageGeometry& p = spec->padded;
  std::vector<uint8_t> padded(size_t{p.batches} * p.height * p.width * p.channels * elementSize);
  if (padded.empty()) return {};
  padElements(context->getInputBuffer(kInput), input.dimensions, spec->paddings, padValue, elementSize,
              padded.data());
  const ImageGeometry out = imageGeometry(context->getOutputShape(kOutput).dimensions, nchw);
  // Block (dy, dx) becomes the output's batches [(dy * bw + dx) * batches, ... + batches).
  copySpaceBlocks(padded.data(), context->getOutputBuffer(kOutput), p, out, spec->blockHeight, spec->blockWidth,
                  int64_t{p.batches} * out.batchStride, /*toFine=*/false, elementSize);
  return {};
}

}  // namespace weft::nn::space_to_batch_nd

NN_REGISTER_OPERATION(SPACE_TO_BATCH_ND, "SPACE_TO_BATCH_ND", space_to_batch_nd::validate,
                      space_to_batch_nd::prepare, space_to_batch_nd::execute)
