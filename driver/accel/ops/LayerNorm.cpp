// org.weft.accel's WEFT_LAYER_NORM on the vector unit (LAYER_NORM commands), quant8 asymmetric
// and signed: each row along the last axis normalized to zero mean and unit variance, then
// scaled by gamma and shifted by beta (FLOAT32 constants, one per element of the row).
//
// The split of the work: the LAYER_NORM command sums a row's x and x*x across every lane of its
// scratchpad rows, takes the reciprocal square root once, and writes y = (x - mean) /
// sqrt(variance + epsilon) in fixed point, Q(F), to the accumulator; gamma and beta are the
// STORE's per-column multiplier and bias (a row's element e is lane e % Cols of its scratchpad row
// e / Cols, and every such row is one column tile: parameter row e / Cols). For element c the
// STORE computes requantize(acc + bias[c], M[c]) + zero point, with
//   M[c] = gamma[c] * 2^-F / output scale,   bias[c] = beta[c] / output scale / M[c],
// so the output is (y * gamma[c] + beta[c]) / output scale + zero point, as the reference kernel
// (kernels_ref/ops/WeftLayerNorm.cpp) computes it in double: the two agree to one unit (NNAPI's
// quant8 tolerance). Where gamma[c] is zero or tiny, M[c] is raised to what keeps bias[c] in range
// and F is chosen so that the change and the roundings stay within 0.3 of a unit (worked out per
// column below); a row no F serves stays on the CPU with the reason.
//
// Tokens go in groups: a group's rows are loaded together, one LAYER_NORM per token writes its
// output rows interleaved (acc_stride = the group's size), and one STORE per column tile writes
// that tile of every token of the group. The parameter rows (one per column tile) are loaded
// once, before the first LAYER_NORM (which declares reading them: no token queue runs from the
// load unit to the store unit, so the STOREs' need of them goes through the vector unit). A row
// needs all of its tiles' parameters in the parameter memory at once: at most ParamRows x Cols
// elements (1024 at weft16, 256 at weft8); longer rows stay on the CPU with the reason.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "../ModelAccess.h"
#include "../Requantization.h"
#include "EltwiseLayer.h"
#include "Families.h"

namespace weft::accel {
namespace {

// Rows of 8-bit values whose sums stay exact in the 32-bit accumulators (hw/spec/isa.json).
constexpr uint64_t kMaxRow = 32768;
// The largest output fraction the command takes, and the error budget of a column in output units.
constexpr int kMaxFraction = 20;
constexpr double kErrorBudget = 0.3;

class LayerNormLayer final : public VectorLayer {
 public:
  uint64_t tokens = 1, width = 1;  // rows along the last axis, its length
  bool isSigned = false;
  int32_t inZp = 0, outZp = 0;
  uint32_t fraction = 0;  // F
  uint64_t eps = 0;       // epsilon / scale^2 * N^2
  std::vector<hw::ColumnParams> columns;  // one per element of a row

  std::vector<std::vector<uint8_t>> constantImages(const hw::HwConfig& config) const override {
    return {paramRows(columns, static_cast<uint32_t>(ceilDiv(width, config.cols())), config)};
  }

