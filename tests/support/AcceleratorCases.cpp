#include "AcceleratorCases.h"

#include <algorithm>
#include <vector>

#include "weft/kernels/ResizeSampling.h"

namespace weft::test {
namespace {

// TRANSPOSE, SLICE, GATHER and RESIZE_NEAREST_NEIGHBOR run as strided copies whose strides the
// compiler fixes: their permutation, box, indices and output size (and a resize's flags) must be
// constants (a permutation may be omitted); so must RESIZE_BILINEAR's, DEPTH_TO_SPACE's and
// SPACE_TO_DEPTH's block, and TRANSPOSE_CONV_2D's filter, bias and parameters (a convolution a
// phase of its output, each with its own taps).
bool copyParametersConstant(const TestModel& model, const TestOperation& op) {
  using T = nn::OperationType;
  auto fixed = [&](uint32_t o) {
    const auto life = model.main.operands[o].lifetime;
    return life == nn::Operand::LifeTime::CONSTANT_COPY || life == nn::Operand::LifeTime::CONSTANT_REFERENCE ||
           life == nn::Operand::LifeTime::NO_VALUE;
  };
  switch (op.type) {
    case T::TRANSPOSE:
      return op.inputs.size() < 2 || fixed(op.inputs[1]);
    case T::SLICE:
      return fixed(op.inputs.at(1)) && fixed(op.inputs.at(2));
    case T::GATHER:
      return fixed(op.inputs.at(2));
    case T::RESIZE_NEAREST_NEIGHBOR:
    case T::RESIZE_BILINEAR:
    case T::TRANSPOSE_CONV_2D:  // each phase takes its own taps of the filter at compilation
    case T::DEPTH_TO_SPACE:
    case T::SPACE_TO_DEPTH:
    case T::MIRROR_PAD:
    case T::REDUCE_MAX:
      return std::all_of(op.inputs.begin() + 1, op.inputs.end(), fixed);
    default:
      return true;
  }
}

// RESIZE_BILINEAR runs on the accelerator where its weights are whole sixteenths along both axes
// (weft/kernels/ResizeSampling.h: there the reference's float arithmetic is exact), and from a
// single pixel.
bool bilinearInSixteenths(const TestModel& model, const TestOperation& op) {
  const auto& operands = model.main.operands;
  const auto flag = [&](size_t i) {
    return op.inputs.size() > i && !operands[op.inputs[i]].data.empty() && operands[op.inputs[i]].data.at<uint8_t>(0) != 0;
  };
  const nn::Dimensions& in = operands[op.inputs[0]].dimensions;
  const nn::Dimensions& out = operands[op.outputs[0]].dimensions;
  if (in.size() != 4 || out.size() != 4) return false;
  const size_t h = flag(3) ? 2 : 1, w = h + 1;
  const bool align = flag(4), half = flag(5);
  if (in[h] == 1 && in[w] == 1) return true;  // one pixel: a lookup table broadcast
  return nn::resize_image::bilinearSixteenths(in[h], out[h], align, half) &&
         nn::resize_image::bilinearSixteenths(in[w], out[w], align, half);
}

}  // namespace

bool isAcceleratorCase(const TestModel& model) {
  using T = nn::OperationType;
  static const std::vector<T> kAccelerated = {
      T::CONV_2D, T::FULLY_CONNECTED, T::DEPTHWISE_CONV_2D, T::AVERAGE_POOL_2D, T::MAX_POOL_2D, T::MEAN, T::ADD,
      T::SUB,     T::MUL,             T::RELU,              T::RELU1,           T::RELU6,       T::LOGISTIC, T::TANH,
      T::SOFTMAX, T::PAD,             T::PAD_V2,            T::CONCATENATION,   T::RESHAPE,     T::BATCH_MATMUL,
      T::TRANSPOSE, T::SLICE,         T::GATHER,            T::RESIZE_NEAREST_NEIGHBOR, T::RSQRT,
      T::RESIZE_BILINEAR, T::TRANSPOSE_CONV_2D, T::DEPTH_TO_SPACE, T::SPACE_TO_DEPTH, T::PRELU, T::MIRROR_PAD, T::REDUCE_MAX};
  if (model.main.operations.empty() || !model.referenced.empty() || model.expectFailure) return false;
  for (T type : model.operationTypes()) {
    if (std::find(kAccelerated.begin(), kAccelerated.end(), type) == kAccelerated.end()) return false;
  }
  auto quant8 = [&](uint32_t operand) {
    const nn::OperandType t = model.main.operands[operand].type;
    return t == nn::OperandType::TENSOR_QUANT8_ASYMM || t == nn::OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
  };
  for (const TestOperation& op : model.main.operations) {
    if (op.inputs.empty() || !quant8(op.inputs[0])) return false;
    for (uint32_t o : op.outputs) {
      if (!quant8(o)) return false;
    }
    if (!copyParametersConstant(model, op)) return false;
    if (op.type == T::RESIZE_BILINEAR && !bilinearInSixteenths(model, op)) return false;
    if (op.type == T::PRELU) {  // one constant slope: a lookup table (the corpus's slopes are by channel)
      const auto& alpha = model.main.operands[op.inputs.at(1)];
      const bool constant = alpha.lifetime == nn::Operand::LifeTime::CONSTANT_COPY ||
                            alpha.lifetime == nn::Operand::LifeTime::CONSTANT_REFERENCE;
      if (!constant || nn::numberOfElements(alpha.dimensions) != 1) return false;
    }
  }
  return true;
}

bool isAcceleratorFp16Case(const TestModel& model) {
  using T = nn::OperationType;
  if (model.main.operations.empty() || !model.referenced.empty() || model.expectFailure) return false;
  const auto& operands = model.main.operands;
  // TENSOR_FLOAT16, or TENSOR_FLOAT32 computed in float16 (a relaxed model).
  auto isHalf = [&](uint32_t o) {
    const nn::OperandType t = operands[o].type;
    return t == nn::OperandType::TENSOR_FLOAT16 || (t == nn::OperandType::TENSOR_FLOAT32 && model.isRelaxed);
  };
  auto constant = [&](uint32_t o) {
    const auto life = operands[o].lifetime;
    return life == nn::Operand::LifeTime::CONSTANT_COPY || life == nn::Operand::LifeTime::CONSTANT_REFERENCE;
  };
  for (const TestOperation& op : model.main.operations) {
    if (op.inputs.empty() || !isHalf(op.inputs[0])) return false;
    for (uint32_t o : op.outputs) {
      if (!isHalf(o)) return false;
    }
    switch (op.type) {
      case T::MEAN:
        break;
      case T::PAD_V2:
        if (!constant(op.inputs.at(2))) return false;  // the border's value
        [[fallthrough]];
      case T::PAD:
      case T::RESHAPE:
        break;
      case T::CONV_2D:  // filter and bias constant or given at execution (repacked on the device)
      case T::FULLY_CONNECTED:
      case T::DEPTHWISE_CONV_2D:
      case T::CONCATENATION:
      case T::ADD:
      case T::SUB:
      case T::MUL:
      case T::AVERAGE_POOL_2D:
      case T::MAX_POOL_2D:
      case T::RELU:
      case T::RELU1:
      case T::RELU6:
      case T::LOGISTIC:
      case T::TANH:
      case T::BATCH_MATMUL:
      case T::SOFTMAX:
        break;
      case T::TRANSPOSE:
      case T::SLICE:
      case T::GATHER:
      case T::RESIZE_NEAREST_NEIGHBOR:
      case T::DEPTH_TO_SPACE:
      case T::SPACE_TO_DEPTH:
      case T::MIRROR_PAD:
      case T::REDUCE_MAX:
        if (!copyParametersConstant(model, op)) return false;
        break;
      default:
        return false;
    }
  }
  return true;
}

}  // namespace weft::test
