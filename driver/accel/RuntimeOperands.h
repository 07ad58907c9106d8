// Filters and biases given at execution (model inputs, or tensors other operations compute)
// instead of as constants. The device keeps a layer's weights and parameters in the forms its
// units read (CommandGenerator.h's weight tiles, parameter rows); these commands build those
// forms on the device from the tensors' dense bytes in DRAM, before the layer runs, so nothing
// goes back to the host mid-execution. They are byte copies through the vector unit (LOAD,
// ELTWISE copy, STORE with the identity post-processing): a filter is transposed a byte per
// scratchpad row, which costs cycles in proportion to its size, reported with the layer. An fp16
// layer's filter is bytes like any other (two a value); its binary16 bias is widened to binary32
// on the way (ELTWISE fp16 add, STORE raw32).
#pragma once

#include <cstdint>
#include <vector>

#include "GemmLayer.h"
#include "MemoryPlan.h"
#include "Tiling.h"
#include "ops/EltwiseLayer.h"
#include "weft/hw/config.h"
#include "weft/nn/Result.h"

namespace weft::accel {

// Where a filter given at execution is read from (MemoryPlan.h's WeightSource): in place when the
// DMA can read its tiles as they are, a [K, N] matrix of bytes row by row or an [N, K] one
// (binary16 too) through the array's transposer (square weight-stationary arrays); otherwise
// from the weight image repackWeights builds. kImage for constant filters.
WeightSource runtimeWeightSource(const GemmLayer& layer, const hw::HwConfig& config);

// Whether `a` and the layer after it, `b`, are products of one BATCH_MATMUL that may run without
// a barrier between them (EmittedLayer::snapshotAfter), as far as the layers tell: `b` reads
// nothing `a` writes, neither has a bias given at execution, and `b`'s filter needs no repack
// (whose copies must follow a barrier). The plans must also agree (EmitProgram.cpp).
bool productsOverlap(const GemmLayer& a, const GemmLayer& b, const hw::HwConfig& config);

// The identity parameter row the copies' STOREs use (load it with EltwiseEmitter::begin).
std::vector<uint8_t> copyParamRow(const hw::HwConfig& config);

// Writes the filter (N x K dense bytes at `filter`, K in the layer's order; K x N with
// GemmLayer::runtimeWeightsKMajor) into the weight image of `plan` at `image` (whose other bytes
// already hold the zero point). [N, K] is transposed a byte a vector row; [K, N] is in the
// tiles' own order and copied Cols bytes a row.
nn::Status repackWeights(const GemmLayer& layer, const TilePlan& plan, uint64_t filter, uint64_t image,
                         const hw::HwConfig& config, EltwiseEmitter& emitter);

// Writes `channels` int32 biases (dense at `bias`) into the bias columns of parameter rows at
// `params` (row t holds channels [t*Cols, (t+1)*Cols)), leaving multipliers and shifts.
nn::Status repackBias(uint32_t channels, uint64_t bias, uint64_t params, const hw::HwConfig& config,
                      EltwiseEmitter& emitter);

// Writes `channels` binary16 biases (an fp16 layer's, dense at `bias`) into the bias columns of
// parameter rows at `params` as binary32, the datapath's bias type, `perRow` channels a row (Cols
// for the array's layers, Cols/2 for the vector unit's: WindowLayer's fp16Columns). `copyRow` is
// the identity parameter row the emitter began with: its bias column's zeros are the +0 added.
nn::Status repackFp16Bias(uint32_t channels, uint64_t bias, uint64_t params, uint32_t perRow, uint64_t copyRow,
                          const hw::HwConfig& config, EltwiseEmitter& emitter);

}  // namespace weft::accel
