// Lookup tables for the vector unit, computed by NNAPI's reference kernels themselves
// (kernels_ref), so the accelerator's results are bit-identical to them by construction:
//  - a unary 8-bit operation (RELU, RELU1, RELU6, LOGISTIC, TANH, WEFT_GELU, the requantization a
//    CONCATENATION does) is its output for each of the 256 input bytes;
//  - SOFTMAX's exponentials exp(-d) for d = max - x, in the fixed-point form (Q0.31) and with the
//    input multiplier TFLite's quantized softmax uses, and how many distances count.
// Binaries that link weft_accel link weft_kernels (the reference kernels) too.
#pragma once

#include <cstdint>
#include <vector>

#include "weft/nn/Result.h"
#include "weft/nn/Types.h"

namespace weft::accel {

// Entry b (0..255) is the raw output (sign-extended for a signed type) for the input byte b of
// `operation` applied to a [256] tensor of `input`'s type and quantization, giving `output`'s.
// Extra scalar inputs of the operation follow as `scalars` (INT32 operands); an extension
// operation's type is read with `extensions`, the prefixes of the model it comes from. `dims`
// (256 elements) shapes the tensor for an operation that wants another rank (a 1x1 image of 256
// channels for a resize).
// `constants` are constant tensor inputs that come right after input 0 (PRELU's one slope), each
// an operand and its bytes.
struct ConstantInput {
  nn::Operand operand;
  std::vector<uint8_t> bytes;
};
nn::Result<std::vector<int32_t>> unaryTable(nn::OperationType operation, const nn::Operand& input,
                                            const nn::Operand& output, const std::vector<int32_t>& scalars = {},
                                            const std::vector<nn::ExtensionNameAndPrefix>& extensions = {},
                                            const nn::Dimensions& dims = {256},
                                            const std::vector<ConstantInput>& constants = {});

struct SoftmaxTable {
  std::vector<int32_t> exp;  // entry d: exp(-d * beta * scale) as the reference computes it (Q0.31)
  uint32_t length = 0;       // distances d < length take part (the reference's diff_min)
};
nn::Result<SoftmaxTable> softmaxTable(float beta, float inputScale);

}  // namespace weft::accel