  nn::Status generate(const VectorPlacement& where, const hw::HwConfig& config, CommandSink& sink) const override {
    const uint32_t C = config.cols(), bufRows = config.vecSpadRows() / 2, accHalf = config.accRows() / 2;
    const auto rows = static_cast<uint32_t>(ceilDiv(width, C));
    const auto lastLanes = static_cast<uint32_t>(width - uint64_t{rows - 1} * C);
    const uint32_t group = groupSize(config);
    if (group == 0) return NN_ERROR(BAD_DATA) << "a layer-norm row is longer than the buffers";
    if (rows > config.paramRows()) {
      return NN_ERROR(BAD_DATA) << fmt::format(
                 "a layer-norm row of {} elements needs {} parameter rows (gamma and beta); the parameter memory "
                 "holds {}",
                 width, rows, config.paramRows());
    }
    const uint32_t paramBytes = config.paramRowBytes();
    const int32_t lo = isSigned ? -128 : 0, hi = isSigned ? 127 : 255;
    const uint64_t in0 = where.inputs[0].origin, out0 = where.outputs[0].origin;
    VectorCommands cmds(config, sink);
    NN_TRY(cmds.loadRows(hw::Mem::kParam, where.constants[0], 0, rows, paramBytes, paramBytes, paramBuffer()));
    uint32_t buf = 0;
    for (uint64_t t0 = 0; t0 < tokens; t0 += group) {
      const auto g = static_cast<uint32_t>(std::min<uint64_t>(group, tokens - t0));
      const uint32_t spad = buf * bufRows, acc = buf * accHalf;
      // The group's rows: one LOAD when rows are whole (the tokens are dense), else one a token
      // (its last row reads past it: allocations keep Cols bytes of slack).
      if (width % C == 0) {
        NN_TRY(cmds.loadRows(hw::Mem::kVec, in0 + t0 * width, spad, g * rows, C, C, vecBuffer(1 + buf)));
      } else {
        for (uint32_t j = 0; j < g; ++j) {
          NN_TRY(cmds.loadRows(hw::Mem::kVec, in0 + (t0 + j) * width, spad + j * rows, rows, C, C,
                               vecBuffer(1 + buf)));
        }
      }
      for (uint32_t j = 0; j < g; ++j) {
        hw::LayerNormCmd n;
        n.inSigned = isSigned;
        n.inZp = inZp;
        n.count = rows;
        n.inAddr = spad + j * rows;
        n.stride = 1;
        n.accAddr = acc + j;
        n.accStride = g;
        n.lastLanes = lastLanes;
        n.outShift = fraction;
        n.eps = eps;
        cmds.vector(n, {{accBuffer(buf), true}, {vecBuffer(1 + buf), false}, {paramBuffer(), false}});
      }
      // Column tiles r .. r + tiles - 1 of every token of the group, with parameter rows r ..: a
      // token's tiles leave as one DRAM request (row j of the STORE is token j; its tile t,
      // column tile r + t, is accumulator row acc + (r + t)*g + j).
      const uint32_t perStore = cmds.maxStoreTiles();
      for (uint32_t r = 0; r < rows; r += perStore) {
        const uint32_t tiles = std::min(perStore, rows - r);
        NN_TRY(cmds.storeTiledRows(out0 + t0 * width + uint64_t{r} * C, width, g, tiles,
                                   r + tiles == rows ? lastLanes : C, acc + r * g, g, accBuffer(buf), r, outZp, lo,
                                   hi));
      }
      buf ^= 1;
    }
    return {};
  }

  // Tokens a group holds: a half of the vector scratchpad and of the accumulator each, and
  // acc_stride's 12 bits.
  uint32_t groupSize(const hw::HwConfig& config) const {
    const uint64_t rows = ceilDiv(width, config.cols());
    const uint64_t fit = std::min<uint64_t>(config.vecSpadRows() / 2 / rows, config.accRows() / 2 / rows);
    return static_cast<uint32_t>(std::min<uint64_t>({fit, tokens, 4095}));
  }

