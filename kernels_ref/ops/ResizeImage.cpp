#include "ResizeImage.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "TensorOpUtils.h"
#include "weft/kernels/Float16.h"
#include "weft/kernels/Layout.h"
#include "weft/kernels/ResizeSampling.h"

namespace weft::nn::resize_image {

float resizeScale(uint32_t inSize, uint32_t outSize, bool alignCorners) {
  return alignCorners && outSize > 1 ? static_cast<float>(inSize - 1) / static_cast<float>(outSize - 1)
                                     : static_cast<float>(inSize) / static_cast<float>(outSize);
}

uint32_t nearestSource(uint32_t i, float scale, uint32_t inSize, bool alignCorners, bool halfPixelCenters) {
  const float position = halfPixelCenters ? (static_cast<float>(i) + 0.5f) * scale : static_cast<float>(i) * scale;
  int32_t index = static_cast<int32_t>(alignCorners ? std::round(position) : std::floor(position));
  index = std::min(index, static_cast<int32_t>(inSize) - 1);
  return static_cast<uint32_t>(std::max(index, 0));
}

BilinearSample bilinearSample(uint32_t i, float scale, uint32_t inSize, bool halfPixelCenters) {
  const float position =
      halfPixelCenters ? (static_cast<float>(i) + 0.5f) * scale - 0.5f : static_cast<float>(i) * scale;
  const int32_t lower = std::max(static_cast<int32_t>(std::floor(position)), 0);
  const int32_t upper = std::min(static_cast<int32_t>(std::ceil(position)), static_cast<int32_t>(inSize) - 1);
  return BilinearSample{position, lower, upper, position - static_cast<float>(lower)};
}

std::optional<std::vector<int32_t>> bilinearSixteenths(uint32_t inSize, uint32_t outSize, bool alignCorners,
                                                       bool halfPixelCenters) {
  if (inSize == 0 || outSize == 0) return std::nullopt;
  const float scale = resizeScale(inSize, outSize, alignCorners);
  std::vector<int32_t> positions(outSize);
  for (uint32_t i = 0; i < outSize; ++i) {
    // Whole sixteenths of the position are whole sixteenths of the fraction from either index.
    const float sixteenths = bilinearSample(i, scale, inSize, halfPixelCenters).position * 16;  // exact
    if (sixteenths != std::floor(sixteenths) || std::fabs(sixteenths) > float{1 << 24}) return std::nullopt;
    positions[i] = static_cast<int32_t>(sixteenths);
  }
  return positions;
}

namespace {

constexpr uint32_t kInput = 0;
constexpr uint32_t kOutputWidth = 1;  // or the width scale
constexpr uint32_t kOutputHeight = 2;  // or the height scale
constexpr uint32_t kLayout = 3;
constexpr uint32_t kAlignCorners = 4;
constexpr uint32_t kHalfPixelCenters = 5;
constexpr uint32_t kOutput = 0;

struct Flags {
  bool nchw = false;
  bool alignCorners = false;
  bool halfPixelCenters = false;
};

Result<Flags> readFlags(const IOperationExecutionContext* context) {
  Flags f{getOptionalBool(context, kLayout, false), getOptionalBool(context, kAlignCorners, false),
          getOptionalBool(context, kHalfPixelCenters, false)};
  NN_RET_CHECK(!(f.alignCorners && f.halfPixelCenters)) << "align_corners and half_pixel_centers exclude each other";
  return f;
}

// TFLite reference ResizeBilinear on NHWC data; integer types round the interpolation to nearest.
template <typename T>
void resizeBilinear(const T* in, const Dimensions& inDims, T* out, const Dimensions& outDims, const Flags& f) {
  const uint32_t batches = inDims[0], inHeight = inDims[1], inWidth = inDims[2], depth = inDims[3];
  const uint32_t outHeight = outDims[1], outWidth = outDims[2];
  const float heightScale = resizeScale(inHeight, outHeight, f.alignCorners);
  const float widthScale = resizeScale(inWidth, outWidth, f.alignCorners);
  const float roundingOffset = std::numeric_limits<T>::is_integer ? 0.5f : 0.0f;
  auto sample = [&](uint32_t i, float scale, uint32_t inSize) {
    return bilinearSample(i, scale, inSize, f.halfPixelCenters);
  };
  auto at = [&](uint32_t b, int32_t y, int32_t x) {
    return in + ((size_t{b} * inHeight + static_cast<size_t>(y)) * inWidth + static_cast<size_t>(x)) * depth;
  };
  for (uint32_t b = 0; b < batches; ++b) {
    for (uint32_t oy = 0; oy < outHeight; ++oy) {
      const BilinearSample y = sample(oy, heightScale, inHeight);
      const float dy = y.fraction;
      for (uint32_t ox = 0; ox < outWidth; ++ox) {
        const BilinearSample x = sample(ox, widthScale, inWidth);
        const float dx = x.fraction;
        const T* p00 = at(b, y.lower, x.lower);
        const T* p10 = at(b, y.upper, x.lower);
        const T* p01 = at(b, y.lower, x.upper);
        const T* p11 = at(b, y.upper, x.upper);
        T* o = out + ((size_t{b} * outHeight + oy) * outWidth + ox) * depth;
        for (uint32_t c = 0; c < depth; ++c) {
          // TFLite's expression and evaluation order, so float results match to the bit.
          o[c] = static_cast<T>(static_cast<float>(p00[c]) * (1 - dy) * (1 - dx) +
                                static_cast<float>(p10[c]) * dy * (1 - dx) +
                                static_cast<float>(p01[c]) * (1 - dy) * dx + static_cast<float>(p11[c]) * dy * dx +
                                roundingOffset);
        }
      }
    }
  }
}

// NNAPI's nearest-neighbor resize on NHWC data: the source index is the scaled output index,
// rounded with align_corners and floored otherwise.
template <typename T>
void resizeNearest(const T* in, const Dimensions& inDims, T* out, const Dimensions& outDims, const Flags& f) {
  const uint32_t batches = inDims[0], inHeight = inDims[1], inWidth = inDims[2], depth = inDims[3];
  const uint32_t outHeight = outDims[1], outWidth = outDims[2];
  const float heightScale = resizeScale(inHeight, outHeight, f.alignCorners);
  const float widthScale = resizeScale(inWidth, outWidth, f.alignCorners);
  auto source = [&](uint32_t i, float scale, uint32_t inSize) {
    return size_t{nearestSource(i, scale, inSize, f.alignCorners, f.halfPixelCenters)};
  };
  for (uint32_t b = 0; b < batches; ++b) {
    for (uint32_t oy = 0; oy < outHeight; ++oy) {
      const size_t iy = source(oy, heightScale, inHeight);
      for (uint32_t ox = 0; ox < outWidth; ++ox) {
        const size_t ix = source(ox, widthScale, inWidth);
        std::copy_n(in + ((size_t{b} * inHeight + iy) * inWidth + ix) * depth, depth,
                    out + ((size_t{b} * outHeight + oy) * outWidth + ox) * depth);
      }
    }
  }
}

template <typename T>
void resizeNhwc(Kind kind, const T* in, const Dimensions& inDims, T* out, const Dimensions& outDims, const Flags& f) {
  if (kind == Kind::BILINEAR) {
    resizeBilinear(in, inDims, out, outDims, f);
  } else {
    resizeNearest(in, inDims, out, outDims, f);
  }
}

template <typename T>
void resize(Kind kind, const T* in, const Shape& input, T* out, const Shape& output, const Flags& f) {
  NhwcInput<T> nhwcIn(in, input, f.nchw);
  NhwcOutput<T> nhwcOut(out, output, f.nchw);
  resizeNhwc(kind, nhwcIn.data(), nhwcIn.shape().dimensions, nhwcOut.data(), nhwcOut.shape().dimensions, f);
  nhwcOut.commit();
}

}  // namespace

Status validate(const IOperationValidationContext* context, Kind kind) {
  // RESIZE_NEAREST_NEIGHBOR always has the layout flag; RESIZE_BILINEAR may leave it out.
  NN_TRY(validateInputCount(context, kind == Kind::BILINEAR ? 3 : 4, 6));
  NN_TRY(validateOutputCount(context, 1));
  const OperandType type = context->getInputType(kInput);
  NN_TRY(validateTypeIsOneOf(context, "input", type,
                             {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16,
                              OperandType::TENSOR_QUANT8_ASYMM, OperandType::TENSOR_QUANT8_ASYMM_SIGNED}));
  const OperandType sizeType = context->getInputType(kOutputHeight);
  const OperandType floatScale = type == OperandType::TENSOR_FLOAT16 ? OperandType::FLOAT16 : OperandType::FLOAT32;
  NN_RET_CHECK(sizeType == OperandType::INT32 || sizeType == floatScale)
      << context->getOperationName() << ": output size must be INT32 or " << toString(floatScale) << ", got "
      << toString(sizeType);
  switch (context->getNumInputs()) {
    case 3: NN_TRY(validateInputTypes(context, {type, sizeType, sizeType})); break;
    case 4: NN_TRY(validateInputTypes(context, {type, sizeType, sizeType, OperandType::BOOL})); break;
    case 5:
      NN_TRY(validateInputTypes(context, {type, sizeType, sizeType, OperandType::BOOL, OperandType::BOOL}));
      break;
    default:
      NN_TRY(validateInputTypes(context, {type, sizeType, sizeType, OperandType::BOOL, OperandType::BOOL,
                                          OperandType::BOOL}));
  }
  NN_TRY(validateOutputTypes(context, {type}));
  NN_TRY(validateInputRank(context, kInput, 4, 4));
  if (sizeType == OperandType::INT32) {
    for (uint32_t i : {kOutputWidth, kOutputHeight}) {
      int32_t size = 0;
      if (constantInt32(context, i, &size)) {
        NN_RET_CHECK_GT(size, 0) << context->getOperationName() << ": output size must be positive";
      }
    }
  }
  uint8_t alignCorners = 0, halfPixelCenters = 0;
  if (context->getNumInputs() == 6 && getConstantScalar(context, kAlignCorners, &alignCorners) &&
      getConstantScalar(context, kHalfPixelCenters, &halfPixelCenters)) {
    NN_RET_CHECK(!(alignCorners && halfPixelCenters))
        << context->getOperationName() << ": align_corners and half_pixel_centers exclude each other";
  }
  return validateSameQuantization(context, kInput, kOutput);
}

Status prepare(IOperationExecutionContext* context) {
  const Shape input = context->getInputShape(kInput);
  NN_RET_CHECK_EQ(getNumberOfDimensions(input), 4u) << "input must be 4-D";
  auto flags = readFlags(context);
  if (!flags.ok()) return flags.error();
  const ImageGeometry in = imageGeometry(input.dimensions, flags->nchw);
  // Only the batch dimension may be empty.
  NN_RET_CHECK(in.height > 0 && in.width > 0 && in.channels > 0) << "empty image " << toString(input.dimensions);
  int64_t height = 0, width = 0;
  if (context->getInputType(kOutputHeight) == OperandType::INT32) {
    height = context->getInputValue<int32_t>(kOutputHeight);
    width = context->getInputValue<int32_t>(kOutputWidth);
  } else {
    const float heightScale = getFloatScalar(context, kOutputHeight);
    const float widthScale = getFloatScalar(context, kOutputWidth);
    NN_RET_CHECK(std::isfinite(heightScale) && std::isfinite(widthScale)) << "scales must be finite";
    const float h = std::floor(static_cast<float>(in.height) * heightScale);
    const float w = std::floor(static_cast<float>(in.width) * widthScale);
    NN_RET_CHECK(h < static_cast<float>(INT32_MAX) && w < static_cast<float>(INT32_MAX)) << "output too large";
    height = static_cast<int64_t>(h);
    width = static_cast<int64_t>(w);
  }
  NN_RET_CHECK(height > 0 && width > 0) << "output size " << width << "x" << height << " must be positive";
  Shape output = context->getOutputShape(kOutput);
  output.dimensions = imageDimensions(in.batches, static_cast<uint32_t>(height), static_cast<uint32_t>(width),
                                      in.channels, flags->nchw);
  return context->setOutputShape(kOutput, output);
}

Status execute(IOperationExecutionContext* context, Kind kind) {
  auto flags = readFlags(context);
  if (!flags.ok()) return flags.error();
  const Shape input = context->getInputShape(kInput);
  const Shape output = context->getOutputShape(kOutput);
  switch (input.type) {
    case OperandType::TENSOR_FLOAT32:
      resize(kind, context->getInputBuffer<float>(kInput), input, context->getOutputBuffer<float>(kOutput), output,
             *flags);
      return {};
    case OperandType::TENSOR_FLOAT16: {
      // Computed in float32 and rounded once, as NNAPI's reference does.
      const std::vector<float> in = toFloat32(context->getInputBuffer<Float16>(kInput), getNumberOfElements(input));
      std::vector<float> out(getNumberOfElements(output));
      resize(kind, in.data(), input, out.data(), output, *flags);
      fromFloat32(out.data(), out.size(), context->getOutputBuffer<Float16>(kOutput));
      return {};
    }
    case OperandType::TENSOR_QUANT8_ASYMM:
      resize(kind, context->getInputBuffer<uint8_t>(kInput), input, context->getOutputBuffer<uint8_t>(kOutput),
             output, *flags);
      return {};
    case OperandType::TENSOR_QUANT8_ASYMM_SIGNED:
      resize(kind, context->getInputBuffer<int8_t>(kInput), input, context->getOutputBuffer<int8_t>(kOutput), output,
             *flags);
      return {};
    default:
      return NN_ERROR(BAD_DATA) << "unsupported type " << toString(input.type);
  }
}

}  // namespace weft::nn::resize_image
