#include "ModelBuilder.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <set>

#include "DeviceManager.h"
#include "ExtensionAllowlist.h"
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

nn::Status checkValueLength(const nn::Model& model, const nn::Operand& operand, uint32_t index, size_t length) {
  nn::Result<nn::OperandTypeInfo> info = typeInfo(model, operand.type);
  if (!info.ok()) return info.error();
  if (!hasKnownSize(*info, operand.dimensions)) {
    return NN_ERROR(BAD_DATA) << "operand " << index << " has unspecified dimensions "
                              << toString(operand.dimensions) << "; a constant must be fully specified";
  }
  const std::optional<uint32_t> needed = byteSize(*info, operand.dimensions);
  if (!needed.has_value() || length != *needed) {
    return NN_ERROR(BAD_DATA) << "operand " << index << " (" << nn::toString(operand.type) << " "
                              << toString(operand.dimensions) << ") needs "
                              << (needed.has_value() ? std::to_string(*needed) : std::string("over 4 GiB"))
                              << " bytes, got " << length;
  }
  return {};
}

// The prefix `name` has in `prefixes`, given the next free one if it has none yet.
uint16_t prefixFor(const std::string& name, std::vector<nn::ExtensionNameAndPrefix>& prefixes) {
  for (const nn::ExtensionNameAndPrefix& entry : prefixes) {
    if (entry.name == name) return entry.prefix;
  }
  prefixes.push_back({name, static_cast<uint16_t>(prefixes.size() + 1)});
  return prefixes.back().prefix;
}

template <typename Type>
Type renumbered(Type type, const std::vector<nn::ExtensionNameAndPrefix>& from,
                std::vector<nn::ExtensionNameAndPrefix>& to) {
  const auto value = static_cast<int32_t>(type);
  if (!nn::isExtension(type)) return type;
  const std::string* name = nn::extensionNameOf(from, nn::getExtensionPrefix(value));
  if (name == nullptr) return type;  // not the referenced model's: left for validation to refuse
  return static_cast<Type>((uint32_t{prefixFor(*name, to)} << nn::kExtensionTypeBits) |
                           nn::getTypeWithinExtension(value));
}

void renumberExtensionTypes(nn::Subgraph& subgraph, const std::vector<nn::ExtensionNameAndPrefix>& from,
                            std::vector<nn::ExtensionNameAndPrefix>& to) {
  for (nn::Operand& operand : subgraph.operands) operand.type = renumbered(operand.type, from, to);
  for (nn::Operation& operation : subgraph.operations) operation.type = renumbered(operation.type, from, to);
}

}  // namespace

