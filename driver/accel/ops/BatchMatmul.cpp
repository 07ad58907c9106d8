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
// layer on the vector unit (TransposeLayer) writes lhs[b] transposed into an intermediate tensor,
// a byte a vector row as the adj_y repack (no unit moves bytes across lanes faster), and the
// products read that.
#include <fmt/format.h>

#include "../RuntimeOperands.h"
#include "EltwiseLayer.h"
#include "Families.h"
#include "weft/kernels/CpuExecutor.h"

namespace weft::accel {
namespace {

// Bytes as they are (either signedness): unsigned in, identity out, the full byte range.
EltwiseMath byteCopy() {
  EltwiseMath m;
  m.kind = hw::EltKind::kCopy;
  m.clamp = ClampRange{0, 255};
  return m;
}

// adj_x: every [rows, cols] matrix of a dense batch transposed into [cols, rows], a byte a row.
class TransposeLayer final : public VectorLayer {
 public:
  uint32_t batches = 1, rows = 1, cols = 1;

  std::vector<std::vector<uint8_t>> constantImages(const hw::HwConfig& config) const override {
    return {copyParamRow(config)};
  }
  nn::Status generate(const VectorPlacement& where, const hw::HwConfig& config, CommandSink& out) const override {
    const uint32_t C = config.cols();
    EltwiseEmitter emitter(config, out);
    NN_TRY(emitter.begin(where.constants[0], std::nullopt));
    const uint64_t matrix = uint64_t{rows} * cols;
    // Output pixel (y, x) = (col, row) of the input: an image of `cols` rows of `rows` one-byte
    // pixels, read down the input's columns and written along the output's rows.
    const ImageShape shape{1, cols, rows, 1};
    for (uint32_t b = 0; b < batches; ++b) {
      const LaneImage src{ImageView{where.inputs[0].origin + b * matrix, cols, 1, 0}, shape, C};
      const LaneImage dst{ImageView{where.outputs[0].origin + b * matrix, 1, rows, 0}, shape, C};
      NN_TRY(emitter.piece(byteCopy(), src, nullptr, dst));
    }
    return {};
  }
  uint64_t laneOps() const override { return uint64_t{batches} * rows * cols; }
  std::string describe() const override { return fmt::format("transpose {}x{}x{}", batches, rows, cols); }
};

bool givenAtExecution(const nn::Operand& o) {
  return o.lifetime == nn::Operand::LifeTime::SUBGRAPH_INPUT || o.lifetime == nn::Operand::LifeTime::TEMPORARY_VARIABLE;
}

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
  if (batches * g.m * g.k >= (uint64_t{1} << 31)) return r.fail("lhs has 2^31 bytes or more");
  g.batches = static_cast<uint32_t>(batches);
  g.output = lhs.dimensions;
  g.output[rank - 2] = g.m;
  g.output[rank - 1] = g.n;
  return g;
}

// What the array can take beyond the reference kernel's rules: quant8 signed tensors (the only
// quant8 type NNAPI gives BATCH_MATMUL) known at preparation, both given at execution or constant.
nn::Status checkOperands(const OperationReader& r) {
  for (uint32_t i = 0; i < 2; ++i) {
    const nn::Operand& o = r.input(i);
    if (o.type != nn::OperandType::TENSOR_QUANT8_ASYMM_SIGNED) {
      return r.fail("{} type {} is not supported (TENSOR_QUANT8_ASYMM_SIGNED only)", i == 0 ? "lhs" : "rhs",
                    nn::toString(o.type));
    }
    if (!nn::isFullySpecified(o.type, o.dimensions)) return r.fail("{} shape is not fully specified", i == 0 ? "lhs" : "rhs");
    if (!isConstant(o) && !givenAtExecution(o)) return r.fail("{} has no value", i == 0 ? "lhs" : "rhs");
    if (isConstant(o) && (constantBytes(r.model(), o) == nullptr ||
                          o.location.length < nn::numberOfElements(o.dimensions))) {
      return r.fail("{} value is shorter than its shape", i == 0 ? "lhs" : "rhs");
    }
  }
  return {};
}

// The layer of batch index b: FULLY_CONNECTED's GEMM over lhs[b] with rhs[b] as its filter.
GemmLayer productLayer(const OperationReader& r, uint32_t index, const Geometry& g, const ConvQuantization& q,
                       uint32_t b, bool adjY, bool withValues) {
  GemmLayer layer;
  layer.operationIndex = index;
  layer.type = r.op().type;
  layer.inputOperand = r.op().inputs[0];
  layer.outputOperand = r.op().outputs[0];
  layer.input = ImageShape{1, g.m, 1, g.k};
  layer.output = ImageShape{1, g.m, 1, g.n};
  layer.inZp = q.inZp;
  layer.wZp = q.wZp;
  layer.outZp = q.outZp;
  layer.inputType = q.inputType;
  layer.weightType = q.weightType;
  layer.outputType = q.outputType;
  layer.columns = q.columns;  // bias 0 (none is given), the one multiplier in every column
  layer.clamp = q.clamp;
  layer.inputOffset = uint64_t{b} * g.m * g.k;
  layer.outputOffset = uint64_t{b} * g.m * g.n;
  const uint64_t filterBytes = uint64_t{g.n} * g.k;
  if (isConstant(r.input(1))) {  // the filter is known now: in the weight image from the start
    if (withValues) {
      const uint8_t* rhs = constantBytes(r.model(), r.input(1)) + b * filterBytes;
      layer.weights.resize(filterBytes);
      for (uint32_t n = 0; n < g.n; ++n) {
        for (uint32_t k = 0; k < g.k; ++k) layer.weights[uint64_t{n} * g.k + k] = adjY ? rhs[n * g.k + k] : rhs[k * g.n + n];
      }
    }
    return layer;
  }
  layer.runtimeWeights = r.op().inputs[1];
  layer.runtimeWeightsKMajor = !adjY;
  layer.runtimeWeightsOffset = b * filterBytes;
  // The weight image holds the zero point until the repack writes the filter over it.
  if (withValues) layer.weights.assign(filterBytes, static_cast<uint8_t>(q.wZp));
  return layer;
}

// adj_x: the layer that writes lhs transposed into an intermediate tensor, which it returns.
uint32_t transposeLhs(const OperationReader& r, uint32_t index, const Geometry& g, LoweredOperation& lowered) {
  const nn::Operand& lhs = r.input(0);
  IntermediateTensor rows{r.intermediateOperand(0), lhs};
  rows.description.lifetime = nn::Operand::LifeTime::TEMPORARY_VARIABLE;
  rows.description.location = {};
  const size_t rank = lhs.dimensions.size();
  std::swap(rows.description.dimensions[rank - 2], rows.description.dimensions[rank - 1]);
  auto layer = std::make_shared<TransposeLayer>();
  layer->operationIndex = index;
  layer->type = r.op().type;
  layer->valueType = ElementType::kQuant8AsymmSigned;
  layer->batches = g.batches;
  layer->rows = g.k;  // lhs[b] is [K, M]
  layer->cols = g.m;
  const ImageShape bytes{1, 1, 1, static_cast<uint32_t>(uint64_t{g.batches} * g.m * g.k)};
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
  const nn::Operand& lhs = r.input(0);
  const nn::Operand& rhs = r.input(1);
  const nn::Operand& out = r.output(0);
  if (out.type != lhs.type) return r.fail("output type {} differs from the inputs'", nn::toString(out.type));
  if (!(lhs.scale > 0) || !(rhs.scale > 0) || !(out.scale > 0)) return r.fail("scales must be positive");
  auto m = quantizeMultiplier(convolutionMultiplier(lhs.scale, rhs.scale, out.scale));
  if (!m) return r.fail("output multiplier is out of the hardware's range");
  auto clamp = r.activationClamp(0, out);
  if (!clamp.ok()) return clamp.error();
  ConvQuantization q;
  q.columns.assign(g.n, hw::ColumnParams{0, m->multiplier, static_cast<int8_t>(m->shift)});
  q.clamp = *clamp;
  q.inZp = lhs.zeroPoint;
  q.wZp = rhs.zeroPoint;
  q.outZp = out.zeroPoint;
  q.inputType = q.weightType = q.outputType = ElementType::kQuant8AsymmSigned;

  LoweredOperation lowered;
  std::optional<uint32_t> lhsRows;  // adj_x: lhs as [..., M, K], made by the first layer
  if (*adjX) lhsRows = transposeLhs(r, index, g, lowered);
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
