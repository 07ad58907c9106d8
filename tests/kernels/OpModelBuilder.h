// Builds small nn::Models by hand for the property and error-path tests: constants (CONSTANT_COPY),
// scalars, request inputs and outputs, one or more operations, and runs them through
// executeOnCpu with guard bytes around every output so an out-of-bounds write is caught.
#pragma once

#include <cstring>
#include <memory>
#include <vector>

#include "weft/kernels/CpuExecutor.h"
#include "weft/nn/Types.h"

namespace weft::test {

class OpModelBuilder {
 public:
  struct Tensor {
    nn::OperandType type;
    nn::Dimensions dims;
    float scale = 0.0f;
    int32_t zeroPoint = 0;
    nn::ExtraParams extra = {};
  };

  template <typename T>
  uint32_t constant(const Tensor& t, const std::vector<T>& values) {
    return addConstantBytes(t, values.data(), values.size() * sizeof(T));
  }
  uint32_t int32Scalar(int32_t v) { return addConstantBytes({nn::OperandType::INT32, {}}, &v, sizeof(v)); }
  uint32_t floatScalar(float v) { return addConstantBytes({nn::OperandType::FLOAT32, {}}, &v, sizeof(v)); }
  uint32_t boolScalar(bool v) {
    const uint8_t b = v ? 1 : 0;
    return addConstantBytes({nn::OperandType::BOOL, {}}, &b, 1);
  }
  uint32_t omitted(nn::OperandType type) {
    nn::Operand o;
    o.type = type;
    o.lifetime = nn::Operand::LifeTime::NO_VALUE;
    return add(std::move(o));
  }
  uint32_t temporary(const Tensor& t) { return add(operandOf(t, nn::Operand::LifeTime::TEMPORARY_VARIABLE)); }
  // A model input fed with `bytes` by the request; `requestDims` are the request argument's
  // dimensions (for inputs the model declares with unknown dimensions).
  uint32_t input(const Tensor& t, std::vector<uint8_t> bytes, nn::Dimensions requestDims = {}) {
    const uint32_t index = add(operandOf(t, nn::Operand::LifeTime::SUBGRAPH_INPUT));
    model_.main.inputIndexes.push_back(index);
    inputBytes_.push_back(std::move(bytes));
    inputDims_.push_back(std::move(requestDims));
    return index;
  }
  // A model output with a request buffer of `capacity` bytes (0: exactly the declared size).
  uint32_t output(const Tensor& t, size_t capacity = 0) {
    const uint32_t index = add(operandOf(t, nn::Operand::LifeTime::SUBGRAPH_OUTPUT));
    model_.main.outputIndexes.push_back(index);
    outputCapacity_.push_back(capacity != 0 ? capacity : nn::sizeOfData(t.type, t.dims));
    return index;
  }
  void operation(nn::OperationType type, std::vector<uint32_t> inputs, std::vector<uint32_t> outputs) {
    model_.main.operations.push_back({type, std::move(inputs), std::move(outputs)});
  }

  nn::Model& model() { return model_; }
  nn::Status validate() const {
    for (const nn::Operation& op : model_.main.operations) NN_TRY(nn::validateOperation(model_, model_.main, op));
    return {};
  }

  struct Run {
    nn::Result<std::vector<nn::OutputShape>> result = nn::Error{};
    std::vector<std::vector<uint8_t>> outputs;  // the bytes of each output buffer
    bool guardsIntact = true;                   // nothing written around the output buffers
  };
  Run run(const nn::CpuExecutionOptions& options = {}) const;

  template <typename T>
  static std::vector<T> as(const std::vector<uint8_t>& bytes) {
    std::vector<T> v(bytes.size() / sizeof(T));
    if (!v.empty()) std::memcpy(v.data(), bytes.data(), v.size() * sizeof(T));
    return v;
  }
  template <typename T>
  static std::vector<uint8_t> bytesOf(const std::vector<T>& values) {
    std::vector<uint8_t> b(values.size() * sizeof(T));
    if (!b.empty()) std::memcpy(b.data(), values.data(), b.size());
    return b;
  }

 private:
  static nn::Operand operandOf(const Tensor& t, nn::Operand::LifeTime lifetime) {
    nn::Operand o;
    o.type = t.type;
    o.dimensions = t.dims;
    o.scale = t.scale;
    o.zeroPoint = t.zeroPoint;
    o.extraParams = t.extra;
    o.lifetime = lifetime;
    return o;
  }
  uint32_t add(nn::Operand o) {
    model_.main.operands.push_back(std::move(o));
    return static_cast<uint32_t>(model_.main.operands.size() - 1);
  }
  uint32_t addConstantBytes(const Tensor& t, const void* data, size_t bytes) {
    nn::Operand o = operandOf(t, nn::Operand::LifeTime::CONSTANT_COPY);
    const size_t offset = (model_.operandValues.size() + 7) / 8 * 8;
    model_.operandValues.resize(offset + bytes);
    if (bytes > 0) std::memcpy(model_.operandValues.data() + offset, data, bytes);
    o.location.offset = static_cast<uint32_t>(offset);
    o.location.length = static_cast<uint32_t>(bytes);
    return add(std::move(o));
  }

  nn::Model model_;
  std::vector<std::vector<uint8_t>> inputBytes_;
  std::vector<nn::Dimensions> inputDims_;
  std::vector<size_t> outputCapacity_;
};

}  // namespace weft::test
