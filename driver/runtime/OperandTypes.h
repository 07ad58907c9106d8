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
// unless `allowUnspecified` and no more than 4 GiB for the known ones; scale > 0 and the zero
// point's range for quantized types, scale and zero point 0 for the others (TENSOR_INT32 may
// carry a bias scale); finite scale. An extension type is judged by `extensionInfo` (what its
// extension says: tensor or scalar, element size; BAD_DATA when NULL) and has no quantization.
nn::Status validateOperandType(const ANeuralNetworksOperandType& type, bool allowUnspecified,
                               const nn::OperandTypeInfo* extensionInfo = nullptr);

// The size rules of `type` in `model`: a base type's own, or for an extension type those of the
// extension the model's prefix names, as the devices declare it. BAD_DATA when no one defines it.
nn::Result<nn::OperandTypeInfo> typeInfo(const nn::Model& model, nn::OperandType type);
// Bytes of a value of `info` with `dimensions`, nullopt beyond 32 bits (or 0 when unknown).
std::optional<uint32_t> byteSize(const nn::OperandTypeInfo& info, const nn::Dimensions& dimensions);
// A scalar, or a tensor of known rank without a zero dimension.
bool hasKnownSize(const nn::OperandTypeInfo& info, const nn::Dimensions& dimensions);

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
