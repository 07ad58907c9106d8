#include "ExecutionContext.h"

#include "ValidationContext.h"
#include "weft/kernels/OperationUtils.h"

namespace weft::nn {

namespace {

// Merges an inferred shape into the declared one: unknown rank or 0 dimensions accept anything,
// known dimensions must agree.
Result<Dimensions> combineDimensions(const Dimensions& declared, const Dimensions& inferred) {
  if (declared.empty()) return inferred;
  NN_RET_CHECK_EQ(declared.size(), inferred.size())
      << "inferred shape " << toString(inferred) << " has a different rank than declared " << toString(declared);
  for (size_t i = 0; i < declared.size(); ++i) {
    NN_RET_CHECK(declared[i] == 0 || declared[i] == inferred[i])
        << "inferred shape " << toString(inferred) << " contradicts declared " << toString(declared);
  }
  return inferred;
}

}  // namespace

Status setRunTimeShape(RunTimeOperand& operand, const Shape& shape) {
  NN_RET_CHECK(shape.type == operand.type) << "inferred type " << toString(shape.type) << " differs from declared "
                                           << toString(operand.type);
  Dimensions dims;
  {
    auto combined = combineDimensions(operand.dimensions, shape.dimensions);
    if (!combined.ok()) return combined.error();
    dims = std::move(combined).value();
  }
  operand.dimensions = std::move(dims);
  const size_t bytes = operand.requiredBytes();
  operand.shapeSet = true;
  if (operand.fixedCapacity) {
    if (bytes > operand.length) {
      operand.insufficient = true;
      return NN_ERROR(OUTPUT_INSUFFICIENT_SIZE) << "output needs " << bytes << " bytes, buffer has "
                                                << operand.length;
    }
    return {};
  }
  if (operand.storage.size() < bytes) operand.storage.resize(bytes);
  operand.buffer = bytes > 0 ? operand.storage.data() : nullptr;
  operand.length = bytes;
  return {};
}

OperandType ExecutionContext::extensionOperandType(std::string_view extension, uint16_t code) const {
  return extensionOperandTypeOf(model_, extension, code);
}

Status ExecutionContext::setOutputShape(uint32_t index, const Shape& shape) {
  NN_RET_CHECK(index < getNumOutputs()) << "output index " << index << " out of range";
  return setRunTimeShape(output(index), shape);
}

}  // namespace weft::nn
