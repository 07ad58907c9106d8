// The operation families of the accelerator, one file each (ops/<Family>.cpp): each takes an
// NNAPI operation that its entry of Lowering.cpp's table routes to it, checks exactly what the
// hardware can do with its operands and parameters, and lowers it.
#pragma once

#include <optional>

#include "../Lowering.h"
#include "OperationReader.h"

namespace weft::accel {

// org.weft.accel's operation code (weft/WeftExtension.h) of `type` in `model`, when `type` is one
// of that extension's: an extension operation's type differs per model (its prefix).
std::optional<uint16_t> weftExtensionCode(const nn::Model& model, nn::OperationType type);

using LowerFn = nn::Result<LoweredOperation> (*)(const OperationReader& reader, uint32_t index, bool withValues);

// The array (GemmLayer).
nn::Result<LoweredOperation> lowerConv2d(const OperationReader& r, uint32_t index, bool withValues);
nn::Result<LoweredOperation> lowerGroupedConv2d(const OperationReader& r, uint32_t index, bool withValues);
nn::Result<LoweredOperation> lowerFullyConnected(const OperationReader& r, uint32_t index, bool withValues);
// BATCH_MATMUL, both operands activations: a layer per product (ops/BatchMatmul.cpp).
nn::Result<LoweredOperation> lowerBatchMatmul(const OperationReader& r, uint32_t index, bool withValues);
// org.weft.accel's WEFT_MATMUL_INT32 (ops/WeftMatmul.cpp).
nn::Result<LoweredOperation> lowerWeftMatmulInt32(const OperationReader& r, uint32_t index, bool withValues);
// The vector unit (VectorLayer).
nn::Result<LoweredOperation> lowerDepthwiseConv2d(const OperationReader& r, uint32_t index, bool withValues);
nn::Result<LoweredOperation> lowerPool2d(const OperationReader& r, uint32_t index, bool withValues);
nn::Result<LoweredOperation> lowerMean(const OperationReader& r, uint32_t index, bool withValues);
// REDUCE_MAX over adjacent axes: MEAN's window, the largest value (ops/Pooling.cpp).
nn::Result<LoweredOperation> lowerReduceMax(const OperationReader& r, uint32_t index, bool withValues);
nn::Result<LoweredOperation> lowerBinaryArithmetic(const OperationReader& r, uint32_t index, bool withValues);
// RELU, RELU1, RELU6, LOGISTIC, TANH, RSQRT (8-bit) and org.weft.accel's WEFT_GELU and WEFT_UNARY (8-bit).
nn::Result<LoweredOperation> lowerActivation(const OperationReader& r, uint32_t index, bool withValues);
nn::Result<LoweredOperation> lowerSoftmax(const OperationReader& r, uint32_t index, bool withValues);
// org.weft.accel's WEFT_LAYER_NORM (LAYER_NORM commands).
nn::Result<LoweredOperation> lowerLayerNorm(const OperationReader& r, uint32_t index, bool withValues);
nn::Result<LoweredOperation> lowerReshape(const OperationReader& r, uint32_t index, bool withValues);
nn::Result<LoweredOperation> lowerConcatenation(const OperationReader& r, uint32_t index, bool withValues);
nn::Result<LoweredOperation> lowerPad(const OperationReader& r, uint32_t index, bool withValues);
// TRANSPOSE, CHANNEL_SHUFFLE, SLICE and GATHER (constant indices): strided copies (StridedCopy.h).
nn::Result<LoweredOperation> lowerTranspose(const OperationReader& r, uint32_t index, bool withValues);
nn::Result<LoweredOperation> lowerChannelShuffle(const OperationReader& r, uint32_t index, bool withValues);
nn::Result<LoweredOperation> lowerSlice(const OperationReader& r, uint32_t index, bool withValues);
nn::Result<LoweredOperation> lowerStridedSlice(const OperationReader& r, uint32_t index, bool withValues);
nn::Result<LoweredOperation> lowerGather(const OperationReader& r, uint32_t index, bool withValues);
// RESIZE_NEAREST_NEIGHBOR: a strided copy a phase of its sampling (ops/Resize.cpp).
nn::Result<LoweredOperation> lowerResizeNearest(const OperationReader& r, uint32_t index, bool withValues);
// DEPTH_TO_SPACE and SPACE_TO_DEPTH: strided copies of the blocks (ops/Transpose.cpp).
nn::Result<LoweredOperation> lowerDepthToSpace(const OperationReader& r, uint32_t index, bool withValues);
nn::Result<LoweredOperation> lowerSpaceToDepth(const OperationReader& r, uint32_t index, bool withValues);
// MIRROR_PAD (REFLECT or SYMMETRIC, constant paddings): the input copied into the output's middle
// and each padded row, column or plane copied from the one it mirrors (ops/Transpose.cpp).
nn::Result<LoweredOperation> lowerMirrorPad(const OperationReader& r, uint32_t index, bool withValues);
// TRANSPOSE_CONV_2D: a CONV_2D layer a phase of its output (ops/TransposeConvolution.cpp).
nn::Result<LoweredOperation> lowerTransposeConv2d(const OperationReader& r, uint32_t index, bool withValues);
// RESIZE_BILINEAR (8-bit) whose weights are whole sixteenths: a depthwise window a phase of its
// sampling (ops/ResizeBilinear.cpp).
nn::Result<LoweredOperation> lowerResizeBilinear(const OperationReader& r, uint32_t index, bool withValues);

}  // namespace weft::accel
