// ANeuralNetworksOperandType: validation (the NNAPI rules for each operand type) and conversion
// to the canonical nn::Operand, plus the dimension arithmetic the runtime needs.
#pragma once

#include <optional>
#include <string>

#include "android/NeuralNetworksTypes.h"
#include "weft/nn/Result.h"
#include "weft/nn/Types.h"

namespace weft::runtime {

// Extension operand and operation types carry an extension prefix in their high 16 bits.
inline bool isExtensionType(int32_t type) { return (static_cast<uint32_t>(type) >> 16) != 0; }

// True for the OperandCode values this runtime knows (0 .. ANEURALNETWORKS_MODEL).
bool isKnownOperandCode(int32_t type);

// The NNAPI rules: a known type; no dimensions for scalars; for tensors, no zero dimension
// unless `allowUnspecified`; scale > 0 and the zero point's range for quantized types, scale
// and zero point 0 for the others (TENSOR_INT32 may carry a bias scale); finite scale.
nn::Status validateOperandType(const ANeuralNetworksOperandType& type, bool allowUnspecified);

nn::Dimensions dimensionsOf(const ANeuralNetworksOperandType& type);

// The canonical operand of a validated type (lifetime TEMPORARY_VARIABLE).
nn::Operand toOperand(const ANeuralNetworksOperandType& type);

// Dimensions are compatible when their ranks are unknown or equal and every axis known in
// both agrees. combine() is the most specific dimensions compatible with both.
bool areCompatible(const nn::Dimensions& a, const nn::Dimensions& b);
nn::Result<nn::Dimensions> combine(const nn::Dimensions& a, const nn::Dimensions& b);

// True when a tensor's size can be computed (known rank, no zero dimension); always true for
// scalars.
bool hasKnownSize(const nn::Operand& operand);

// Byte size for `dimensions` of the operand's type, or nullopt on overflow beyond 32 bits
// (NNAPI lengths are 32-bit).
std::optional<uint32_t> byteSize(nn::OperandType type, const nn::Dimensions& dimensions);

std::string toString(const nn::Dimensions& dimensions);

}  // namespace weft::runtime
