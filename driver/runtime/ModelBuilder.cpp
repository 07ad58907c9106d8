#include "ModelBuilder.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <set>

#include "GraphOrder.h"
#include "Memory.h"
#include "ModelCopier.h"
#include "OperandTypes.h"
#include "weft/kernels/CpuExecutor.h"

namespace weft::runtime {

using LifeTime = nn::Operand::LifeTime;
using nn::OperandType;

namespace {

// NNAPI indexes are 32-bit and UINT32_MAX is reserved.
constexpr size_t kMaxCount = std::numeric_limits<uint32_t>::max() - 1;

const char* lifetimeName(LifeTime lifetime) {
  switch (lifetime) {
    case LifeTime::TEMPORARY_VARIABLE: return "a temporary";
    case LifeTime::SUBGRAPH_INPUT: return "a model input";
    case LifeTime::SUBGRAPH_OUTPUT: return "a model output";
    case LifeTime::CONSTANT_COPY:
    case LifeTime::CONSTANT_REFERENCE:
    case LifeTime::POINTER: return "a constant";
    case LifeTime::NO_VALUE: return "an omitted operand";
    case LifeTime::SUBGRAPH: return "a model reference";
  }
  return "an operand";
}

nn::Status checkValueLength(const nn::Operand& operand, uint32_t index, size_t length) {
  if (nn::isTensor(operand.type) && !nn::isFullySpecified(operand.type, operand.dimensions)) {
    return NN_ERROR(BAD_DATA) << "operand " << index << " has unspecified dimensions "
                              << toString(operand.dimensions) << "; a constant must be fully specified";
  }
  const std::optional<uint32_t> needed = byteSize(operand.type, operand.dimensions);
  if (!needed.has_value() || length != *needed) {
    return NN_ERROR(BAD_DATA) << "operand " << index << " (" << nn::toString(operand.type) << " "
                              << toString(operand.dimensions) << ") needs "
                              << (needed.has_value() ? std::to_string(*needed) : std::string("over 4 GiB"))
                              << " bytes, got " << length;
  }
  return {};
}

}  // namespace

nn::Status ModelBuilder::checkModifiable() const {
  if (isFinished()) return NN_ERROR(BAD_STATE) << "the model is finished and can no longer be modified";
  return {};
}

nn::Status ModelBuilder::checkOperandIndex(uint32_t index) const {
  if (index >= model_.main.operands.size()) {
    return NN_ERROR(BAD_DATA) << "operand index " << static_cast<int32_t>(index) << " is out of range (the model has "
                              << model_.main.operands.size() << " operands)";
  }
  return {};
}

nn::Status ModelBuilder::checkCanHoldValue(uint32_t index) const {
  NN_TRY(checkOperandIndex(index));
  const nn::Operand& operand = model_.main.operands[index];
  if (operand.lifetime == LifeTime::SUBGRAPH_INPUT || operand.lifetime == LifeTime::SUBGRAPH_OUTPUT) {
    return NN_ERROR(BAD_DATA) << "operand " << index << " is " << lifetimeName(operand.lifetime)
                              << " and cannot be given a value";
  }
  if (operand.type == OperandType::SUBGRAPH) {
    return NN_ERROR(BAD_DATA) << "operand " << index
                              << " is an ANEURALNETWORKS_MODEL; set it with setOperandValueFromModel";
  }
  return {};
}

nn::Status ModelBuilder::addOperand(const ANeuralNetworksOperandType& type) {
  NN_TRY(checkModifiable());
  NN_TRY(validateOperandType(type, /*allowUnspecified=*/true));
  if (model_.main.operands.size() >= kMaxCount) return NN_ERROR(BAD_DATA) << "too many operands";
  model_.main.operands.push_back(toOperand(type));
  return {};
}

nn::Status ModelBuilder::setOperandValue(uint32_t index, const void* buffer, size_t length) {
  NN_TRY(checkModifiable());
  NN_TRY(checkCanHoldValue(index));
  nn::Operand& operand = model_.main.operands[index];
  if (buffer == nullptr) {
    if (length != 0) return NN_ERROR(BAD_DATA) << "a NULL buffer must have length 0 (an omitted operand)";
    operand.lifetime = LifeTime::NO_VALUE;
    operand.location = {};
    return {};
  }
  NN_TRY(checkValueLength(operand, index, length));
  if (length <= ANEURALNETWORKS_MAX_SIZE_OF_IMMEDIATELY_COPIED_VALUES) {
    std::vector<uint8_t>& values = model_.operandValues;
    const size_t offset = (values.size() + 7) & ~size_t{7};
    values.resize(offset + length);
    std::memcpy(values.data() + offset, buffer, length);
    operand.lifetime = LifeTime::CONSTANT_COPY;
    operand.location = {};
    operand.location.offset = static_cast<uint32_t>(offset);
  } else {
    // Referenced, as NNAPI allows: the client keeps the buffer alive; finish() copies it.
    operand.lifetime = LifeTime::POINTER;
    operand.location = {};
    operand.location.pointer = buffer;
  }
  operand.location.length = static_cast<uint32_t>(length);
  return {};
}

nn::Status ModelBuilder::setOperandValueFromMemory(uint32_t index, const RuntimeMemory& memory, size_t offset,
                                                   size_t length) {
  NN_TRY(checkModifiable());
  NN_TRY(checkCanHoldValue(index));
  NN_TRY(memory.validateForConstant(offset, length));
  nn::Operand& operand = model_.main.operands[index];
  NN_TRY(checkValueLength(operand, index, length));
  if (offset > std::numeric_limits<uint32_t>::max()) return NN_ERROR(BAD_DATA) << "offset exceeds 4 GiB";
  const auto found = std::find(model_.pools.begin(), model_.pools.end(), memory.memory());
  const auto poolIndex = static_cast<uint32_t>(found - model_.pools.begin());
  if (found == model_.pools.end()) model_.pools.push_back(memory.memory());
  operand.lifetime = LifeTime::CONSTANT_REFERENCE;
  operand.location = {};
  operand.location.poolIndex = poolIndex;
  operand.location.offset = static_cast<uint32_t>(offset);
  operand.location.length = static_cast<uint32_t>(length);
  return {};
}

nn::Status ModelBuilder::setOperandValueFromModel(uint32_t index, const ModelBuilder& value) {
  NN_TRY(checkModifiable());
  NN_TRY(checkOperandIndex(index));
  nn::Operand& operand = model_.main.operands[index];
  if (operand.type != OperandType::SUBGRAPH) {
    return NN_ERROR(BAD_DATA) << "operand " << index << " is " << nn::toString(operand.type)
                              << ", not an ANEURALNETWORKS_MODEL";
  }
  if (operand.lifetime == LifeTime::SUBGRAPH_INPUT || operand.lifetime == LifeTime::SUBGRAPH_OUTPUT) {
    return NN_ERROR(BAD_DATA) << "operand " << index << " is " << lifetimeName(operand.lifetime);
  }
  if (!value.isFinished()) return NN_ERROR(BAD_DATA) << "the referenced model must be finished";
  const auto found = std::find(referenced_.begin(), referenced_.end(), value.finished());
  const auto referenceIndex = static_cast<uint32_t>(found - referenced_.begin());
  if (found == referenced_.end()) referenced_.push_back(value.finished());
  operand.lifetime = LifeTime::SUBGRAPH;
  operand.location = {};
  operand.location.offset = referenceIndex;
  return {};
}

nn::Status ModelBuilder::setOperandSymmPerChannelQuantParams(uint32_t index,
                                                             const ANeuralNetworksSymmPerChannelQuantParams& params) {
  NN_TRY(checkModifiable());
  NN_TRY(checkOperandIndex(index));
  nn::Operand& operand = model_.main.operands[index];
  if (operand.type != OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL) {
    return NN_ERROR(BAD_DATA) << "operand " << index << " is " << nn::toString(operand.type)
                              << "; per-channel parameters are only for TENSOR_QUANT8_SYMM_PER_CHANNEL";
  }
  if (params.channelDim >= operand.dimensions.size()) {
    return NN_ERROR(BAD_DATA) << "channelDim " << params.channelDim << " is not a dimension of operand " << index
                              << " " << toString(operand.dimensions);
  }
  const uint32_t channels = operand.dimensions[params.channelDim];
  if (channels == 0) {
    return NN_ERROR(BAD_DATA) << "the channel dimension " << params.channelDim << " of operand " << index
                              << " must be specified";
  }
  if (params.scaleCount != channels) {
    return NN_ERROR(BAD_DATA) << "scaleCount " << params.scaleCount << " != dimension " << params.channelDim
                              << " of operand " << index << " (" << channels << ")";
  }
  if (params.scales == nullptr) return NN_ERROR(UNEXPECTED_NULL) << "scales is NULL";
  for (uint32_t c = 0; c < params.scaleCount; ++c) {
    if (!(params.scales[c] > 0.0f) || !std::isfinite(params.scales[c])) {
      return NN_ERROR(BAD_DATA) << "scale " << c << " is " << params.scales[c] << "; scales must be finite and > 0";
    }
  }
  operand.extraParams = nn::SymmPerChannelQuantParams{
      std::vector<float>(params.scales, params.scales + params.scaleCount), params.channelDim};
  return {};
}

nn::Status ModelBuilder::setOperandExtensionData(uint32_t index, const void*, size_t) {
  NN_TRY(checkModifiable());
  NN_TRY(checkOperandIndex(index));
  // addOperand rejects extension types (no device supports an extension), so no operand can
  // take extension data.
  return NN_ERROR(BAD_DATA) << "operand " << index << " is not of an extension type";
}

nn::Status ModelBuilder::validateOperationNow(const nn::Operation& operation) const {
  if (operation.type != nn::OperationType::IF && operation.type != nn::OperationType::WHILE) {
    return nn::validateOperation(model_, model_.main, operation);
  }
  // Control flow looks into the referenced models: validate against the flattened model.
  std::vector<uint32_t> order(model_.main.operations.size());
  std::iota(order.begin(), order.end(), 0);
  const std::shared_ptr<FinishedModel> flat = flatten(order);
  return nn::validateOperation(flat->model, flat->model.main, operation);
}

nn::Status ModelBuilder::addOperation(ANeuralNetworksOperationType type, uint32_t inputCount, const uint32_t* inputs,
                                      uint32_t outputCount, const uint32_t* outputs) {
  NN_TRY(checkModifiable());
  if (isExtensionType(type)) {
    return NN_ERROR(BAD_DATA) << "operation type " << type << " is an extension type; no device supports extensions";
  }
  if (type < 0 || type >= nn::kNumOperationTypes) return NN_ERROR(BAD_DATA) << "invalid operation type " << type;
  nn::Operation operation;
  operation.type = static_cast<nn::OperationType>(type);
  operation.inputs.assign(inputs, inputs + inputCount);
  operation.outputs.assign(outputs, outputs + outputCount);
  for (uint32_t index : operation.inputs) NN_TRY(checkOperandIndex(index));
  for (uint32_t index : operation.outputs) NN_TRY(checkOperandIndex(index));
  if (model_.main.operations.size() >= kMaxCount) return NN_ERROR(BAD_DATA) << "too many operations";
  if (nn::Status valid = validateOperationNow(operation); !valid.ok()) {
    return NN_ERROR(BAD_DATA) << nn::toString(operation.type) << ": " << valid.error().message;
  }
  model_.main.operations.push_back(std::move(operation));
  return {};
}

nn::Status ModelBuilder::identifyInputsAndOutputs(uint32_t inputCount, const uint32_t* inputs, uint32_t outputCount,
                                                  const uint32_t* outputs) {
  NN_TRY(checkModifiable());
  std::vector<uint32_t> newInputs(inputs, inputs + inputCount);
  std::vector<uint32_t> newOutputs(outputs, outputs + outputCount);
  // A second call replaces the first: judge each operand as if the first had not happened.
  std::set<uint32_t> previous(model_.main.inputIndexes.begin(), model_.main.inputIndexes.end());
  previous.insert(model_.main.outputIndexes.begin(), model_.main.outputIndexes.end());
  std::set<uint32_t> seen;
  auto check = [&](const std::vector<uint32_t>& list, const char* role) -> nn::Status {
    for (uint32_t index : list) {
      NN_TRY(checkOperandIndex(index));
      if (!seen.insert(index).second) {
        return NN_ERROR(BAD_DATA) << "operand " << index << " is named more than once as a model input or output";
      }
      const LifeTime lifetime = model_.main.operands[index].lifetime;
      if (previous.count(index) == 0 && lifetime != LifeTime::TEMPORARY_VARIABLE) {
        return NN_ERROR(BAD_DATA) << "operand " << index << " is " << lifetimeName(lifetime) << " and cannot be a model "
                                  << role;
      }
    }
    return {};
  };
  NN_TRY(check(newInputs, "input"));
  NN_TRY(check(newOutputs, "output"));

  for (uint32_t index : previous) model_.main.operands[index].lifetime = LifeTime::TEMPORARY_VARIABLE;
  for (uint32_t index : newInputs) model_.main.operands[index].lifetime = LifeTime::SUBGRAPH_INPUT;
  for (uint32_t index : newOutputs) model_.main.operands[index].lifetime = LifeTime::SUBGRAPH_OUTPUT;
  model_.main.inputIndexes = std::move(newInputs);
  model_.main.outputIndexes = std::move(newOutputs);
  return {};
}

nn::Status ModelBuilder::relaxComputationFloat32toFloat16(bool allow) {
  NN_TRY(checkModifiable());
  model_.relaxComputationFloat32toFloat16 = allow;
  return {};
}

std::shared_ptr<FinishedModel> ModelBuilder::flatten(const std::vector<uint32_t>& order) const {
  auto result = std::make_shared<FinishedModel>();
  nn::Model& out = result->model;
  out.relaxComputationFloat32toFloat16 = model_.relaxComputationFloat32toFloat16;
  ModelCopier copier(out);
  const ValueSource values{&model_.operandValues, &model_.pools};
  auto subgraphIndex = [&](uint32_t k) {
    const nn::Model& referenced = referenced_[k]->model;
    return copier.copySubgraph(referenced, referenced.main);
  };
  out.main.operands.reserve(model_.main.operands.size());
  for (const nn::Operand& operand : model_.main.operands) {
    out.main.operands.push_back(copier.copyOperand(operand, values, subgraphIndex));
  }
  out.main.operations.reserve(order.size());
  for (uint32_t i : order) out.main.operations.push_back(model_.main.operations[i]);
  out.main.inputIndexes = model_.main.inputIndexes;
  out.main.outputIndexes = model_.main.outputIndexes;
  result->clientOperationIndex = order;
  return result;
}

nn::Status ModelBuilder::finish() {
  NN_TRY(checkModifiable());
  const nn::Subgraph& main = model_.main;
  if (main.outputIndexes.empty()) {
    return NN_ERROR(BAD_DATA) << "the model has no outputs (ANeuralNetworksModel_identifyInputsAndOutputs)";
  }
  for (size_t i = 0; i < main.operands.size(); ++i) {
    const nn::Operand& operand = main.operands[i];
    if (operand.type == OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL &&
        !std::holds_alternative<nn::SymmPerChannelQuantParams>(operand.extraParams)) {
      return NN_ERROR(BAD_DATA) << "operand " << i << " is TENSOR_QUANT8_SYMM_PER_CHANNEL without per-channel "
                                << "parameters (setOperandSymmPerChannelQuantParams)";
    }
    if (operand.type == OperandType::SUBGRAPH && operand.lifetime != LifeTime::SUBGRAPH) {
      return NN_ERROR(BAD_DATA) << "operand " << i << " is an ANEURALNETWORKS_MODEL without a model "
                                << "(setOperandValueFromModel)";
    }
  }
  nn::Result<std::vector<uint32_t>> order = sortIntoRunOrder(main);
  if (!order.ok()) return order.error();
  std::shared_ptr<FinishedModel> finished = flatten(*order);
  const nn::Model& flat = finished->model;
  for (size_t i = 0; i < flat.main.operations.size(); ++i) {
    const nn::Operation& operation = flat.main.operations[i];
    if (nn::Status valid = nn::validateOperation(flat, flat.main, operation); !valid.ok()) {
      return NN_ERROR(BAD_DATA) << "operation " << finished->clientOperationIndex[i] << " ("
                                << nn::toString(operation.type) << "): " << valid.error().message;
    }
  }
  finished_ = std::move(finished);
  return {};
}

}  // namespace weft::runtime
