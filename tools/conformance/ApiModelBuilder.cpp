#include "ApiModelBuilder.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstring>

#include <fmt/format.h>

namespace weft::test {
namespace {

using LifeTime = nn::Operand::LifeTime;

const char* resultName(int result) {
  static const char* const kNames[] = {"NO_ERROR", "OUT_OF_MEMORY", "INCOMPLETE", "UNEXPECTED_NULL", "BAD_DATA",
                                       "OP_FAILED", "BAD_STATE", "UNMAPPABLE", "OUTPUT_INSUFFICIENT_SIZE",
                                       "UNAVAILABLE_DEVICE", "MISSED_DEADLINE_TRANSIENT", "MISSED_DEADLINE_PERSISTENT",
                                       "RESOURCE_EXHAUSTED_TRANSIENT", "RESOURCE_EXHAUSTED_PERSISTENT", "DEAD_OBJECT"};
  return result >= 0 && result < 15 ? kNames[result] : "UNKNOWN";
}

size_t alignTo4(size_t offset) { return (offset + 3) & ~size_t{3}; }

}  // namespace

ApiModelBuilder::ApiModelBuilder(const TestModel& testModel)
    : testModel_(testModel),
      referenced_(testModel.referenced.size(), nullptr),
      building_(testModel.referenced.size(), 0) {
  if (!createConstantMemory()) return;
  main_ = build(testModel_.main, /*isMain=*/true);
}

ApiModelBuilder::~ApiModelBuilder() {
  for (ANeuralNetworksModel* model : owned_) ANeuralNetworksModel_free(model);
  ANeuralNetworksMemory_free(constants_);
  if (constantsFd_ >= 0) close(constantsFd_);
}

bool ApiModelBuilder::check(int result, const std::string& call) {
  if (result == ANEURALNETWORKS_NO_ERROR) return true;
  if (failure_.empty()) failure_ = call + " returned " + resultName(result);
  return false;
}

bool ApiModelBuilder::createConstantMemory() {
  // Lay out every CONSTANT_REFERENCE value of every subgraph in one memory.
  std::vector<const TestSubgraph*> subgraphs{&testModel_.main};
  for (const TestSubgraph& sg : testModel_.referenced) subgraphs.push_back(&sg);
  for (const TestSubgraph* sg : subgraphs) {
    std::vector<size_t> offsets(sg->operands.size(), 0);
    for (size_t i = 0; i < sg->operands.size(); ++i) {
      if (sg->operands[i].lifetime != LifeTime::CONSTANT_REFERENCE) continue;
      offsets[i] = alignTo4(constantsSize_);
      constantsSize_ = offsets[i] + sg->operands[i].data.size();
    }
    constantOffsets_.push_back(std::move(offsets));
  }
  if (constantsSize_ == 0) return true;
  constantsFd_ = memfd_create("weft-conformance-constants", 0);
  if (constantsFd_ < 0 || ftruncate(constantsFd_, static_cast<off_t>(constantsSize_)) != 0) {
    failure_ = "cannot create the constants' memfd";
    return false;
  }
  void* mapped = mmap(nullptr, constantsSize_, PROT_READ | PROT_WRITE, MAP_SHARED, constantsFd_, 0);
  if (mapped == MAP_FAILED) {
    failure_ = "cannot map the constants' memfd";
    return false;
  }
  for (size_t s = 0; s < subgraphs.size(); ++s) {
    for (size_t i = 0; i < subgraphs[s]->operands.size(); ++i) {
      const TestOperand& operand = subgraphs[s]->operands[i];
      if (operand.lifetime != LifeTime::CONSTANT_REFERENCE || operand.data.empty()) continue;
      std::memcpy(static_cast<uint8_t*>(mapped) + constantOffsets_[s][i], operand.data.data(), operand.data.size());
    }
  }
  munmap(mapped, constantsSize_);
  return check(ANeuralNetworksMemory_createFromFd(constantsSize_, PROT_READ, constantsFd_, 0, &constants_),
               "ANeuralNetworksMemory_createFromFd");
}

ANeuralNetworksModel* ApiModelBuilder::referencedModel(uint32_t index) {
  if (index >= referenced_.size()) {
    failure_ = "a SUBGRAPH operand names referenced subgraph " + std::to_string(index) + ", which does not exist";
    return nullptr;
  }
  if (referenced_[index] == nullptr) {
    if (building_[index] != 0) {
      failure_ = "referenced subgraphs refer to each other in a cycle";
      return nullptr;
    }
    building_[index] = 1;
    referenced_[index] = build(testModel_.referenced[index], /*isMain=*/false);
    building_[index] = 0;
  }
  return referenced_[index];
}

std::optional<int32_t> ApiModelBuilder::apiType(ANeuralNetworksModel* model, int32_t type, bool operation,
                                                const std::string& where) {
  if (!nn::isExtension(static_cast<nn::OperationType>(type))) return type;
  const uint16_t prefix = nn::getExtensionPrefix(type), code = nn::getTypeWithinExtension(type);
  const std::string* name = nn::extensionNameOf(testModel_.extensionNameToPrefix, prefix);
  if (name == nullptr) {
    failure_ = fmt::format("{}: type {} names extension prefix {}, which the model does not list", where, type, prefix);
    return std::nullopt;
  }
  int32_t apiType = 0;
  if (operation) {
    if (!check(ANeuralNetworksModel_getExtensionOperationType(model, name->c_str(), code, &apiType),
               fmt::format("ANeuralNetworksModel_getExtensionOperationType({}, {}) {}", *name, code, where))) {
      return std::nullopt;
    }
  } else if (!check(ANeuralNetworksModel_getExtensionOperandType(model, name->c_str(), code, &apiType),
                    fmt::format("ANeuralNetworksModel_getExtensionOperandType({}, {}) {}", *name, code, where))) {
    return std::nullopt;
  }
  return apiType;
}

ANeuralNetworksModel* ApiModelBuilder::build(const TestSubgraph& subgraph, bool isMain) {
  const size_t subgraphIndex = isMain ? 0 : static_cast<size_t>(&subgraph - testModel_.referenced.data()) + 1;
  ANeuralNetworksModel* model = nullptr;
  if (!check(ANeuralNetworksModel_create(&model), "ANeuralNetworksModel_create")) return nullptr;
  owned_.push_back(model);
  const std::string where = isMain ? "main" : "referenced " + std::to_string(subgraphIndex - 1);
  for (size_t i = 0; i < subgraph.operands.size(); ++i) {
    const TestOperand& operand = subgraph.operands[i];
    const std::string tag = "(" + where + " operand " + std::to_string(i) + ")";
    const std::optional<int32_t> typeCode = apiType(model, static_cast<int32_t>(operand.type), false, tag);
    if (!typeCode) return nullptr;
    const ANeuralNetworksOperandType type{*typeCode, static_cast<uint32_t>(operand.dimensions.size()),
                                          operand.dimensions.empty() ? nullptr : operand.dimensions.data(),
                                          operand.scale, operand.zeroPoint};
    if (!check(ANeuralNetworksModel_addOperand(model, &type), "ANeuralNetworksModel_addOperand" + tag)) return nullptr;
    const auto index = static_cast<int32_t>(i);
    if (operand.type == nn::OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL) {
      const ANeuralNetworksSymmPerChannelQuantParams params{
          operand.channelQuant.channelDim, static_cast<uint32_t>(operand.channelQuant.scales.size()),
          operand.channelQuant.scales.data()};
      if (!check(ANeuralNetworksModel_setOperandSymmPerChannelQuantParams(model, index, &params),
                 "ANeuralNetworksModel_setOperandSymmPerChannelQuantParams" + tag)) {
        return nullptr;
      }
    }
    switch (operand.lifetime) {
      case LifeTime::CONSTANT_COPY:
        // The value is copied or referenced; the TestModel outlives the model, as NNAPI requires.
        if (!check(ANeuralNetworksModel_setOperandValue(model, index, operand.data.empty() ? nullptr : operand.data.data(),
                                                        operand.data.size()),
                   "ANeuralNetworksModel_setOperandValue" + tag)) {
          return nullptr;
        }
        break;
      case LifeTime::CONSTANT_REFERENCE:
        if (!check(ANeuralNetworksModel_setOperandValueFromMemory(model, index, constants_,
                                                                  constantOffsets_[subgraphIndex][i],
                                                                  operand.data.size()),
                   "ANeuralNetworksModel_setOperandValueFromMemory" + tag)) {
          return nullptr;
        }
        break;
      case LifeTime::NO_VALUE:
        if (!check(ANeuralNetworksModel_setOperandValue(model, index, nullptr, 0),
                   "ANeuralNetworksModel_setOperandValue(NULL)" + tag)) {
          return nullptr;
        }
        break;
      case LifeTime::SUBGRAPH: {
        if (operand.data.size() < sizeof(uint32_t)) {
          failure_ = "SUBGRAPH operand without an index " + tag;
          return nullptr;
        }
        ANeuralNetworksModel* value = referencedModel(operand.data.at<uint32_t>(0));
        if (value == nullptr) return nullptr;
        if (!check(ANeuralNetworksModel_setOperandValueFromModel(model, index, value),
                   "ANeuralNetworksModel_setOperandValueFromModel" + tag)) {
          return nullptr;
        }
        break;
      }
      default:
        break;
    }
  }
  for (size_t k = 0; k < subgraph.operations.size(); ++k) {
    const TestOperation& operation = subgraph.operations[k];
    const std::optional<int32_t> typeCode =
        apiType(model, static_cast<int32_t>(operation.type), true, fmt::format("({} operation {})", where, k));
    if (!typeCode) {
      if (isMain) failedOperation_ = k;
      return nullptr;
    }
    if (!check(ANeuralNetworksModel_addOperation(model, *typeCode,
                                                 static_cast<uint32_t>(operation.inputs.size()), operation.inputs.data(),
                                                 static_cast<uint32_t>(operation.outputs.size()),
                                                 operation.outputs.data()),
               "ANeuralNetworksModel_addOperation(" + testModel_.operationName(operation.type) + ", " + where +
                   " operation " + std::to_string(k) + ")")) {
      if (isMain) failedOperation_ = k;
      return nullptr;
    }
  }
  if (!check(ANeuralNetworksModel_identifyInputsAndOutputs(
                 model, static_cast<uint32_t>(subgraph.inputIndexes.size()), subgraph.inputIndexes.data(),
                 static_cast<uint32_t>(subgraph.outputIndexes.size()), subgraph.outputIndexes.data()),
             "ANeuralNetworksModel_identifyInputsAndOutputs(" + where + ")")) {
    return nullptr;
  }
  if (isMain && !check(ANeuralNetworksModel_relaxComputationFloat32toFloat16(model, testModel_.isRelaxed),
                       "ANeuralNetworksModel_relaxComputationFloat32toFloat16")) {
    return nullptr;
  }
  if (!check(ANeuralNetworksModel_finish(model), "ANeuralNetworksModel_finish(" + where + ")")) return nullptr;
  return model;
}

}  // namespace weft::test
