// POW: base ^ exponent element-wise over two broadcast tensors, for float32 and float16 (computed
// in float32 with std::pow, as NNAPI's reference does).
#include <cmath>

#include "ElementwiseShapes.h"
#include "weft/kernels/Broadcast.h"
#include "weft/kernels/Float16.h"
#include "weft/kernels/OperationUtils.h"

namespace weft::nn::pow_op {

constexpr uint32_t kBase = 0;
constexpr uint32_t kExponent = 1;
constexpr uint32_t kOutput = 0;

namespace {

template <typename T>
void run(IOperationExecutionContext* context) {
  const Shape base = context->getInputShape(kBase), exponent = context->getInputShape(kExponent);
  const T* b = context->getInputBuffer<T>(kBase);
  const T* e = context->getInputBuffer<T>(kExponent);
  T* out = context->getOutputBuffer<T>(kOutput);
  forEachBroadcast(base.dimensions, exponent.dimensions, context->getOutputShape(kOutput).dimensions,
                   [&](size_t ib, size_t ie, size_t io) {
                     out[io] = static_cast<T>(std::pow(static_cast<float>(b[ib]), static_cast<float>(e[ie])));
                   });
}

}  // namespace

Status validate(const IOperationValidationContext* context) {
  NN_TRY(validateInputCount(context, 2, 2));
  NN_TRY(validateOutputCount(context, 1));
  const OperandType type = context->getInputType(kBase);
  NN_TRY(validateTypeIsOneOf(context, "input", type, {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16}));
  NN_TRY(validateInputTypes(context, {type, type}));
  NN_TRY(validateOutputTypes(context, {type}));
  return elementwise::validateBroadcastShapes(context);
}

Status prepare(IOperationExecutionContext* context) {
  return elementwise::prepareBroadcast(context, kBase, kExponent, kOutput);
}

Status execute(IOperationExecutionContext* context) {
  switch (context->getInputType(kBase)) {
    case OperandType::TENSOR_FLOAT32:
      run<float>(context);
      return {};
    case OperandType::TENSOR_FLOAT16:
      run<Float16>(context);
      return {};
    default:
      return NN_ERROR(BAD_DATA) << "unsupported input type " << toString(context->getInputType(kBase));
  }
}

}  // namespace weft::nn::pow_op

NN_REGISTER_OPERATION(POW, "POW", pow_op::validate, pow_op::prepare, pow_op::execute)