nn::Status ModelBuilder::checkModifiable() const {
  if (isFinished()) return NN_ERROR(BAD_STATE) << "the model is finished and can no longer be modified";
  if (invalid_) {
    return NN_ERROR(BAD_STATE) << "ANeuralNetworksModel_finish failed on this model, which can no longer be modified";
  }
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

nn::Status ModelBuilder::checkExtensionType(int32_t type) const {
  const ExtensionPermission& permission = extensionPermission();
  if (!permission.allowed) {
    // Android's answer to a program that may not use extensions.
    return NN_ERROR(BAD_DATA) << "extensions are not allowed for this program: " << permission.executable
                              << " is not listed in " << permission.allowlist;
  }
  const std::string* name = nn::extensionNameOf(model_.extensionNameToPrefix, nn::getExtensionPrefix(type));
  if (name == nullptr) {
    return NN_ERROR(BAD_DATA) << "type " << type << " has the extension prefix " << nn::getExtensionPrefix(type)
                              << ", which this model did not hand out (ANeuralNetworksModel_getExtension*Type)";
  }
  if (DeviceManager::get().findExtension(*name) == nullptr) {
    return NN_ERROR(BAD_DATA) << "no device supports the extension " << *name;
  }
  return {};
}

nn::Result<int32_t> ModelBuilder::getExtensionType(const char* extension, uint16_t code) {
  if (DeviceManager::get().findExtension(extension) == nullptr) {
    return NN_ERROR(BAD_DATA) << "no device supports the extension \"" << extension << "\"";
  }
  std::vector<nn::ExtensionNameAndPrefix>& prefixes = model_.extensionNameToPrefix;
  auto known = std::find_if(prefixes.begin(), prefixes.end(),
                            [&](const nn::ExtensionNameAndPrefix& entry) { return entry.name == extension; });
  if (known == prefixes.end()) {
    // A prefix is part of the model: a finished or invalid model gets no new one.
    NN_TRY(checkModifiable());
    if (prefixes.size() >= 0xFFFF) return NN_ERROR(BAD_DATA) << "the model uses too many extensions";
    prefixes.push_back({extension, static_cast<uint16_t>(prefixes.size() + 1)});
    known = prefixes.end() - 1;
  }
  return static_cast<int32_t>((uint32_t{known->prefix} << nn::kExtensionTypeBits) | code);
}

nn::Status ModelBuilder::addOperand(const ANeuralNetworksOperandType& type) {
  NN_TRY(checkModifiable());
  if (isExtensionType(type.type)) {
    NN_TRY(checkExtensionType(type.type));
    nn::Result<nn::OperandTypeInfo> info = typeInfo(model_, static_cast<OperandType>(type.type));
    NN_TRY(validateOperandType(type, /*allowUnspecified=*/true, info.ok() ? &*info : nullptr));
  } else {
    NN_TRY(validateOperandType(type, /*allowUnspecified=*/true));
  }
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
  NN_TRY(checkValueLength(model_, operand, index, length));
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
  NN_TRY(checkValueLength(model_, operand, index, length));
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
  // BAD_STATE as in NNAPI: the value model is in the wrong state, not a wrong argument.
  if (!value.isFinished()) return NN_ERROR(BAD_STATE) << "the referenced model must be finished";
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
  // A NULL array with a count is malformed data (BAD_DATA in NNAPI), not a NULL argument.
  if (params.scales == nullptr) return NN_ERROR(BAD_DATA) << "scales is NULL but scaleCount is " << params.scaleCount;
  for (uint32_t c = 0; c < params.scaleCount; ++c) {
    if (!(params.scales[c] > 0.0f) || !std::isfinite(params.scales[c])) {
      return NN_ERROR(BAD_DATA) << "scale " << c << " is " << params.scales[c] << "; scales must be finite and > 0";
    }
  }
  operand.extraParams = nn::SymmPerChannelQuantParams{
      std::vector<float>(params.scales, params.scales + params.scaleCount), params.channelDim};
  return {};
}

nn::Status ModelBuilder::setOperandExtensionData(uint32_t index, const void* data, size_t length) {
  NN_TRY(checkModifiable());
  NN_TRY(checkOperandIndex(index));
  nn::Operand& operand = model_.main.operands[index];
  if (!nn::isExtension(operand.type)) {
    return NN_ERROR(BAD_DATA) << "operand " << index << " is " << nn::toString(operand.type)
                              << ", not of an extension type: only those take extension data";
  }
  // What the data means is the extension's business: the devices check it (Android's runtime
  // keeps the bytes as they are too). NULL and 0 remove it.
  if (data == nullptr) {
    operand.extraParams = {};
  } else {
    const auto* bytes = static_cast<const uint8_t*>(data);
    operand.extraParams = std::vector<uint8_t>(bytes, bytes + length);
  }
  return {};
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
    NN_TRY(checkExtensionType(type));
  } else if (type < 0 || type >= nn::kNumOperationTypes) {
    return NN_ERROR(BAD_DATA) << "invalid operation type " << type;
  }
  nn::Operation operation;
  operation.type = static_cast<nn::OperationType>(type);
  operation.inputs.assign(inputs, inputs + inputCount);
  operation.outputs.assign(outputs, outputs + outputCount);
  for (uint32_t index : operation.inputs) NN_TRY(checkOperandIndex(index));
  for (uint32_t index : operation.outputs) NN_TRY(checkOperandIndex(index));
  if (model_.main.operations.size() >= kMaxCount) return NN_ERROR(BAD_DATA) << "too many operations";
  // The runtime cannot know what an extension operation wants of its operands: the devices judge
  // it (getSupportedOperations, prepareModel), as in Android.
  if (nn::Status valid = isExtensionType(type) ? nn::Status() : validateOperationNow(operation); !valid.ok()) {
    return NN_ERROR(BAD_DATA) << nn::toString(operation.type) << ": " << valid.error().message;
  }
  model_.main.operations.push_back(std::move(operation));
  return {};
}

