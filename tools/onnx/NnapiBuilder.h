// Writes the NNAPI model the importer makes, as the conformance harness holds models
// (weft::test::TestModel, tools/conformance): operands with their types, shapes and constant values,
// operations, the model's inputs and outputs. tools/conformance's ApiModelBuilder then builds it
// through the NNAPI C API, so an imported model takes the same path as an Android app's.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "HostTensor.h"
#include "TestModel.h"

namespace weft::onnx {

class NnapiBuilder {
 public:
  // A tensor computed at run time (an input, an output, a temporary).
  uint32_t addTensor(nn::OperandType type, const std::vector<uint32_t>& dims, const std::string& name,
                     float scale = 0.0f, int32_t zeroPoint = 0);
  // A constant tensor: `bytes` in the operand type's element width.
  uint32_t addConstant(nn::OperandType type, const std::vector<uint32_t>& dims, std::vector<uint8_t> bytes,
                       const std::string& name, float scale = 0.0f, int32_t zeroPoint = 0);
  // A per-channel symmetric int8 constant (TENSOR_QUANT8_SYMM_PER_CHANNEL).
  uint32_t addPerChannelConstant(const std::vector<uint32_t>& dims, std::vector<uint8_t> bytes,
                                 std::vector<float> scales, uint32_t channelDim, const std::string& name);
  // A quantized constant: `tensor` (uint8, int8 or int32) with its quantization (per channel:
  // TENSOR_QUANT8_SYMM_PER_CHANNEL along quant.axis).
  uint32_t addQuantized(const HostTensor& tensor, const Quantization& quant, const std::string& name);
  uint32_t scalarInt32(int32_t value);
  uint32_t scalarFloat32(float value);
  uint32_t scalarFloat16(float value);
  uint32_t scalarBool(bool value);
  // A 1-D TENSOR_INT32 constant (axes, shapes, paddings).
  uint32_t int32Vector(const std::vector<int32_t>& values, const std::string& name = "");

  // org.weft.accel's operation `code` (weft/WeftExtension.h: WEFT_LAYER_NORM, WEFT_GELU), the
  // model then listing the extension. Only programs an extension allowlist names can build such a
  // model through the NNAPI C API (the weft tool runs under one that names it).
  nn::OperationType weftOperation(uint16_t code);

  // Adds an operation; returns its index in the model.
  size_t addOperation(nn::OperationType type, std::vector<uint32_t> inputs, std::vector<uint32_t> outputs);

  void addInput(uint32_t operand);
  void addOutput(uint32_t operand);

  const test::TestOperand& operand(uint32_t index) const { return model_.main.operands.at(index); }
  test::TestOperand& operand(uint32_t index) { return model_.main.operands.at(index); }
  size_t operationCount() const { return model_.main.operations.size(); }
  test::TestModel& model() { return model_; }

 private:
  uint32_t push(test::TestOperand operand);
  test::TestModel model_;
};

// Bytes of one element of an NNAPI operand type (scalars and tensors alike).
size_t nnElementSize(nn::OperandType type);

}  // namespace weft::onnx
