#include "NnapiBuilder.h"

#include <cstring>

#include "HostTensor.h"
#include "weft/WeftExtension.h"

namespace weft::onnx {

using LifeTime = nn::Operand::LifeTime;

size_t nnElementSize(nn::OperandType type) { return test::testElementSize(type); }

uint32_t NnapiBuilder::push(test::TestOperand operand) {
  model_.main.operands.push_back(std::move(operand));
  return static_cast<uint32_t>(model_.main.operands.size() - 1);
}

namespace {

test::TestOperand operandOf(nn::OperandType type, const std::vector<uint32_t>& dims, const std::string& name,
                            float scale, int32_t zeroPoint, LifeTime lifetime) {
  test::TestOperand o;
  o.name = name;
  o.type = type;
  o.dimensions = dims;
  o.scale = scale;
  o.zeroPoint = zeroPoint;
  o.lifetime = lifetime;
  return o;
}

}  // namespace

uint32_t NnapiBuilder::addTensor(nn::OperandType type, const std::vector<uint32_t>& dims, const std::string& name,
                                 float scale, int32_t zeroPoint) {
  return push(operandOf(type, dims, name, scale, zeroPoint, LifeTime::TEMPORARY_VARIABLE));
}

uint32_t NnapiBuilder::addConstant(nn::OperandType type, const std::vector<uint32_t>& dims, std::vector<uint8_t> bytes,
                                   const std::string& name, float scale, int32_t zeroPoint) {
  // Small values are copied into the model; large ones (weights) live in one shared memory.
  test::TestOperand o = operandOf(type, dims, name, scale, zeroPoint,
                                  bytes.size() <= 128 ? LifeTime::CONSTANT_COPY : LifeTime::CONSTANT_REFERENCE);
  o.data = test::TestBuffer(std::move(bytes));
  return push(std::move(o));
}

uint32_t NnapiBuilder::addPerChannelConstant(const std::vector<uint32_t>& dims, std::vector<uint8_t> bytes,
                                             std::vector<float> scales, uint32_t channelDim, const std::string& name) {
  const uint32_t index = addConstant(nn::OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL, dims, std::move(bytes), name);
  auto& o = model_.main.operands[index];
  o.channelQuant.channelDim = channelDim;
  o.channelQuant.scales = std::move(scales);
  return index;
}

uint32_t NnapiBuilder::addQuantized(const HostTensor& tensor, const Quantization& quant, const std::string& name) {
  std::vector<uint32_t> dims;
  for (int64_t d : tensor.shape) dims.push_back(static_cast<uint32_t>(d));
  if (dims.empty()) dims = {1};
  if (quant.perChannel()) {
    return addPerChannelConstant(dims, tensor.bytes, quant.scales, static_cast<uint32_t>(quant.axis), name);
  }
  nn::OperandType type = nn::OperandType::TENSOR_INT32;
  if (tensor.type == DType::kUint8) type = nn::OperandType::TENSOR_QUANT8_ASYMM;
  if (tensor.type == DType::kInt8) type = nn::OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
  return addConstant(type, dims, tensor.bytes, name, quant.scales.front(), quant.zeroPoints.front());
}

namespace {

template <typename T>
std::vector<uint8_t> bytesOf(T value) {
  std::vector<uint8_t> b(sizeof(T));
  std::memcpy(b.data(), &value, sizeof(T));
  return b;
}

}  // namespace

uint32_t NnapiBuilder::scalarInt32(int32_t value) {
  return addConstant(nn::OperandType::INT32, {}, bytesOf(value), "");
}
uint32_t NnapiBuilder::scalarFloat32(float value) {
  return addConstant(nn::OperandType::FLOAT32, {}, bytesOf(value), "");
}
uint32_t NnapiBuilder::scalarFloat16(float value) {
  return addConstant(nn::OperandType::FLOAT16, {}, bytesOf(floatToHalf(value)), "");
}
uint32_t NnapiBuilder::scalarBool(bool value) {
  return addConstant(nn::OperandType::BOOL, {}, bytesOf(static_cast<uint8_t>(value ? 1 : 0)), "");
}

uint32_t NnapiBuilder::int32Vector(const std::vector<int32_t>& values, const std::string& name) {
  std::vector<uint8_t> b(values.size() * 4);
  if (!values.empty()) std::memcpy(b.data(), values.data(), b.size());
  return addConstant(nn::OperandType::TENSOR_INT32, {static_cast<uint32_t>(values.size())}, std::move(b), name);
}

nn::OperationType NnapiBuilder::weftOperation(uint16_t code) {
  constexpr uint16_t kPrefix = 1;  // the model's own numbering; the C API assigns the real one
  auto& extensions = model_.extensionNameToPrefix;
  if (extensions.empty()) extensions.push_back({WEFT_EXTENSION_NAME, kPrefix});
  return static_cast<nn::OperationType>(uint32_t{kPrefix} << nn::kExtensionTypeBits | code);
}

size_t NnapiBuilder::addOperation(nn::OperationType type, std::vector<uint32_t> inputs, std::vector<uint32_t> outputs) {
  test::TestOperation op;
  op.type = type;
  op.inputs = std::move(inputs);
  op.outputs = std::move(outputs);
  model_.main.operations.push_back(std::move(op));
  return model_.main.operations.size() - 1;
}

void NnapiBuilder::addInput(uint32_t operand) {
  model_.main.operands[operand].lifetime = LifeTime::SUBGRAPH_INPUT;
  model_.main.inputIndexes.push_back(operand);
}

void NnapiBuilder::addOutput(uint32_t operand) {
  model_.main.operands[operand].lifetime = LifeTime::SUBGRAPH_OUTPUT;
  model_.main.outputIndexes.push_back(operand);
}

}  // namespace weft::onnx
