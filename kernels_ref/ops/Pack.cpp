// PACK: stacks N tensors of one shape along a new dimension `axis` (INT32 in [0, rank]):
//   output[outer, n, inner] = input_n[outer, inner].
// Types: float32, float16, int32, quant8 asymm and asymm signed; every input keeps the output's
// quantization.
#include <cstring>

#include "TensorOpUtils.h"

namespace weft::nn::pack {

constexpr uint32_t kAxis = 0;
constexpr uint32_t kFirstTensor = 1;
constexpr uint32_t kOutput = 0;

namespace {

// The common input shape, after checking every input has it.
Result<Dimensions> commonInputDimensions(const IOperationExecutionContext* context) {
  const Dimensions dims = context->getInputShape(kFirstTensor).dimensions;
  for (uint32_t i = kFirstTensor + 1; i < context->getNumInputs(); ++i) {
    NN_RET_CHECK(context->getInputShape(i).dimensions == dims)
        << "input " << i << " has shape " << toString(context->getInputShape(i).dimensions) << ", input 1 "
        << toString(dims);
  }
  return dims;
}

Result<uint32_t> readAxis(const IOperationExecutionContext* context, uint32_t rank) {
  const int32_t axis = context->getInputValue<int32_t>(kAxis);
  NN_RET_CHECK(axis >= 0 && static_cast<uint32_t>(axis) <= rank) << "axis " << axis << " outside [0, " << rank << "]";
  return static_cast<uint32_t>(axis);
}

}  // namespace

Status validate(const IOperationValidationContext* context) {
  NN_RET_CHECK_GE(context->getNumInputs(), 2u) << "PACK needs an axis and at least one tensor";
  NN_TRY(validateOutputCount(context, 1));
  NN_RET_CHECK(context->getInputType(kAxis) == OperandType::INT32) << "PACK: axis must be INT32";
  const OperandType type = context->getInputType(kFirstTensor);
  NN_TRY(validateTypeIsOneOf(context, "input", type,
                             {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16, OperandType::TENSOR_INT32,
                              OperandType::TENSOR_QUANT8_ASYMM, OperandType::TENSOR_QUANT8_ASYMM_SIGNED}));
  NN_TRY(validateOutputTypes(context, {type}));
  for (uint32_t i = kFirstTensor; i < context->getNumInputs(); ++i) {
    NN_RET_CHECK(context->getInputType(i) == type) << "PACK: input " << i << " has another type";
    NN_TRY(validateSameQuantization(context, i, kOutput));
  }
  uint32_t rank = 0;
  int32_t axis = 0;
  if (knownRank(context->getInputShape(kFirstTensor), &rank) && constantInt32(context, kAxis, &axis)) {
    NN_RET_CHECK(axis >= 0 && static_cast<uint32_t>(axis) <= rank) << "PACK: axis " << axis << " out of range";
  }
  return {};
}

Status prepare(IOperationExecutionContext* context) {
  auto dims = commonInputDimensions(context);
  if (!dims.ok()) return dims.error();
  auto axis = readAxis(context, static_cast<uint32_t>(dims->size()));
  if (!axis.ok()) return axis.error();
  Shape output = context->getOutputShape(kOutput);
  output.dimensions = *dims;
  output.dimensions.insert(output.dimensions.begin() + *axis, context->getNumInputs() - kFirstTensor);
  return context->setOutputShape(kOutput, output);
}

Status execute(IOperationExecutionContext* context) {
  auto dims = commonInputDimensions(context);
  if (!dims.ok()) return dims.error();
  auto axis = readAxis(context, static_cast<uint32_t>(dims->size()));
  if (!axis.ok()) return axis.error();
  // Seen as [outer, inner] around the new axis, each input contributes one block per outer index.
  size_t outer = 1, inner = 1;
  for (size_t d = 0; d < dims->size(); ++d) (d < *axis ? outer : inner) *= (*dims)[d];
  const size_t blockBytes = inner * sizeOfElement(context->getInputType(kFirstTensor));
  if (blockBytes == 0) return {};
  auto* out = static_cast<uint8_t*>(context->getOutputBuffer(kOutput));
  for (size_t o = 0; o < outer; ++o) {
    for (uint32_t i = kFirstTensor; i < context->getNumInputs(); ++i, out += blockBytes) {
      std::memcpy(out, context->getInputBuffer<uint8_t>(i) + o * blockBytes, blockBytes);
    }
  }
  return {};
}

}  // namespace weft::nn::pack

NN_REGISTER_OPERATION(PACK, "PACK", pack::validate, pack::prepare, pack::execute)
