// The vendor extensions the reference kernels implement (NNAPI extensions: operand and operation
// types named by an extension and a code within it). Their operations are registered like the
// others (NN_REGISTER_EXTENSION_OPERATION, OperationResolver.h); their operand types are
// described here, so that a device running the kernels can declare the extension (hal::IDevice::
// getSupportedExtensions) and the executor can size their operands.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "weft/nn/Types.h"

namespace weft::nn {

// org.weft.accel, as the public header weft/WeftExtension.h (driver/include) defines it for
// clients; kernels_ref cannot include that header (it is the driver's), so the values are
// repeated here and tests/runtime/extension_test.cpp checks that the two agree.
namespace weft_extension {
inline constexpr std::string_view kName = "org.weft.accel";
inline constexpr uint16_t kTensorInt32Accumulator = 0;  // WEFT_TENSOR_INT32_ACCUMULATOR
inline constexpr uint16_t kMatmulInt32 = 0;             // WEFT_MATMUL_INT32
inline constexpr uint16_t kLayerNorm = 1;               // WEFT_LAYER_NORM
inline constexpr uint16_t kGelu = 2;                    // WEFT_GELU
inline constexpr int32_t kGeluExact = 0;                // WEFT_GELU_EXACT
inline constexpr int32_t kGeluTanh = 1;                 // WEFT_GELU_TANH
inline constexpr uint16_t kUnary = 3;                   // WEFT_UNARY
// WEFT_UNARY's functions (WEFT_UNARY_EXP ... WEFT_UNARY_SOFTPLUS).
inline constexpr int32_t kExp = 0, kLog = 1, kSqrt = 2, kAbs = 3, kSin = 4, kNeg = 5, kSoftplus = 6,
                         kReciprocal = 7;
inline constexpr int32_t kUnaryFunctions = 8;
struct AccumulatorParams {                              // WeftAccumulatorParams
  float scale;
};
}  // namespace weft_extension

namespace weft_gelu {
// WEFT_GELU's function in double precision, exact (erf) or tanh form: what its 8-bit kernel
// requantizes, and what the accelerator's float16 lookup pieces interpolate.
double gelu(double x, bool tanhForm);
}  // namespace weft_gelu

namespace weft_unary {
// WEFT_UNARY's function `f` (weft_extension::kExp ...) of x in double precision: what its
// 8-bit kernel requantizes.
double apply(int32_t f, double x);
// Its name ("EXP", ...), or nullptr for a value that is no function.
const char* name(int32_t f);
}  // namespace weft_unary

// Every extension the kernels implement, with its operand types.
const std::vector<Extension>& referenceExtensions();

// The size rules of `type` in `model`: the base types' own, or for an extension type those of
// the extension the model's prefix names, when the kernels implement it. nullopt otherwise.
std::optional<OperandTypeInfo> operandTypeInfo(const Model& model, OperandType type);

}  // namespace weft::nn
