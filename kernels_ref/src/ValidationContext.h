// IOperationValidationContext over one operation of a model's subgraph (declared types and shapes,
// constant values, the referenced subgraphs of IF/WHILE).
#pragma once

#include "weft/kernels/OperationResolver.h"

namespace weft::nn {

class ValidationContext final : public IOperationValidationContext {
 public:
  ValidationContext(const Model& model, const Subgraph& subgraph, const Operation& operation)
      : model_(model), subgraph_(subgraph), operation_(operation) {}

  const char* getOperationName() const override { return toString(operation_.type); }
  uint32_t getNumInputs() const override { return static_cast<uint32_t>(operation_.inputs.size()); }
  OperandType getInputType(uint32_t index) const override { return input(index).type; }
  Shape getInputShape(uint32_t index) const override { return shapeOf(input(index)); }
  const ExtraParams& getInputExtraParams(uint32_t index) const override { return input(index).extraParams; }
  bool isOmittedInput(uint32_t index) const override {
    return input(index).lifetime == Operand::LifeTime::NO_VALUE;
  }
  const void* getConstantInputBuffer(uint32_t index) const override;
  uint32_t getNumOutputs() const override { return static_cast<uint32_t>(operation_.outputs.size()); }
  OperandType getOutputType(uint32_t index) const override { return output(index).type; }
  Shape getOutputShape(uint32_t index) const override { return shapeOf(output(index)); }
  bool isRelaxed() const override { return model_.relaxComputationFloat32toFloat16; }
  OperandType extensionOperandType(std::string_view extension, uint16_t code) const override;
  const Subgraph* getReferencedSubgraph(uint32_t index) const override;

 private:
  static Shape shapeOf(const Operand& o) { return Shape{o.type, o.dimensions, o.scale, o.zeroPoint, o.extraParams}; }
  const Operand& input(uint32_t i) const { return subgraph_.operands[operation_.inputs.at(i)]; }
  const Operand& output(uint32_t i) const { return subgraph_.operands[operation_.outputs.at(i)]; }

  const Model& model_;
  const Subgraph& subgraph_;
  const Operation& operation_;
};

// The type `model` gives operand type `code` of `extension`; a type no operand has (prefix 0xFFFF,
// which no model hands out) when the model does not use the extension.
OperandType extensionOperandTypeOf(const Model& model, std::string_view extension, uint16_t code);

// Where a constant operand's bytes are (CONSTANT_COPY, CONSTANT_REFERENCE, POINTER), or nullptr
// when the operand is not a constant or its location is out of bounds.
const uint8_t* constantData(const Model& model, const Operand& operand);

// The referenced subgraph a SUBGRAPH operand names (its location.offset is the index into
// Model::referenced), or nullptr.
const Subgraph* referencedSubgraph(const Model& model, const Operand& operand);

}  // namespace weft::nn
