// The operation families of the accelerator, one file each (ops/<Family>.cpp): each takes an
// NNAPI operation that its entry of Lowering.cpp's table routes to it, checks exactly what the
// hardware can do with its operands and parameters, and lowers it.
#pragma once

#include "../Lowering.h"
#include "OperationReader.h"

namespace weft::accel {

using LowerFn = nn::Result<LoweredOperation> (*)(const OperationReader& reader, uint32_t index, bool withValues);

// The array (GemmLayer).
nn::Result<LoweredOperation> lowerConv2d(const OperationReader& r, uint32_t index, bool withValues);
nn::Result<LoweredOperation> lowerFullyConnected(const OperationReader& r, uint32_t index, bool withValues);
// The vector unit (VectorLayer).
nn::Result<LoweredOperation> lowerDepthwiseConv2d(const OperationReader& r, uint32_t index, bool withValues);
nn::Result<LoweredOperation> lowerPool2d(const OperationReader& r, uint32_t index, bool withValues);
nn::Result<LoweredOperation> lowerMean(const OperationReader& r, uint32_t index, bool withValues);
nn::Result<LoweredOperation> lowerBinaryArithmetic(const OperationReader& r, uint32_t index, bool withValues);
nn::Result<LoweredOperation> lowerActivation(const OperationReader& r, uint32_t index, bool withValues);
nn::Result<LoweredOperation> lowerSoftmax(const OperationReader& r, uint32_t index, bool withValues);
nn::Result<LoweredOperation> lowerReshape(const OperationReader& r, uint32_t index, bool withValues);
nn::Result<LoweredOperation> lowerConcatenation(const OperationReader& r, uint32_t index, bool withValues);
nn::Result<LoweredOperation> lowerPad(const OperationReader& r, uint32_t index, bool withValues);

}  // namespace weft::accel
