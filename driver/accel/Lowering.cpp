// The accelerator's one operation resolver: which family lowers which NNAPI operation.
#include "Lowering.h"

#include <algorithm>
#include <array>
#include <set>
#include <utility>

#include "MemoryPlan.h"
#include "ops/Families.h"
#include "ops/StridedCopy.h"
#include "weft/kernels/Extensions.h"

namespace weft::accel {
namespace {

using T = nn::OperationType;

// One line per operation the accelerator runs.
constexpr std::array<std::pair<T, LowerFn>, 38> kOperations{{
    {T::CONV_2D, lowerConv2d},
    {T::GROUPED_CONV_2D, lowerGroupedConv2d},
    {T::FULLY_CONNECTED, lowerFullyConnected},
    {T::BATCH_MATMUL, lowerBatchMatmul},
    {T::DEPTHWISE_CONV_2D, lowerDepthwiseConv2d},
    {T::AVERAGE_POOL_2D, lowerPool2d},
    {T::MAX_POOL_2D, lowerPool2d},
    {T::MEAN, lowerMean},
    {T::REDUCE_MAX, lowerReduceMax},
    {T::ADD, lowerBinaryArithmetic},
    {T::SUB, lowerBinaryArithmetic},
    {T::MUL, lowerBinaryArithmetic},
    {T::DIV, lowerBinaryArithmetic},
    {T::RELU, lowerActivation},
    {T::RELU1, lowerActivation},
    {T::RELU6, lowerActivation},
    {T::LOGISTIC, lowerActivation},
    {T::TANH, lowerActivation},
    {T::RSQRT, lowerActivation},
    {T::PRELU, lowerActivation},
    {T::MAXIMUM, lowerActivation},
    {T::MINIMUM, lowerActivation},
    {T::SOFTMAX, lowerSoftmax},
    {T::RESHAPE, lowerReshape},
    {T::CONCATENATION, lowerConcatenation},
    {T::PAD, lowerPad},
    {T::PAD_V2, lowerPad},
    {T::TRANSPOSE, lowerTranspose},
    {T::CHANNEL_SHUFFLE, lowerChannelShuffle},
    {T::SLICE, lowerSlice},
    {T::STRIDED_SLICE, lowerStridedSlice},
    {T::GATHER, lowerGather},
    {T::RESIZE_NEAREST_NEIGHBOR, lowerResizeNearest},
    {T::RESIZE_BILINEAR, lowerResizeBilinear},
    {T::TRANSPOSE_CONV_2D, lowerTransposeConv2d},
    {T::DEPTH_TO_SPACE, lowerDepthToSpace},
    {T::SPACE_TO_DEPTH, lowerSpaceToDepth},
    {T::MIRROR_PAD, lowerMirrorPad},
}};

// And one per operation of the org.weft.accel extension (weft/WeftExtension.h) it runs.
constexpr std::array<std::pair<uint16_t, LowerFn>, 4> kWeftOperations{{
    {nn::weft_extension::kMatmulInt32, lowerWeftMatmulInt32},
    {nn::weft_extension::kLayerNorm, lowerLayerNorm},
    {nn::weft_extension::kGelu, lowerActivation},
    {nn::weft_extension::kUnary, lowerActivation},
}};

template <typename Key, size_t N>
LowerFn find(const std::array<std::pair<Key, LowerFn>, N>& table, Key key) {
  for (const auto& [k, fn] : table) {
    if (k == key) return fn;
  }
  return nullptr;
}

LowerFn familyOf(const nn::Model& model, T type) {
  if (!nn::isExtension(type)) return find(kOperations, type);
  const std::optional<uint16_t> code = weftExtensionCode(model, type);
  return code ? find(kWeftOperations, *code) : nullptr;
}

}  // namespace

std::optional<uint16_t> weftExtensionCode(const nn::Model& model, nn::OperationType type) {
  return nn::extensionOperationCode(model.extensionNameToPrefix, type, std::string(nn::weft_extension::kName));
}

nn::Result<LoweredOperation> lowerOperation(const nn::Model& model, uint32_t index, bool withValues,
                                            bool gemmFilterValues) {
  if (index >= model.main.operations.size()) {
    return NN_ERROR(BAD_DATA) << "operation index " << index << " out of range";
  }
  const nn::OperationType type = model.main.operations[index].type;
  const LowerFn lower = familyOf(model, type);
  // The array's layers (a weight image the compiler may not build); the vector unit's always
  // take their filter.
  const bool gemm = lower == lowerConv2d || lower == lowerFullyConnected || lower == lowerWeftMatmulInt32 ||
                    lower == lowerBatchMatmul;
  OperationReader r(model, index, gemmFilterValues || !gemm);
  NN_TRY(r.checkIndexes());
  if (lower == nullptr) return NN_ERROR(BAD_DATA) << r.name() << " is not supported by the accelerator";
  return lower(r, index, withValues);
}

void lowerFullyConnectedInputs(LayoutPlan& plan, std::map<uint32_t, nn::Error>* rejected) {
  std::set<uint32_t> dropped;  // operations with a layer that has no image form
  for (LoweredLayer& lo : plan.layers) {
    const GemmLayer* fc = lo.gemm();
    if (fc == nullptr || fc->type != nn::OperationType::FULLY_CONNECTED) continue;
    const TensorLayout& input = plan.tensors.at(fc->inputOperand);
    if (!input.hasHalo() && input.layout != DataLayout::kNCHW) continue;  // dense bytes: read as they are
    auto image = fullyConnectedOverImage(lo, input.layout);
    if (!image.ok()) {
      if (rejected) rejected->emplace(lo.operationIndex(), image.error());
      dropped.insert(lo.operationIndex());
      continue;
    }
    lo.work = std::move(image).value();
  }
  // An operation goes whole, every layer of it.
  auto& layers = plan.layers;
  layers.erase(std::remove_if(layers.begin(), layers.end(),
                              [&](const LoweredLayer& lo) { return dropped.count(lo.operationIndex()) > 0; }),
               layers.end());
}

void lowerReshapeInputs(LayoutPlan& plan) {
  for (LoweredLayer& lo : plan.layers) {
    if (isStridedCopy(lo.type()) && lo.vector() != nullptr && !lo.vector()->inputs.empty() &&
        lo.vector()->outputs.size() == 1) {
      // A TRANSPOSE, CHANNEL_SHUFFLE, SLICE or GATHER beside NCHW convolutions (ConvNeXt's
      // permutes around its layer norms, ShuffleNet's channel split and shuffle) reads or writes
      // their NHWC images.
      // So does one beside a convolution that reads its output with a halo (YOLO's channel split
      // feeding a padded 3x3 convolution).
      const VectorLayer& copy = *lo.vector();
      const TensorLayout& in = plan.tensors.at(copy.inputs[0].operand);
      const TensorLayout& out = plan.tensors.at(copy.outputs[0].operand);
      const auto kept = [&](const TensorLayout& t) {
        return t.dims.size() == 4 && (t.hasHalo() || (t.layout == DataLayout::kNCHW && !inLogicalOrder(t)));
      };
      if (!kept(in) && !kept(out)) continue;
      const uint32_t bytes = copy.valueBytes();
      const auto stridesOf = [&](const TensorLayout& t) {  // of its logical axes, in bytes
        const uint64_t pixel = t.image.channels, row = t.rowStride(), image = t.imageStride();
        return t.layout == DataLayout::kNCHW ? std::vector<uint64_t>{image, bytes, row, pixel}
                                             : std::vector<uint64_t>{image, row, pixel, bytes};
      };
      const std::vector<uint64_t> inStrides = stridesOf(in), outStrides = stridesOf(out);
      auto moved = onKeptImages(copy, in.dims, kept(in) ? &inStrides : nullptr, out.dims,
                                kept(out) ? &outStrides : nullptr);
      if (moved != nullptr) lo.work = std::move(moved);
      continue;
    }
    const VectorLayer* reshape = lo.type() == nn::OperationType::RESHAPE ? lo.vector() : nullptr;
    if (reshape == nullptr || reshape->inputs.size() != 1 || reshape->outputs.size() != 1) continue;
    const TensorLayout& input = plan.tensors.at(reshape->inputs[0].operand);
    const TensorLayout& output = plan.tensors.at(reshape->outputs[0].operand);
    if (input.hasHalo() != output.hasHalo()) {
      // Dense bytes into an image with a halo (a 1-D convolution's input seen as [N, C, 1, W],
      // padded), or out of one (checkDense: the other side plain): the values in the same order,
      // a copy of the image's logical dimensions with its strides on one side.
      const TensorLayout& image = input.hasHalo() ? input : output;
      const uint32_t bytes = reshape->valueBytes();
      const uint64_t pixel = image.image.channels, row = image.rowStride(), whole = image.imageStride();
      const std::vector<uint64_t> strides = image.layout == DataLayout::kNCHW
                                                ? std::vector<uint64_t>{whole, bytes, row, pixel}
                                                : std::vector<uint64_t>{whole, row, pixel, bytes};
      auto copy = stridedCopyLayer({permutedBox(image.dims, {0, 1, 2, 3}, bytes)}, bytes,
                                   input.hasHalo() ? "reshape of an image with a halo" : "reshape into an image with a halo");
      copy->operationIndex = reshape->operationIndex;
      copy->type = reshape->type;
      copy->valueType = reshape->valueType;
      copy->inputs = reshape->inputs;
      copy->outputs = reshape->outputs;
      auto moved = onKeptImages(*copy, image.dims, input.hasHalo() ? &strides : nullptr, image.dims,
                                output.hasHalo() ? &strides : nullptr);
      if (moved != nullptr) lo.work = std::move(moved);
      continue;
    }
    const bool inNchw = input.layout == DataLayout::kNCHW && !inLogicalOrder(input);
    const bool outNchw = output.layout == DataLayout::kNCHW && !inLogicalOrder(output);
    if (inNchw == outNchw) continue;  // dense to dense; NCHW to NCHW is refused (checkDense)
    const uint32_t valueBytes = reshape->valueBytes();
    CopyBox box;
    if (inNchw) {  // the device holds [N, H, W, C] (bytes: values of valueBytes); the reshape reads [N, C, H, W]
      const ImageShape& image = input.image;
      box = permutedBox({image.batches, image.height, image.width, image.channels / valueBytes}, {0, 3, 1, 2},
                        valueBytes);
    } else {  // it writes [N, C, H, W] (its input's dense order) into the [N, H, W, C] the device holds
      const ImageShape& image = output.image;
      box = permutedBox({image.batches, image.channels / valueBytes, image.height, image.width}, {0, 2, 3, 1},
                        valueBytes);
    }
    auto copy = stridedCopyLayer({std::move(box)}, valueBytes,
                                 inNchw ? "reshape of an NCHW image" : "reshape into an NCHW image");
    copy->operationIndex = reshape->operationIndex;
    copy->type = reshape->type;
    copy->valueType = reshape->valueType;
    copy->inputs = reshape->inputs;
    copy->outputs = reshape->outputs;
    lo.work = std::move(copy);
  }
}

}  // namespace weft::accel