nn::Status ModelBuilder::identifyInputsAndOutputs(uint32_t inputCount, const uint32_t* inputs, uint32_t outputCount,
                                                  const uint32_t* outputs) {
  NN_TRY(checkModifiable());
  if (identified_) {
    // NNAPI lets a model name its inputs and outputs once (Android's runtime finds the operands
    // already inputs or outputs and returns BAD_DATA).
    return NN_ERROR(BAD_DATA) << "the model's inputs and outputs are already identified";
  }
  std::vector<uint32_t> newInputs(inputs, inputs + inputCount);
  std::vector<uint32_t> newOutputs(outputs, outputs + outputCount);
  std::set<uint32_t> seen;
  auto check = [&](const std::vector<uint32_t>& list, const char* role) -> nn::Status {
    for (uint32_t index : list) {
      NN_TRY(checkOperandIndex(index));
      if (!seen.insert(index).second) {
        return NN_ERROR(BAD_DATA) << "operand " << index << " is named more than once as a model input or output";
      }
      const LifeTime lifetime = model_.main.operands[index].lifetime;
      if (lifetime != LifeTime::TEMPORARY_VARIABLE) {
        return NN_ERROR(BAD_DATA) << "operand " << index << " is " << lifetimeName(lifetime) << " and cannot be a model "
                                  << role;
      }
    }
    return {};
  };
  NN_TRY(check(newInputs, "input"));
  NN_TRY(check(newOutputs, "output"));

  for (uint32_t index : newInputs) model_.main.operands[index].lifetime = LifeTime::SUBGRAPH_INPUT;
  for (uint32_t index : newOutputs) model_.main.operands[index].lifetime = LifeTime::SUBGRAPH_OUTPUT;
  model_.main.inputIndexes = std::move(newInputs);
  model_.main.outputIndexes = std::move(newOutputs);
  identified_ = true;
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
  out.extensionNameToPrefix = model_.extensionNameToPrefix;
  auto subgraphIndex = [&](uint32_t k) {
    const nn::Model& referenced = referenced_[k]->model;
    const size_t firstNew = out.referenced.size();
    const uint32_t index = copier.copySubgraph(referenced, referenced.main);
    // The referenced model numbered its extensions its own way: its types take this model's
    // prefixes for the same extensions.
    for (size_t i = firstNew; i < out.referenced.size(); ++i) {
      renumberExtensionTypes(out.referenced[i], referenced.extensionNameToPrefix, out.extensionNameToPrefix);
    }
    return index;
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
  nn::Result<std::shared_ptr<FinishedModel>> finished = validateAndFlatten();
  if (!finished.ok()) {
    invalid_ = true;
    return finished.error();
  }
  finished_ = std::move(finished).value();
  return {};
}

nn::Result<std::shared_ptr<FinishedModel>> ModelBuilder::validateAndFlatten() const {
  const nn::Subgraph& main = model_.main;
  // "Every model must have at least one input and one output" (NNAPI,
  // ANeuralNetworksModel_identifyInputsAndOutputs).
  if (main.inputIndexes.empty()) {
    return NN_ERROR(BAD_DATA) << "the model has no inputs (ANeuralNetworksModel_identifyInputsAndOutputs)";
  }
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
    if (nn::isExtension(operation.type)) continue;  // the devices' to judge
    if (nn::Status valid = nn::validateOperation(flat, flat.main, operation); !valid.ok()) {
      return NN_ERROR(BAD_DATA) << "operation " << finished->clientOperationIndex[i] << " ("
                                << nn::toString(operation.type) << "): " << valid.error().message;
    }
  }
  return finished;
}

}  // namespace weft::runtime
