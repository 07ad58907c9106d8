// DEPTH_TO_SPACE: moves blocks of depth into block_size x block_size spatial blocks:
//   output[b, y * bs + dy, x * bs + dx, c] = input[b, y, x, (dy * bs + dx) * outDepth + c]
// Input depth must be a multiple of bs * bs. Optional NCHW layout flag. Types: float32, float16,
// quant8 asymm and asymm signed (quantization unchanged).
#include "ElementCopy.h"
#include "TensorOpUtils.h"

namespace weft::nn::depth_to_space {

constexpr uint32_t kInput = 0;
constexpr uint32_t kBlockSize = 1;
constexpr uint32_t kLayout = 2;
constexpr uint32_t kOutput = 0;

namespace {

Result<uint32_t> readBlockSize(const IOperationExecutionContext* context, const ImageGeometry& in) {
  const int32_t bs = context->getInputValue<int32_t>(kBlockSize);
  NN_RET_CHECK_GE(bs, 1) << "block size " << bs;
  const uint64_t blockArea = static_cast<uint64_t>(bs) * static_cast<uint64_t>(bs);
  NN_RET_CHECK_EQ(in.channels % blockArea, 0u)
      << "depth " << in.channels << " is not a multiple of block size squared " << blockArea;
  return static_cast<uint32_t>(bs);
}

}  // namespace

Status validate(const IOperationValidationContext* context) {
  NN_TRY(validateBlockRearrangement(context, {OperandType::INT32}));
  int32_t bs = 0;
  if (constantInt32(context, kBlockSize, &bs)) {
    NN_RET_CHECK_GE(bs, 1) << "DEPTH_TO_SPACE: block size " << bs;
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
  const uint64_t height = uint64_t{in.height} * *bs, width = uint64_t{in.width} * *bs;
  NN_RET_CHECK(height <= UINT32_MAX && width <= UINT32_MAX) << "output too large";
  Shape output = context->getOutputShape(kOutput);
  output.dimensions = imageDimensions(in.batches, static_cast<uint32_t>(height), static_cast<uint32_t>(width),
                                      in.channels / (*bs * *bs), nchw);  // bs * bs divides channels
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
  // Block (dy, dx) is the input's channels [(dy * bs + dx) * outDepth, ... + outDepth).
  copySpaceBlocks(context->getInputBuffer(kInput), context->getOutputBuffer(kOutput), out, in, bs, bs,
                  int64_t{out.channels} * in.channelStride, /*toFine=*/true, sizeOfElement(input.type));
  return {};
}

}  // namespace weft::nn::depth_to_space

NN_REGISTER_OPERATION(DEPTH_TO_SPACE, "DEPTH_TO_SPACE", depth_to_space::validate, depth_to_space::prepare,
                      depth_to_space::execute)
