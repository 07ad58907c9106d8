// ANeuralNetworksModel: builds a model operand by operand and operation by operation, checking
// each call against the NNAPI rules, and on finish() checks the whole graph and produces the
// self-contained canonical model that compilations use.
#pragma once

#include <memory>
#include <vector>

#include "android/NeuralNetworksTypes.h"
#include "weft/nn/Result.h"
#include "weft/nn/Types.h"

namespace weft::runtime {

class RuntimeMemory;

// A finished model, immutable and shared by the compilations made from it (so that they stay
// valid if the client frees the model first).
struct FinishedModel {
  // Main operations in run order; every constant copied into operandValues or referenced through
  // pools; the models referenced by IF/WHILE flattened into `referenced`. Operand indexes are
  // those the client used.
  nn::Model model;
  // clientOperationIndex[i]: the index, in the order the client added them, of model.main's
  // operation i.
  std::vector<uint32_t> clientOperationIndex;
};

class ModelBuilder {
 public:
  nn::Status addOperand(const ANeuralNetworksOperandType& type);
  nn::Status setOperandValue(uint32_t index, const void* buffer, size_t length);
  nn::Status setOperandValueFromMemory(uint32_t index, const RuntimeMemory& memory, size_t offset, size_t length);
  nn::Status setOperandValueFromModel(uint32_t index, const ModelBuilder& value);
  nn::Status setOperandSymmPerChannelQuantParams(uint32_t index, const ANeuralNetworksSymmPerChannelQuantParams& params);
  nn::Status setOperandExtensionData(uint32_t index, const void* data, size_t length);
  // ANeuralNetworksModel_getExtensionOperandType / _getExtensionOperationType: the type of `code`
  // of `extension` in this model, its prefix assigned on first use (from 1, per model).
  nn::Result<int32_t> getExtensionType(const char* extension, uint16_t code);
  nn::Status addOperation(ANeuralNetworksOperationType type, uint32_t inputCount, const uint32_t* inputs,
                          uint32_t outputCount, const uint32_t* outputs);
  nn::Status identifyInputsAndOutputs(uint32_t inputCount, const uint32_t* inputs, uint32_t outputCount,
                                      const uint32_t* outputs);
  nn::Status relaxComputationFloat32toFloat16(bool allow);
  nn::Status finish();

  bool isFinished() const { return finished_ != nullptr; }
  // A finish() that failed makes the model invalid (as in NNAPI: once finish was called, the model
  // can no longer be modified, and a second finish is BAD_STATE).
  bool isInvalid() const { return invalid_; }
  // Set once finish() succeeded.
  const std::shared_ptr<const FinishedModel>& finished() const { return finished_; }

 private:
  nn::Status checkModifiable() const;
  nn::Status checkOperandIndex(uint32_t index) const;
  // Operands that can be given a value: not a model input or output, not a model reference.
  nn::Status checkCanHoldValue(uint32_t index) const;
  // The model as it stands, with referenced models flattened, operations in `order`.
  std::shared_ptr<FinishedModel> flatten(const std::vector<uint32_t>& order) const;
  // finish() without its effect: the whole-model checks, then the flattened model.
  nn::Result<std::shared_ptr<FinishedModel>> validateAndFlatten() const;
  nn::Status validateOperationNow(const nn::Operation& operation) const;
  // An extension type (operand or operation) may be used: the program is on the allowlist and the
  // type's prefix names an extension of this model that a device supports.
  nn::Status checkExtensionType(int32_t type) const;

  // The model under construction: operations in the order added; small constant values in
  // operandValues, large ones as POINTER (the client's buffer must outlive the model), memory
  // constants in pools. SUBGRAPH operands index referenced_.
  nn::Model model_;
  std::vector<std::shared_ptr<const FinishedModel>> referenced_;
  std::shared_ptr<const FinishedModel> finished_;
  bool invalid_ = false;
  // identifyInputsAndOutputs succeeded once; NNAPI allows it once per model.
  bool identified_ = false;
};

}  // namespace weft::runtime
