#include "OperandTypes.h"

#include <cmath>

#include "DeviceManager.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace weft::runtime {

using nn::OperandType;

bool isKnownOperandCode(int32_t type) { return type >= ANEURALNETWORKS_FLOAT32 && type <= ANEURALNETWORKS_MODEL; }

namespace {

// The specified (non-zero) dimensions of `dimensions`.
nn::Dimensions nonZero(const nn::Dimensions& dimensions) {
  nn::Dimensions known;
  for (uint32_t d : dimensions) {
    if (d != 0) known.push_back(d);
  }
  return known;
}

nn::Status checkZeroPointRange(const ANeuralNetworksOperandType& type, int32_t low, int32_t high) {
  if (type.zeroPoint < low || type.zeroPoint > high) {
    return NN_ERROR(BAD_DATA) << nn::toString(static_cast<OperandType>(type.type)) << " zeroPoint "
                              << type.zeroPoint << " is outside [" << low << ", " << high << "]";
  }
  return {};
}

nn::Status checkPositiveScale(const ANeuralNetworksOperandType& type) {
  if (!(type.scale > 0.0f) || !std::isfinite(type.scale)) {
    return NN_ERROR(BAD_DATA) << nn::toString(static_cast<OperandType>(type.type)) << " scale " << type.scale
                              << " must be finite and greater than 0";
  }
  return {};
}

nn::Status checkNoQuantization(const ANeuralNetworksOperandType& type) {
  if (type.scale != 0.0f || type.zeroPoint != 0) {
    return NN_ERROR(BAD_DATA) << nn::toString(static_cast<OperandType>(type.type)) << " must have scale 0 and "
                              << "zeroPoint 0, got scale " << type.scale << " and zeroPoint " << type.zeroPoint;
  }
  return {};
}

nn::Status validateQuantization(const ANeuralNetworksOperandType& type) {
  switch (static_cast<OperandType>(type.type)) {
    case OperandType::TENSOR_QUANT8_ASYMM:
      NN_TRY(checkPositiveScale(type));
      return checkZeroPointRange(type, 0, 255);
    case OperandType::TENSOR_QUANT8_ASYMM_SIGNED:
      NN_TRY(checkPositiveScale(type));
      return checkZeroPointRange(type, -128, 127);
    case OperandType::TENSOR_QUANT16_ASYMM:
      NN_TRY(checkPositiveScale(type));
      return checkZeroPointRange(type, 0, 65535);
    case OperandType::TENSOR_QUANT8_SYMM:
    case OperandType::TENSOR_QUANT16_SYMM:
      NN_TRY(checkPositiveScale(type));
      return checkZeroPointRange(type, 0, 0);
    case OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL:
      // The scales come from ANeuralNetworksModel_setOperandSymmPerChannelQuantParams.
      return checkNoQuantization(type);
    case OperandType::TENSOR_INT32:
      // A quantized bias carries the scale input_scale * filter_scale.
      if (!(type.scale >= 0.0f) || !std::isfinite(type.scale)) {
        return NN_ERROR(BAD_DATA) << "TENSOR_INT32 scale " << type.scale << " must be finite and >= 0";
      }
      return {};
    default:
      return checkNoQuantization(type);
  }
}

// What validateOperandType checks of an extension type: shape rules from its extension, no
// quantization parameters (Android's validateOperandTypeHelper).
nn::Status validateExtensionOperandType(const ANeuralNetworksOperandType& type, bool allowUnspecified,
                                        const nn::OperandTypeInfo* info) {
  if (info == nullptr) {
    return NN_ERROR(BAD_DATA) << "operand type " << type.type << " is not a type of an extension of this model "
                              << "that a device supports";
  }
  if ((type.dimensionCount == 0) != (type.dimensions == nullptr)) {
    return NN_ERROR(BAD_DATA) << "dimensions must be NULL exactly when dimensionCount is 0";
  }
  if (!info->isTensor && type.dimensionCount != 0) {
    return NN_ERROR(BAD_DATA) << "extension operand type " << type.type << " is a scalar: no dimensions";
  }
  const nn::Dimensions dimensions = dimensionsOf(type);
  if (info->isTensor && !allowUnspecified && !hasKnownSize(*info, dimensions)) {
    return NN_ERROR(BAD_DATA) << "extension operand type " << type.type << " must be fully specified here";
  }
  if (!byteSize(*info, nonZero(dimensions)).has_value()) {
    return NN_ERROR(BAD_DATA) << "extension operand type " << type.type << " " << toString(dimensions)
                              << " needs more than 4 GiB (NNAPI sizes are 32-bit)";
  }
  if (type.scale != 0.0f || type.zeroPoint != 0) {
    return NN_ERROR(BAD_DATA) << "extension operand types have no scale or zero point (their extension data "
                              << "says what they mean), got scale " << type.scale << " and zeroPoint "
                              << type.zeroPoint;
  }
  return {};
}

}  // namespace

