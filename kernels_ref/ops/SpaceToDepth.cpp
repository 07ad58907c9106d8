// SPACE_TO_DEPTH: moves block_size x block_size spatial blocks into depth (the inverse of
// DEPTH_TO_SPACE):
//   output[b, y, x, (dy * bs + dx) * inDepth + c] = input[b, y * bs + dy, x * bs + dx, c]
// Input height and width must be multiples of bs. Optional NCHW layout flag. Types: float32,
// float16, quant8 asymm and asymm signed (quantization unchanged).
#include "ElementCopy.h"
#include "TensorOpUtils.h"

namespace weft::nn::space_to_depth {

constexpr uint32_t kInput = 0;
constexpr uint32_t kBlockSize = 1;
constexpr uint32_t kLayout = 2;
constexpr uint32_t kOutput = 0;

namespace {

Result<uint32_t> readBlockSize(const IOperationExecutionContext* context, const ImageGeometry& in) {
  const int32_t bs = context->getInputValue<int32_t>(kBlockSize);
  NN_RET_CHECK_GE(bs, 1) << "block size " << bs;
  const auto block = static_cast<uint32_t>(bs);
  NN_RET_CHECK(in.height % block == 0 && in.width % block == 0)
      << "height " << in.height << " and width " << in.width << " must be multiples of block size " << bs;
  return block;
}

}  // namespace

Status validate(const IOperationValidationContext* context) {
  NN_TRY(validateBlockRearrangement(context, {OperandType::INT32}));
  int32_t bs = 0;
  if (constantInt32(context, kBlockSize, &bs)) {
    NN_RET_CHECK_GE(bs, 1) << "SPACE_TO_DEPTH: block size " << bs;
  }
  return {};
}

Status prepare(IOperationExecutionContext* context) {
  const Shape input = context->getInputShape(kInput);
  NN_RET_CHECK_EQ(getNumberOfDimensions(input), 4u) << "input must be 4-D";
  const bool nchw = getOptionalBool(context, kLayout, false);
  const ImageGeometry in = imageGeometry(input.dimensions, nchw);
  auto bs = readBlockSize(context, in);
  if (!bs.ok()) return bs.error();
  const uint64_t depth = uint64_t{in.channels} * *bs * *bs;
  NN_RET_CHECK_LE(depth, uint64_t{UINT32_MAX}) << "output depth overflows";
  Shape output = context->getOutputShape(kOutput);
  output.dimensions = imageDimensions(in.batches, in.height / *bs, in.width / *bs, static_cast<uint32_t>(depth), nchw);
  return context->setOutputShape(kOutput, output);
}

Status execute(IOperationExecutionContext* context) {
  const Shape input = context->getInputShape(kInput);
  const bool nchw = getOptionalBool(context, kLayout, false);
  const ImageGeometry in = imageGeometry(input.dimensions, nchw);
  const ImageGeometry out = imageGeometry(context->getOutputShape(kOutput).dimensions, nchw);
  auto bsResult = readBlockSize(context, in);
  if (!bsResult.ok()) return bsResult.error();
  const uint32_t bs = *bsResult;
  // Block (dy, dx) becomes the output's channels [(dy * bs + dx) * inDepth, ... + inDepth).
  copySpaceBlocks(context->getInputBuffer(kInput), context->getOutputBuffer(kOutput), in, out, bs, bs,
                  int64_t{in.channels} * out.channelStride, /*toFine=*/false, sizeOfElement(input.type));
  return {};
}

}  // namespace weft::nn::space_to_depth

NN_REGISTER_OPERATION(SPACE_TO_DEPTH, "SPACE_TO_DEPTH", space_to_depth::validate, space_to_depth::prepare,
                      space_to_depth::execute)
