// IOperationExecutionContext over the executor's run-time operands for one operation.
#pragma once

#include <vector>

#include "RunTimeOperand.h"
#include "weft/kernels/OperationResolver.h"

namespace weft::nn {

class ExecutionContext final : public IOperationExecutionContext {
 public:
  ExecutionContext(const Model& model, const Operation& operation, std::vector<RunTimeOperand>& operands)
      : model_(model), operation_(operation), operands_(operands) {}

  uint32_t getNumInputs() const override { return static_cast<uint32_t>(operation_.inputs.size()); }
  OperandType getInputType(uint32_t index) const override { return input(index).type; }
  Shape getInputShape(uint32_t index) const override { return input(index).shape(); }
  const void* getInputBuffer(uint32_t index) const override { return input(index).buffer; }
  const ExtraParams& getInputExtraParams(uint32_t index) const override { return input(index).extraParams; }
  bool isOmittedInput(uint32_t index) const override { return input(index).omitted; }

  uint32_t getNumOutputs() const override { return static_cast<uint32_t>(operation_.outputs.size()); }
  OperandType getOutputType(uint32_t index) const override { return output(index).type; }
  Shape getOutputShape(uint32_t index) const override { return output(index).shape(); }
  void* getOutputBuffer(uint32_t index) override { return output(index).buffer; }
  bool isOmittedOutput(uint32_t index) const override { return output(index).omitted; }
  Status setOutputShape(uint32_t index, const Shape& shape) override;
  bool isRelaxed() const override { return model_.relaxComputationFloat32toFloat16; }
  OperandType extensionOperandType(std::string_view extension, uint16_t code) const override;

 private:
  const RunTimeOperand& input(uint32_t i) const { return operands_[operation_.inputs.at(i)]; }
  const RunTimeOperand& output(uint32_t i) const { return operands_[operation_.outputs.at(i)]; }
  RunTimeOperand& output(uint32_t i) { return operands_[operation_.outputs.at(i)]; }

  const Model& model_;
  const Operation& operation_;
  std::vector<RunTimeOperand>& operands_;
};

// Gives `operand` the inferred `shape`: checks it against what the model declared, allocates the
// storage of internally owned operands, and flags OUTPUT_INSUFFICIENT_SIZE for fixed-capacity ones.
Status setRunTimeShape(RunTimeOperand& operand, const Shape& shape);

}  // namespace weft::nn