  uint64_t laneOps() const override { return 2 * tokens * width; }
  std::string describe() const override { return fmt::format("layer norm {}x{}", tokens, width); }
};

std::vector<double> floatConstant(const OperationReader& r, uint32_t i, uint64_t count) {
  const auto& o = r.input(i);
  const uint8_t* bytes = constantBytes(r.model(), o);
  if (o.type != nn::OperandType::TENSOR_FLOAT32 || bytes == nullptr || o.location.length < count * 4 ||
      nn::numberOfElements(o.dimensions) != count) {
    return {};
  }
  std::vector<double> v(count);
  for (uint64_t k = 0; k < count; ++k) {
    float f;
    std::memcpy(&f, bytes + 4 * k, 4);
    v[k] = f;
  }
  return v;
}

// The STORE's parameters of one column at fraction F: M = gamma 2^-F / s (raised where gamma is
// too small for beta's bias to fit, or below what a shift of -31 reaches), and the column's error
// bound in output units: the accumulator's error (its rounding, and the reciprocal square root's
// few parts in 2^30 of |y| 2^F: under one unit) times |M|, the raise times the largest |y|
// (sqrt(N)) times 2^F, the bias's rounding times |M|.
struct Column {
  hw::ColumnParams params;
  double error = 0;
};

std::optional<Column> columnAt(double gamma, double beta, double outScale, int fraction, double maxY) {
  const double m = gamma * std::ldexp(1.0, -fraction) / outScale, b = beta / outScale;
  const double floorM = std::max(std::fabs(b) / std::ldexp(1.0, 29), std::ldexp(1.0, -32));
  const double used = std::max(std::fabs(m), floorM);
  const auto q = quantizeMultiplier(used);
  if (!q || q->shift < -31) return std::nullopt;
  Column c;
  c.params.multiplier = gamma < 0 ? -q->multiplier : q->multiplier;
  c.params.shift = static_cast<int8_t>(q->shift);
  const double bias = std::round(b / (gamma < 0 ? -used : used));
  if (std::fabs(bias) >= std::ldexp(1.0, 30)) return std::nullopt;
  c.params.bias = static_cast<int32_t>(bias);
  c.error = 1.0 * used + (used - std::fabs(m)) * maxY * std::ldexp(1.0, fraction) + 0.5 * used;
  return c;
}

}  // namespace

nn::Result<LoweredOperation> lowerLayerNorm(const OperationReader& r, uint32_t index, bool) {
  const auto& op = r.op();
  NN_TRY(r.expectCounts({4}, 1));
  const auto& in = r.input(0);
  const auto& out = r.output(0);
  NN_TRY(r.quant8Tensor(in, "input", 1, 4));
  NN_TRY(r.sameType(in, out, "input and output"));
  NN_TRY(r.checkOutputDims(in.dimensions));
  const uint64_t width = in.dimensions.back();
  if (width == 0 || width > kMaxRow) {
    return r.fail("rows along the last axis of {} elements (the hardware sums at most {})", width, kMaxRow);
  }
  const std::vector<double> gamma = floatConstant(r, 1, width), beta = floatConstant(r, 2, width);
  if (gamma.empty() || beta.empty()) {
    return r.fail("gamma and beta must be constant TENSOR_FLOAT32 of {} values (the STORE's parameters)", width);
  }
  auto epsilon = r.floatParam(3, "epsilon");
  if (!epsilon.ok()) return epsilon.error();
  if (!std::isfinite(*epsilon) || *epsilon < 0) return r.fail("epsilon must be finite and non-negative");
  const double n = static_cast<double>(width);
  const double eps = std::round(double{*epsilon} / (double{in.scale} * in.scale) * n * n);
  if (eps >= std::ldexp(1.0, 48)) return r.fail("epsilon is too large for the input's scale ({} squared units)", eps);

  // The largest fraction at which every column stays within the error budget.
  const double maxY = std::sqrt(n);
  std::vector<hw::ColumnParams> columns;
  int fraction = kMaxFraction;
  for (; fraction >= 0; --fraction) {
    columns.clear();
    for (uint64_t c = 0; c < width; ++c) {
      const auto col = columnAt(gamma[c], beta[c], out.scale, fraction, maxY);
      if (!col || col->error > kErrorBudget) break;
      columns.push_back(col->params);
    }
    if (columns.size() == width) break;
  }
  if (fraction < 0) return r.fail("no output fraction keeps gamma and beta within the STORE's range");

  auto layer = std::make_shared<LayerNormLayer>();
  layer->operationIndex = index;
  layer->type = op.type;
  layer->isSigned = isSignedType(in.type);
  layer->valueType = quant8(layer->isSigned);
  layer->width = width;
  layer->tokens = nn::numberOfElements(in.dimensions) / width;
  layer->inZp = in.zeroPoint;
  layer->outZp = out.zeroPoint;
  layer->fraction = static_cast<uint32_t>(fraction);
  layer->eps = static_cast<uint64_t>(eps);
  layer->columns = std::move(columns);
  return loweredOverRows(std::move(layer), op, in.dimensions);
}

}  // namespace weft::accel
