#include "MemoryDescBuilder.h"

#include <cmath>

#include "CompilationBuilder.h"
#include "OperandTypes.h"

namespace weft::runtime {
namespace {

bool sameExtraParams(const nn::ExtraParams& a, const nn::ExtraParams& b) {
  if (a.index() != b.index()) return false;
  if (const auto* pa = std::get_if<nn::SymmPerChannelQuantParams>(&a)) {
    const auto& pb = std::get<nn::SymmPerChannelQuantParams>(b);
    return pa->channelDim == pb.channelDim && pa->scales == pb.scales;
  }
  if (const auto* pa = std::get_if<std::vector<uint8_t>>(&a)) return *pa == std::get<std::vector<uint8_t>>(b);
  return true;
}

}  // namespace

nn::Status MemoryDescBuilder::checkModifiable() const {
  if (finished_) return NN_ERROR(BAD_STATE) << "the memory descriptor is finished and can no longer be modified";
  return {};
}

nn::Status MemoryDescBuilder::addRole(const CompilationBuilder& compilation, IoType io, uint32_t index,
                                      float frequency) {
  NN_TRY(checkModifiable());
  const char* what = io == IoType::kInput ? "input" : "output";
  // BAD_DATA for an unfinished or failed compilation alike, as in Android (the compilation has no
  // step to give the role to).
  if (!compilation.checkUsable("a memory role").ok()) {
    return NN_ERROR(BAD_DATA) << "the compilation did not finish successfully";
  }
  const nn::Subgraph& main = compilation.mainSubgraph();
  const std::vector<uint32_t>& list = io == IoType::kInput ? main.inputIndexes : main.outputIndexes;
  if (index >= list.size()) {
    return NN_ERROR(BAD_DATA) << what << " index " << static_cast<int32_t>(index) << " is out of range (the model has "
                              << list.size() << " " << what << "s)";
  }
  if (!(frequency > 0.0f && frequency <= 1.0f)) {
    return NN_ERROR(BAD_DATA) << "frequency " << frequency << " is outside (0.0, 1.0]";
  }
  const MemoryRole role{&compilation, io, index};
  if (description_.roles.count(role) != 0) {
    return NN_ERROR(BAD_DATA) << "the descriptor already has the role of " << what << " " << index
                              << " of this compilation";
  }
  const nn::Operand& operand = main.operands[list[index]];
  if (operand_.has_value()) {
    const bool sameType = operand.type == operand_->type && operand.scale == operand_->scale &&
                          operand.zeroPoint == operand_->zeroPoint && sameExtraParams(operand.extraParams, operand_->extraParams);
    if (!sameType) {
      return NN_ERROR(BAD_DATA) << what << " " << index << " (" << nn::toString(operand.type)
                                << ") differs in type or quantization from the descriptor's other roles";
    }
  }
  nn::Result<nn::Dimensions> dimensions = combine(description_.dimensions, operand.dimensions);
  if (!dimensions.ok()) return dimensions.error();
  nn::Result<nn::OperandTypeInfo> info = typeInfo(compilation.model().model, operand.type);
  if (!info.ok()) return info.error();
  if (!operand_.has_value()) operand_ = operand;
  description_.typeInfo = *info;
  description_.operand = *operand_;
  description_.dimensions = std::move(dimensions).value();
  description_.roles.insert(role);
  return {};
}

nn::Status MemoryDescBuilder::setDimensions(const nn::Dimensions& dimensions) {
  NN_TRY(checkModifiable());
  if (operand_.has_value() && !description_.typeInfo.isTensor && !dimensions.empty()) {
    return NN_ERROR(BAD_DATA) << "the roles are scalars: the rank must be 0";
  }
  nn::Result<nn::Dimensions> combined = combine(description_.dimensions, dimensions);
  if (!combined.ok()) return combined.error();
  description_.dimensions = std::move(combined).value();
  return {};
}

nn::Status MemoryDescBuilder::finish() {
  NN_TRY(checkModifiable());
  if (description_.roles.empty()) return NN_ERROR(BAD_DATA) << "the descriptor has no role (addInputRole, addOutputRole)";
  finished_ = true;
  return {};
}

}  // namespace weft::runtime
