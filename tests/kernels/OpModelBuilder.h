// Builds small nn::Models by hand for the property and error-path tests: constants (CONSTANT_COPY),
// scalars, request inputs and outputs, one or more operations, and runs them through
// executeOnCpu with guard bytes around every output so an out-of-bounds write is caught. Below
// the builder, the tensor shorthands and GoogleTest expectations the kernel tests share.
#pragma once

#include <cstring>
#include <memory>
#include <string>
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

// --- Shorthands ----------------------------------------------------------------------------------

inline OpModelBuilder::Tensor f32(nn::Dimensions dims) { return {nn::OperandType::TENSOR_FLOAT32, std::move(dims)}; }
inline OpModelBuilder::Tensor f16(nn::Dimensions dims) { return {nn::OperandType::TENSOR_FLOAT16, std::move(dims)}; }
inline OpModelBuilder::Tensor i32(nn::Dimensions dims) { return {nn::OperandType::TENSOR_INT32, std::move(dims)}; }
inline OpModelBuilder::Tensor q8(nn::Dimensions dims, float scale = 0.5f, int32_t zeroPoint = 128) {
  return {nn::OperandType::TENSOR_QUANT8_ASYMM, std::move(dims), scale, zeroPoint};
}
inline OpModelBuilder::Tensor q8s(nn::Dimensions dims, float scale = 0.5f, int32_t zeroPoint = 0) {
  return {nn::OperandType::TENSOR_QUANT8_ASYMM_SIGNED, std::move(dims), scale, zeroPoint};
}

// Zero bytes for a tensor of `t` (request inputs whose values do not matter).
inline std::vector<uint8_t> zeros(const OpModelBuilder::Tensor& t) {
  return std::vector<uint8_t>(nn::sizeOfData(t.type, t.dims));
}
// A model input holding `t`'s zeros.
inline uint32_t zeroInput(OpModelBuilder& m, const OpModelBuilder::Tensor& t) { return m.input(t, zeros(t)); }
// A request-supplied INT32 scalar: invisible to validation.
inline uint32_t requestInt32(OpModelBuilder& m, int32_t v) {
  return m.input({nn::OperandType::INT32, {}}, OpModelBuilder::bytesOf(std::vector<int32_t>{v}));
}

// --- GoogleTest expectations -------------------------------------------------------------------

// `status` is BAD_DATA, with a message mentioning `mention` when one is given.
void expectBadData(const nn::Status& status, const std::string& mention = "");
// The model validates (the defect is in values only the request carries), and its execution fails
// with BAD_DATA (mentioning `mention` when given) without touching memory around the outputs.
void expectExecutionBadData(const OpModelBuilder& m, const std::string& mention = "");

}  // namespace weft::test
