#include "ReferenceTables.h"

#include <algorithm>
#include <cstring>
#include <numeric>

#include "weft/kernels/CpuExecutor.h"
#include "weft/kernels/FixedPoint.h"
#include "weft/kernels/QuantUtils.h"

namespace weft::accel {

nn::Result<std::vector<int32_t>> unaryTable(nn::OperationType operation, const nn::Operand& input,
                                            const nn::Operand& output, const std::vector<int32_t>& scalars,
                                            const std::vector<nn::ExtensionNameAndPrefix>& extensions,
                                            const nn::Dimensions& dims, const std::vector<ConstantInput>& constants) {
  using L = nn::Operand::LifeTime;
  nn::Model model;
  model.extensionNameToPrefix = extensions;
  nn::Operand in = input, out = output;
  in.dimensions = dims;
  in.lifetime = L::SUBGRAPH_INPUT;
  in.location = {};
  out.dimensions = dims;
  out.lifetime = L::SUBGRAPH_OUTPUT;
  out.location = {};
  model.main.operands = {in, out};
  nn::Operation op{operation, {0}, {1}};
  for (const ConstantInput& c : constants) {
    nn::Operand t = c.operand;
    t.lifetime = L::CONSTANT_COPY;
    t.location = {};
    t.location.offset = static_cast<uint32_t>(model.operandValues.size());
    t.location.length = static_cast<uint32_t>(c.bytes.size());
    model.operandValues.insert(model.operandValues.end(), c.bytes.begin(), c.bytes.end());
    op.inputs.push_back(static_cast<uint32_t>(model.main.operands.size()));
    model.main.operands.push_back(t);
  }
  for (int32_t s : scalars) {
    nn::Operand scalar;
    scalar.type = nn::OperandType::INT32;
    scalar.lifetime = L::CONSTANT_COPY;
    scalar.location.offset = static_cast<uint32_t>(model.operandValues.size());
    scalar.location.length = 4;
    model.operandValues.resize(model.operandValues.size() + 4);
    std::memcpy(model.operandValues.data() + scalar.location.offset, &s, 4);
    op.inputs.push_back(static_cast<uint32_t>(model.main.operands.size()));
    model.main.operands.push_back(scalar);
  }
  model.main.operations = {op};
  model.main.inputIndexes = {0};
  model.main.outputIndexes = {1};

  std::vector<uint8_t> x(256), y(256);
  std::iota(x.begin(), x.end(), 0);  // every raw byte
  nn::Request request;
  request.inputs.resize(1);
  request.inputs[0].location.pointer = x.data();
  request.inputs[0].location.length = 256;
  request.outputs.resize(1);
  request.outputs[0].location.pointer = y.data();
  request.outputs[0].location.length = 256;
  auto shapes = nn::executeOnCpu(model, request);
  if (!shapes.ok()) return shapes.error();
  const bool isSigned = output.type == nn::OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
  std::vector<int32_t> table(256);
  for (size_t b = 0; b < 256; ++b) table[b] = isSigned ? static_cast<int8_t>(y[b]) : static_cast<int32_t>(y[b]);
  return table;
}

nn::Result<SoftmaxTable> softmaxTable(float beta, float inputScale) {
  // TFLite's quantized softmax (kernels_ref/ops/Softmax.cpp): differences to the maximum are
  // rescaled to Q5.26 and exponentiated in fixed point.
  constexpr int kScaledDiffIntegerBits = 5;
  const double real =
      std::min(1.0 * beta * inputScale * (1 << (31 - kScaledDiffIntegerBits)), (int64_t{1} << 31) - 1.0);
  int32_t multiplier = 0;
  int leftShift = 0;
  NN_TRY(nn::quantizeMultiplierGreaterThanOne(real, &multiplier, &leftShift));
  const int32_t diffMin = -nn::calculateInputRadius(kScaledDiffIntegerBits, leftShift);
  SoftmaxTable t;
  t.exp.resize(256);
  for (int32_t d = 0; d < 256; ++d) {
    const int32_t rescaled = nn::multiplyByQuantizedMultiplierGreaterThanOne(-d, multiplier, leftShift);
    t.exp[d] = nn::fixed::expOnNegativeValues(nn::fixed::FixedPoint<kScaledDiffIntegerBits>::fromRaw(rescaled)).raw;
  }
  t.length = static_cast<uint32_t>(std::clamp<int64_t>(int64_t{1} - diffMin, 1, 256));
  return t;
}

}  // namespace weft::accel
