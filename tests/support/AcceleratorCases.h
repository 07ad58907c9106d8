// Which AOSP corpus cases are the accelerator's: every operation one it runs (the array's
// CONV_2D and FULLY_CONNECTED; the vector unit's DEPTHWISE_CONV_2D, pools, MEAN, ADD/SUB/MUL,
// RELU/RELU1/RELU6, LOGISTIC, TANH, RSQRT, SOFTMAX, PAD/PAD_V2, CONCATENATION, RESHAPE; BATCH_MATMUL on
// the array; TRANSPOSE, SLICE, GATHER and RESIZE_NEAREST_NEIGHBOR with constant parameters on the
// vector unit; RESIZE_BILINEAR with constant parameters whose weights are whole sixteenths;
// TRANSPOSE_CONV_2D with constant filter, bias and parameters on the array; DEPTH_TO_SPACE and
// SPACE_TO_DEPTH with a constant block, strided copies; MIRROR_PAD with constant paddings, a
// copy a mirrored index; REDUCE_MAX with constant axes, MEAN's window; PRELU of one constant
// slope, a lookup table) on 8-bit
// quantized data (each operation's first input and its outputs; int32 tensors only as
// parameters: biases, shapes, paddings, axes), no control flow. Both conformance suites (the
// C API's and the HAL's) take this set.
#pragma once

#include <string>

#include "TestModel.h"

namespace weft::test {

bool isAcceleratorCase(const TestModel& model);

// The cases the fp16 datapath (a configuration with Fp16 1, weft16fp) claims: every operation
// on TENSOR_FLOAT16 (its first input and outputs), or on TENSOR_FLOAT32 in a relaxed model, and
// one of CONV_2D, FULLY_CONNECTED and DEPTHWISE_CONV_2D (constant filter and bias; any depth
// multiplier), AVERAGE_POOL_2D, MAX_POOL_2D, MEAN (constant axes), RELU, RELU1, RELU6, LOGISTIC,
// TANH, ADD, SUB, MUL, CONCATENATION, PAD and RESHAPE (constant paddings and shapes), PAD_V2 (a
// constant border of one byte twice), BATCH_MATMUL, TRANSPOSE, SLICE, GATHER and
// RESIZE_NEAREST_NEIGHBOR, DEPTH_TO_SPACE, SPACE_TO_DEPTH, MIRROR_PAD, REDUCE_MAX (constant permutation, box, indices,
// size, block, paddings, axes and flags); NHWC or NCHW; no
// control flow.
bool isAcceleratorFp16Case(const TestModel& model);

}  // namespace weft::test
