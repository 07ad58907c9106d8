// Float views of tensors for the operations NNAPI's reference computes in float32 whatever the
// operand type (the detection and box operations, heatmaps, ROI pooling): float16 is widened,
// quantized types are dequantized, and the float result is narrowed back with NNAPI's own rounding.
//
//   std::vector<float> rois = inputAsFloat(context, kRoiTensor);
//   ...compute in float...
//   writeOutputFromFloat(context, kOutputTensor, result.data(), result.size());
//
// The rounding is that of the reference's convertFloat32ToQuant, round(x / scale + zeroPoint),
// which differs from QUANTIZE's zeroPoint + round(x / scale) on negative halves.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "weft/kernels/OperationResolver.h"

namespace weft::nn {

// True for the tensor types inputAsFloat / writeOutputFromFloat accept.
bool hasFloatView(OperandType type);

// (q - zeroPoint) * scale, computed in float as the reference does.
template <typename T>
float dequantizeToFloat(T q, float scale, int32_t zeroPoint) {
  return (static_cast<float>(q) - static_cast<float>(zeroPoint)) * scale;
}

// round(x / scale + zeroPoint) saturated to T.
template <typename T>
T quantizeFromFloat(float x, float scale, int32_t zeroPoint);

// Every element of input `index` as float: TENSOR_FLOAT32, TENSOR_FLOAT16, and the quantized
// 8- and 16-bit types (dequantized with the operand's scale and zero point).
std::vector<float> inputAsFloat(const IOperationExecutionContext* context, uint32_t index);

// A FLOAT32 or FLOAT16 scalar input as float (the box operations take FLOAT16 parameters with
// float16 tensors).
float scalarAsFloat(const IOperationExecutionContext* context, uint32_t index);

// Writes `count` floats into output `index` (whose shape must already be set), converting to its
// type with the output operand's quantization.
Status writeOutputFromFloat(IOperationExecutionContext* context, uint32_t index, const float* values,
                            size_t count);

}  // namespace weft::nn
