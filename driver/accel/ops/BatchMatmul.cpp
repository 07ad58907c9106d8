// BATCH_MATMUL (NNAPI feature level 6) on the systolic array: out[b] = lhs'[b] x rhs'[b] for
// every batch index b of the leading dimensions, requantized by lhs.scale * rhs.scale /
// out.scale as the reference kernel (kernels_ref/ops/BatchMatmul.cpp) does.
//
// Both operands are activations (Q.K^T and attention.V): the product of batch index b is one
// GemmLayer, as FULLY_CONNECTED's with its weights given at execution: lhs[b] is the layer's
// input (M pixels of K bytes, read in place at its offset in the lhs tensor), rhs[b] its filter,
// which the device repacks into the layer's weight image before the layer runs
// (RuntimeOperands.h), and out[b] its output at its offset. A batch is B layers rather than one:
// a GemmLayer has one filter, and B layers of one shape share one tiling search (SearchKey).
//
// The array wants its weights as tile rows of Cols output channels at one K index:
//   adj_y false: rhs[b] is [K, N], already in that order: the repack copies Cols bytes a row;
//   adj_y true:  rhs[b] is [N, K] (FULLY_CONNECTED's order): the repack transposes it a byte a
//                vector row, which costs cycles in proportion to N x K (reported with the layer).
// adj_x (lhs given [K, M]) needs lhs as M pixels of K bytes before the array reads it: a first
// layer on the vector unit (StridedCopy.h) writes lhs[b] transposed into an intermediate tensor,
// a byte a vector row as the adj_y repack (no unit moves bytes across lanes faster), and the
// products read that.
//
// Float16 (TENSOR_FLOAT16, or relaxed TENSOR_FLOAT32 kept as binary16) runs the same layers on the
// fp16 datapath: K, offsets and the transposes count two bytes a value, and the STORE rounds the
// binary32 sums to binary16 (the reference sums all K in order, the array a K chunk at a time:
// equal within binary32 rounding, not bit for bit).
#include <fmt/format.h>

#include <cstring>

#include "../RuntimeOperands.h"
#include "EltwiseLayer.h"
#include "Families.h"
#include "StridedCopy.h"
#include "weft/hw/fp16.h"
#include "weft/kernels/CpuExecutor.h"