nn::Status validateOperandType(const ANeuralNetworksOperandType& type, bool allowUnspecified,
                               const nn::OperandTypeInfo* extensionInfo) {
  if (isExtensionType(type.type)) return validateExtensionOperandType(type, allowUnspecified, extensionInfo);
  if (!isKnownOperandCode(type.type)) {
    return NN_ERROR(BAD_DATA) << "invalid operand type " << type.type;
  }
  if ((type.dimensionCount == 0) != (type.dimensions == nullptr)) {
    return NN_ERROR(BAD_DATA) << "dimensions must be NULL exactly when dimensionCount is 0 (dimensionCount "
                              << type.dimensionCount << ")";
  }
  const auto operandType = static_cast<OperandType>(type.type);
  if (!nn::isTensor(operandType)) {
    if (type.dimensionCount != 0) {
      return NN_ERROR(BAD_DATA) << "scalar type " << nn::toString(operandType) << " must have no dimensions, got "
                                << type.dimensionCount;
    }
  } else {
    if (!allowUnspecified) {
      if (type.dimensionCount == 0) {
        return NN_ERROR(BAD_DATA) << nn::toString(operandType) << " must have a known rank here";
      }
      for (uint32_t i = 0; i < type.dimensionCount; ++i) {
        if (type.dimensions[i] == 0) {
          return NN_ERROR(BAD_DATA) << nn::toString(operandType) << " dimension " << i
                                    << " must be specified (non-zero) here";
        }
      }
    }
    // NNAPI sizes are 32-bit: the known dimensions alone must not need more (as Android's
    // validateTensorDimensions), or every later size computation would wrap.
    if (!byteSize(operandType, nonZero(dimensionsOf(type))).has_value()) {
      return NN_ERROR(BAD_DATA) << nn::toString(operandType) << " " << toString(dimensionsOf(type))
                                << " needs more than 4 GiB (NNAPI sizes are 32-bit)";
    }
  }
  return validateQuantization(type);
}

nn::Dimensions dimensionsOf(const ANeuralNetworksOperandType& type) {
  if (type.dimensionCount == 0 || type.dimensions == nullptr) return {};
  return nn::Dimensions(type.dimensions, type.dimensions + type.dimensionCount);
}

nn::Operand toOperand(const ANeuralNetworksOperandType& type) {
  nn::Operand operand;
  operand.type = static_cast<OperandType>(type.type);
  operand.dimensions = dimensionsOf(type);
  operand.scale = type.scale;
  operand.zeroPoint = type.zeroPoint;
  operand.lifetime = nn::Operand::LifeTime::TEMPORARY_VARIABLE;
  return operand;
}

bool areCompatible(const nn::Dimensions& a, const nn::Dimensions& b) { return combine(a, b).ok(); }

nn::Result<nn::Dimensions> combine(const nn::Dimensions& a, const nn::Dimensions& b) {
  if (a.empty()) return b;
  if (b.empty()) return a;
  if (a.size() != b.size()) {
    return NN_ERROR(BAD_DATA) << "incompatible ranks: " << toString(a) << " and " << toString(b);
  }
  nn::Dimensions result = a;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i] != 0 && b[i] != 0 && a[i] != b[i]) {
      return NN_ERROR(BAD_DATA) << "incompatible dimensions: " << toString(a) << " and " << toString(b);
    }
    if (result[i] == 0) result[i] = b[i];
  }
  return result;
}

nn::Result<nn::OperandTypeInfo> typeInfo(const nn::Model& model, nn::OperandType type) {
  const std::optional<nn::OperandTypeInfo> info =
      nn::operandTypeInfo(type, model.extensionNameToPrefix, DeviceManager::get().extensions());
  if (!info.has_value()) {
    return NN_ERROR(BAD_DATA) << "operand type " << static_cast<int32_t>(type) << " is not a type of this model";
  }
  return *info;
}

std::optional<uint32_t> byteSize(const nn::OperandTypeInfo& info, const nn::Dimensions& dimensions) {
  uint64_t size = info.elementSize;
  if (!info.isTensor) return static_cast<uint32_t>(size);
  for (uint32_t d : dimensions) {
    size *= d;
    if (size > UINT32_MAX) return std::nullopt;
  }
  return static_cast<uint32_t>(size);
}

bool hasKnownSize(const nn::OperandTypeInfo& info, const nn::Dimensions& dimensions) {
  if (!info.isTensor) return true;
  if (dimensions.empty()) return false;
  for (uint32_t d : dimensions) {
    if (d == 0) return false;
  }
  return true;
}

bool hasKnownSize(const nn::Operand& operand) {
  return !nn::isTensor(operand.type) || nn::isFullySpecified(operand.type, operand.dimensions);
}

std::optional<uint32_t> byteSize(nn::OperandType type, const nn::Dimensions& dimensions) {
  uint64_t size = nn::sizeOfElement(type);
  for (uint32_t d : dimensions) {
    size *= d;
    if (size > UINT32_MAX) return std::nullopt;
  }
  return static_cast<uint32_t>(size);
}

std::string toString(const nn::Dimensions& dimensions) { return fmt::format("[{}]", fmt::join(dimensions, ", ")); }

}  // namespace weft::runtime
