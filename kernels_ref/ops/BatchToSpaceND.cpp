// BATCH_TO_SPACE_ND: rearranges batches into spatial blocks (the inverse of SPACE_TO_BATCH_ND
// without paddings). With block [bh, bw] and outBatches = batches / (bh * bw):
//   output[b, y * bh + dy, x * bw + dx, c] = input[(dy * bw + dx) * outBatches + b, y, x, c]
// Optional NCHW layout flag. Types: float32, float16, quant8 asymm and asymm signed (quantization
// unchanged).
#include "ElementCopy.h"
#include "TensorOpUtils.h"

namespace weft::nn::batch_to_space_nd {

constexpr uint32_t kInput = 0;
constexpr uint32_t kBlockShape = 1;
constexpr uint32_t kLayout = 2;
constexpr uint32_t kOutput = 0;

namespace {

struct Block {
  uint32_t height = 1, width = 1;
};

Result<Block> readBlock(const IOperationExecutionContext* context, const ImageGeometry& in) {
  auto block = readInt32Vector(context, kBlockShape, 2);
  if (!block.ok()) return block.error();
  NN_RET_CHECK((*block)[0] >= 1 && (*block)[1] >= 1) << "block sizes must be positive";
  const Block b{static_cast<uint32_t>((*block)[0]), static_cast<uint32_t>((*block)[1])};
  NN_RET_CHECK_EQ(in.batches % (uint64_t{b.height} * b.width), 0u)
      << "batches " << in.batches << " is not a multiple of the block area";
  return b;
}

}  // namespace

Status validate(const IOperationValidationContext* context) {
  NN_TRY(validateBlockRearrangement(context, {OperandType::TENSOR_INT32}));
  return validateInputRank(context, kBlockShape, 1, 1);
}

Status prepare(IOperationExecutionContext* context) {
  const Shape input = context->getInputShape(kInput);
  NN_RET_CHECK_EQ(getNumberOfDimensions(input), 4u) << "input must be 4-D";
  const bool nchw = getOptionalBool(context, kLayout, false);
  const ImageGeometry in = imageGeometry(input.dimensions, nchw);
  auto block = readBlock(context, in);
  if (!block.ok()) return block.error();
  const uint64_t height = uint64_t{in.height} * block->height, width = uint64_t{in.width} * block->width;
  NN_RET_CHECK(height <= UINT32_MAX && width <= UINT32_MAX) << "output too large";
  Shape output = context->getOutputShape(kOutput);
  output.dimensions = imageDimensions(in.batches / (block->height * block->width), static_cast<uint32_t>(height),
                                      static_cast<uint32_t>(width), in.channels, nchw);
  return context->setOutputShape(kOutput, output);
}

Status execute(IOperationExecutionContext* context) {
  const Shape input = context->getInputShape(kInput);
  const bool nchw = getOptionalBool(context, kLayout, false);
  const ImageGeometry in = imageGeometry(input.dimensions, nchw);
  const ImageGeometry out = imageGeometry(context->getOutputShape(kOutput).dimensions, nchw);
  auto block = readBlock(context, in);
  if (!block.ok()) return block.error();
  // Block (dy, dx) is the input's batches [(dy * bw + dx) * outBatches, ... + outBatches).
  copySpaceBlocks(context->getInputBuffer(kInput), context->getOutputBuffer(kOutput), out, in, block->height,
                  block->width, int64_t{out.batches} * in.batchStride, /*toFine=*/true, sizeOfElement(input.type));
  return {};
}

}  // namespace weft::nn::batch_to_space_nd

NN_REGISTER_OPERATION(BATCH_TO_SPACE_ND, "BATCH_TO_SPACE_ND", batch_to_space_nd::validate,
                      batch_to_space_nd::prepare, batch_to_space_nd::execute)