namespace weft::accel {
namespace {

// The problem read from the operands: batch count and one product's M, K, N.
struct Geometry {
  uint32_t batches = 1, m = 0, k = 0, n = 0;
  nn::Dimensions output;
};

nn::Result<Geometry> readGeometry(const OperationReader& r, bool adjX, bool adjY) {
  const nn::Operand& lhs = r.input(0);
  const nn::Operand& rhs = r.input(1);
  const size_t rank = lhs.dimensions.size();
  if (rank < 2 || rank > 4 || rhs.dimensions.size() != rank) {
    return r.fail("lhs and rhs must have one rank, 2 to 4 (got {} and {})", rank, rhs.dimensions.size());
  }
  Geometry g;
  uint64_t batches = 1;
  for (size_t d = 0; d + 2 < rank; ++d) {
    if (lhs.dimensions[d] != rhs.dimensions[d]) {
      return r.fail("batch dimension {} differs: {} vs {} (no broadcasting)", d, lhs.dimensions[d], rhs.dimensions[d]);
    }
    batches *= lhs.dimensions[d];
  }
  g.m = lhs.dimensions[adjX ? rank - 1 : rank - 2];
  g.k = lhs.dimensions[adjX ? rank - 2 : rank - 1];
  g.n = adjY ? rhs.dimensions[rank - 2] : rhs.dimensions[rank - 1];
  const uint32_t rhsK = adjY ? rhs.dimensions[rank - 1] : rhs.dimensions[rank - 2];
  if (g.k != rhsK) return r.fail("inner dimensions differ: lhs K = {}, rhs K = {}", g.k, rhsK);
  if (g.m == 0 || g.k == 0 || g.n == 0 || batches == 0) return r.fail("empty matrix");
  // One layer per product, each with a snapshot barrier: a bound on the program, not the array.
  if (batches > 4096) return r.fail("{} products is more than 4096", batches);
  if (g.m > 0xFFFF) return r.fail("M = {} is larger than 65535", g.m);
  if (batches * g.m * g.k * 2 >= (uint64_t{1} << 31)) return r.fail("lhs has 2^30 values or more");
  g.batches = static_cast<uint32_t>(batches);
  g.output = lhs.dimensions;
  g.output[rank - 2] = g.m;
  g.output[rank - 1] = g.n;
  return g;
}

// What the array can take beyond the reference kernel's rules: quant8 signed tensors (the only
// quant8 type NNAPI gives BATCH_MATMUL), or binary16 ones (TENSOR_FLOAT16, or TENSOR_FLOAT32 in a
// model relaxed to float16) for the fp16 datapath; shapes known at preparation, values given at
// execution or constant.
nn::Status checkOperands(const OperationReader& r) {
  for (uint32_t i = 0; i < 2; ++i) {
    const nn::Operand& o = r.input(i);
    if (o.type != nn::OperandType::TENSOR_QUANT8_ASYMM_SIGNED && !r.halfType(o)) {
      return r.fail(
          "{} type {} is not supported (TENSOR_QUANT8_ASYMM_SIGNED, or TENSOR_FLOAT16 / relaxed "
          "TENSOR_FLOAT32 on the fp16 datapath)",
          i == 0 ? "lhs" : "rhs", nn::toString(o.type));
    }
    if (!nn::isFullySpecified(o.type, o.dimensions))
      return r.fail("{} shape is not fully specified", i == 0 ? "lhs" : "rhs");
    if (!isConstant(o) && !givenAtExecution(o)) return r.fail("{} has no value", i == 0 ? "lhs" : "rhs");
    const uint64_t valueBytes = o.type == nn::OperandType::TENSOR_QUANT8_ASYMM_SIGNED ? 1
                                : o.type == nn::OperandType::TENSOR_FLOAT16           ? 2
                                                                                      : 4;
    if (isConstant(o) && (constantBytes(r.model(), o) == nullptr ||
                          o.location.length < valueBytes * nn::numberOfElements(o.dimensions))) {
      return r.fail("{} value is shorter than its shape", i == 0 ? "lhs" : "rhs");
    }
  }
  return {};
}

// A constant rhs[b] as the array's filter, [N, K] values of `e` bytes (a relaxed float32 rounded
// to binary16).
std::vector<uint8_t> constantFilter(const OperationReader& r, const Geometry& g, uint32_t b, bool adjY, uint32_t e) {
  const nn::Operand& o = r.input(1);
  const bool relaxed = o.type == nn::OperandType::TENSOR_FLOAT32;
  const uint32_t source = relaxed ? 4 : e;  // bytes a value in the model
  const uint8_t* rhs = constantBytes(r.model(), o) + uint64_t{b} * g.n * g.k * source;
  std::vector<uint8_t> w(uint64_t{g.n} * g.k * e);
  for (uint32_t n = 0; n < g.n; ++n) {
    for (uint32_t k = 0; k < g.k; ++k) {
      const uint8_t* v = rhs + (adjY ? uint64_t{n} * g.k + k : uint64_t{k} * g.n + n) * source;
      uint8_t* to = &w[(uint64_t{n} * g.k + k) * e];
      if (relaxed) {
        uint32_t bits;
        std::memcpy(&bits, v, 4);
        const uint16_t h = hw::fp::fp32ToFp16(bits);
        std::memcpy(to, &h, 2);
      } else {
        std::memcpy(to, v, e);
      }
    }
  }
  return w;
}

// The layer of batch index b: FULLY_CONNECTED's GEMM over lhs[b] with rhs[b] as its filter.
GemmLayer productLayer(const OperationReader& r, uint32_t index, const Geometry& g, const ConvQuantization& q,
                       uint32_t b, bool adjY, bool withValues) {
  GemmLayer layer;
  layer.operationIndex = index;
  layer.type = r.op().type;
  layer.inputOperand = r.op().inputs[0];
  layer.outputOperand = r.op().outputs[0];
  const uint32_t e = bytesPerElement(q.inputType);  // bytes a value on the device (binary16: 2)
  layer.input = ImageShape{1, g.m, 1, g.k * e};     // K counts bytes
  layer.output = ImageShape{1, g.m, 1, g.n};
  applyQuantization(layer, q);  // bias 0 (none is given), the one multiplier in every column
  layer.inputOffset = uint64_t{b} * g.m * g.k * e;
  layer.outputOffset = uint64_t{b} * g.m * g.n * e;
  const uint64_t filterBytes = uint64_t{g.n} * g.k * e;
  if (isConstant(r.input(1))) {  // the filter is known now: in the weight image from the start
    if (withValues) layer.weights = constantFilter(r, g, b, adjY, e);
    return layer;
  }
  layer.runtimeWeights = r.op().inputs[1];
  layer.runtimeWeightsKMajor = !adjY;
  layer.runtimeWeightsOffset = b * filterBytes;
  // The weight image holds the zero point until the repack writes the filter over it.
  if (withValues) layer.weights.assign(filterBytes, static_cast<uint8_t>(q.wZp));
  return layer;
}

// What every product's STORE does: requantize by lhs.scale * rhs.scale / out.scale (quant8, the
// reference kernel's multiplier and rounding), or round the binary32 sum to binary16 (fp16;
// bias +0, no clamp beyond the type's infinities).
nn::Result<ConvQuantization> productQuantization(const OperationReader& r, uint32_t n) {
  const nn::Operand& lhs = r.input(0);
  const nn::Operand& rhs = r.input(1);
  const nn::Operand& out = r.output(0);
  if (out.type != lhs.type || rhs.type != lhs.type) return r.fail("lhs, rhs and output types differ");
  ConvQuantization q;
  if (r.halfType(lhs)) {
    auto clamp = r.fp16Clamp(0);
    if (!clamp.ok()) return clamp.error();
    q.clamp = *clamp;
    q.columns.assign(n, hw::ColumnParams{});
    q.inputType = q.weightType = q.outputType = ElementType::kFloat16;
    return q;
  }
  if (!(lhs.scale > 0) || !(rhs.scale > 0) || !(out.scale > 0)) return r.fail("scales must be positive");
  auto m = quantizeMultiplier(convolutionMultiplier(lhs.scale, rhs.scale, out.scale));
  if (!m) return r.fail("output multiplier is out of the hardware's range");
  auto clamp = r.activationClamp(0, out);
  if (!clamp.ok()) return clamp.error();
  q.columns.assign(n, hw::ColumnParams{0, m->multiplier, static_cast<int8_t>(m->shift)});
  q.clamp = *clamp;
  q.inZp = lhs.zeroPoint;
  q.wZp = rhs.zeroPoint;
  q.outZp = out.zeroPoint;
  q.inputType = q.weightType = q.outputType = ElementType::kQuant8AsymmSigned;
  return q;
}

// adj_x: the layer that writes lhs transposed into an intermediate tensor, which it returns.
uint32_t transposeLhs(const OperationReader& r, uint32_t index, const Geometry& g, uint32_t e,
                      LoweredOperation& lowered) {
  const nn::Operand& lhs = r.input(0);
  IntermediateTensor rows{r.intermediateOperand(0), lhs};
  rows.description.lifetime = nn::Operand::LifeTime::TEMPORARY_VARIABLE;
  rows.description.location = {};
  const size_t rank = lhs.dimensions.size();
  std::swap(rows.description.dimensions[rank - 2], rows.description.dimensions[rank - 1]);
  // lhs[b] is [K, M]: each of the batch's matrices transposed.
  auto layer = stridedCopyLayer({permutedBox({g.batches, g.k, g.m}, {0, 2, 1}, e)}, e,
                                fmt::format("transpose {}x{}x{}", g.batches, g.k, g.m));
  layer->operationIndex = index;
  layer->type = r.op().type;
  layer->valueType = ElementType::kQuant8AsymmSigned;  // bytes copied as they are, binary16 too
  const ImageShape bytes{1, 1, 1, static_cast<uint32_t>(uint64_t{g.batches} * g.m * g.k * e)};
  layer->inputs = {{r.op().inputs[0], bytes, DataLayout::kFlat}};
  layer->outputs = {{rows.operand, bytes, DataLayout::kFlat}};
  LoweredLayer lo;
  lo.work = std::move(layer);
  lo.outputDims = rows.description.dimensions;
  lowered.layers.push_back(std::move(lo));
  lowered.intermediates.push_back(rows);
  return rows.operand;
}

}  // namespace

nn::Result<LoweredOperation> lowerBatchMatmul(const OperationReader& r, uint32_t index, bool withValues) {
  // The operand rules are the reference kernel's, so that both devices accept the same models.
  if (nn::Status valid = nn::validateOperation(r.model(), r.model().main, r.op()); !valid.ok()) {
    return r.fail("{}", valid.error().message);
  }
  NN_TRY(checkOperands(r));
  auto adjX = r.boolParam(2, "adj_x");
  if (!adjX.ok()) return adjX.error();
  auto adjY = r.boolParam(3, "adj_y");
  if (!adjY.ok()) return adjY.error();
  auto geometry = readGeometry(r, *adjX, *adjY);
  if (!geometry.ok()) return geometry.error();
  const Geometry& g = *geometry;
  NN_TRY(r.checkOutputDims(g.output));
  auto quantization = productQuantization(r, g.n);
  if (!quantization.ok()) return quantization.error();
  const ConvQuantization& q = *quantization;

  LoweredOperation lowered;
  std::optional<uint32_t> lhsRows;  // adj_x: lhs as [..., M, K], made by the first layer
  if (*adjX) lhsRows = transposeLhs(r, index, g, bytesPerElement(q.inputType), lowered);
  for (uint32_t b = 0; b < g.batches; ++b) {
    LoweredLayer lo;
    GemmLayer layer = productLayer(r, index, g, q, b, *adjY, withValues);
    if (lhsRows) layer.inputOperand = *lhsRows;
    lo.work = std::move(layer);
    lo.inputLayout = lo.outputLayout = DataLayout::kFlat;
    lo.outputDims = g.output;
    lowered.layers.push_back(std::move(lo));
  }
  return lowered;
}

}  // namespace weft::accel
