// SOFTMAX on the vector unit (SOFTMAX commands): quant8 asymmetric (output scale 1/256, zero point
// 0) or signed (1/256, -128), rank 1 to 4, any axis, positive beta. TFLite's fixed-point softmax,
// bit-exact: the driver tabulates exp(-d) for the input's scale and beta with the reference's own
// fixed-point code (ops/ReferenceTables.h); the lanes find the maximum, sum the table entries
// and scale by the reciprocal.
//
// In binary16 (TENSOR_FLOAT16, or a relaxed model's TENSOR_FLOAT32; fp16 hardware): the command's
// fp16 mode, Cols/2 values a row, maximum, exponentials, sum and output in binary32, the table
// 2^(k/256) (weft/hw/softmax_fp16.h), beta rounded to binary16.
//
// Along the last axis (the usual case), a row of the axis is loaded as rows of Cols bytes and
// reduced across lanes (cross_lanes); along another axis, Cols (binary16: Cols/2) neighbouring
// inner positions go to the lanes and each lane reduces over the axis's rows.
#include <algorithm>
#include <cmath>
#include <optional>

#include <fmt/format.h>

#include "BufferParts.h"
#include "EltwiseLayer.h"
#include "Families.h"
#include "ReferenceTables.h"
#include "weft/hw/softmax_fp16.h"

namespace weft::accel {
namespace {

class SoftmaxLayer final : public VectorLayer {
 public:
  uint64_t outer = 1, axis = 1, inner = 1;
  bool isSigned = false;
  SoftmaxTable table;  // quant8
  std::optional<uint16_t> fp16Beta;  // binary16: beta's bits

  std::vector<std::vector<uint8_t>> constantImages(const hw::HwConfig& config) const override {
    std::vector<int32_t> lut = table.exp;
    if (fp16Beta) {
      lut.resize(hw::micro::kLutEntries);
      for (uint32_t k = 0; k < lut.size(); ++k) lut[k] = static_cast<int32_t>(hw::vec::softmaxFp16TableEntry(k));
    }
    return {paramRows(std::vector<hw::ColumnParams>(config.cols(), kIdentityColumn), 1, config),
            lutImage(lut, config)};
  }

  nn::Status generate(const VectorPlacement& where, const hw::HwConfig& config, CommandSink& sink) const override {
    // Tiles take the buffers in two to four parts, as the program runs fastest (BufferParts.h),
    // of those whose parts hold a tile: a row (along the last axis) or the axis (another one).
    const uint32_t lanes = config.cols() / (fp16Beta ? 2 : 1);
    const uint64_t tileRows = inner == 1 ? ceilDiv(axis, lanes) : axis;
    const uint64_t mostTiles = inner == 1 ? outer : outer * ceilDiv(inner, lanes);  // a row, or a lane group, a tile
    uint32_t most = 2;
    while (most < kMaxBufferParts && most < mostTiles &&
           tileRows <= std::min(config.vecSpadRows(), config.accRows()) / (most + 1)) {
      ++most;
    }
    const auto parts = fastestBufferParts(config, sink, most, [&](CommandSink& s, uint32_t p) {
      return generateInParts(where, config, s, p);
    });
    if (!parts.ok()) return parts.error();
    return generateInParts(where, config, sink, *parts);
  }

  nn::Status generateInParts(const VectorPlacement& where, const hw::HwConfig& config, CommandSink& sink,
                             uint32_t parts) const {
    const uint32_t C = config.cols(), bufRows = config.vecSpadRows() / parts, accPart = config.accRows() / parts;
    // Elements a row (lanes) and bytes an element; binary16 clamps to [-inf, +inf].
    const uint32_t eb = fp16Beta ? 2 : 1, L = C / eb;
    const int32_t lo = fp16Beta ? 0xfc00 : isSigned ? -128 : 0, hi = fp16Beta ? 0x7c00 : isSigned ? 127 : 255;
    VectorCommands cmds(config, sink);
    cmds.setStoreType(valueType);
    NN_TRY(cmds.loadRows(hw::Mem::kParam, where.constants[0], 0, 1, config.paramRowBytes(), config.paramRowBytes(),
                         paramBuffer()));
    NN_TRY(cmds.loadRows(hw::Mem::kLut, where.constants[1], 0, config.lutRows(), 4 * C, 4 * C, lutBuffer()));
    const uint64_t in0 = where.inputs[0].origin, out0 = where.outputs[0].origin;
    uint32_t buf = 0;
    // `offset`: its first row within the buffers' halves.
    auto softmax = [&](uint32_t count, uint32_t stride, bool cross, uint32_t lastLanes, uint32_t offset = 0) {
      hw::SoftmaxCmd s;
      s.inSigned = isSigned;
      s.crossLanes = cross;
      s.count = count;
      s.stride = stride;
      s.inAddr = buf * bufRows + offset;
      s.accAddr = buf * accPart + offset;
      s.lastLanes = lastLanes;
      s.lutLen = fp16Beta ? hw::micro::kLutEntries : table.length;
      s.fp16 = fp16Beta.has_value();
      s.beta = fp16Beta.value_or(0);
      cmds.vector(s, {{accBuffer(buf), true}, {vecBuffer(1 + buf), false}, {lutBuffer(), false}, {paramBuffer(), false}});
      return s;
    };
    if (inner == 1) {
      const auto rows = static_cast<uint32_t>(ceilDiv(axis, L));
      const auto rem = static_cast<uint32_t>(axis % L);
      if (rows > bufRows || rows > accPart) return NN_ERROR(BAD_DATA) << "a softmax row is longer than the buffers";
      // A tile holds as many softmax rows as a part of both buffers does: they lie one after
      // another in DRAM, so one LOAD and one STORE serve them all. (A tile a row loaded and
      // stored 128 bytes at a time for an attention's 128 keys: 1.5 bytes a cycle at weft16.)
      // At least as many tiles as parts, so that some load and store while one computes.
      const uint64_t perTile = std::max<uint64_t>(
          1, std::min<uint64_t>({bufRows / rows, accPart / rows, 0xFFFF, ceilDiv(outer, uint64_t{parts})}));
      const uint64_t rowBytes = axis * eb;
      for (uint64_t o = 0; o < outer; o += perTile) {
        const auto k = static_cast<uint32_t>(std::min<uint64_t>(perTile, outer - o));
        const uint64_t in = in0 + o * rowBytes, out = out0 + o * rowBytes;
        // Each row's last vector row may read past it (into the next row, or past the tensor:
        // allocations keep Cols bytes of slack); its lanes past the axis are left out of the
        // reduction.
        if (rem == 0) {
          NN_TRY(cmds.loadRows(hw::Mem::kVec, in, buf * bufRows, k * rows, C, C, vecBuffer(1 + buf)));
        } else {
          NN_TRY(cmds.loadRows(hw::Mem::kVec, in, buf * bufRows, rows, C, C, vecBuffer(1 + buf), k, rowBytes));
        }
        for (uint32_t j = 0; j < k; ++j) softmax(rows, 1, true, rem == 0 ? L : rem, j * rows);
        const uint32_t first = buf * accPart;  // row j's outputs from first + j * rows on
        if (rem == 0) {
          NN_TRY(cmds.storeRows(out, C, k * rows, C, first, accBuffer(buf), 0, 0, lo, hi));
          buf = (buf + 1) % parts;
          continue;
        }
        // Every vector row whole: a row's last one writes past the row into the next row's first
        // bytes, which the next row's own STORE rows (later in this STORE, or in the next tile's)
        // write again. The tensor's last row stores its last vector row alone.
        const bool last = o + k == outer;
        const uint32_t whole = last ? k - 1 : k;
        if (whole > 0) NN_TRY(cmds.storeRows(out, C, rows, C, first, accBuffer(buf), 0, 0, lo, hi, whole, rowBytes));
        if (last) {
          const uint64_t at = out + uint64_t{whole} * rowBytes;
          const uint32_t acc = first + whole * rows, full = rows - 1;
          if (full > 0) NN_TRY(cmds.storeRows(at, C, full, C, acc, accBuffer(buf), 0, 0, lo, hi));
          NN_TRY(cmds.storeRows(at + uint64_t{full} * C, C, 1, rem * eb, acc + full, accBuffer(buf), 0, 0, lo, hi));
        }
        buf = (buf + 1) % parts;
      }
      return {};
    }
    if (axis > bufRows || axis > accPart) return NN_ERROR(BAD_DATA) << "a softmax axis is longer than the buffers";
    for (uint64_t o = 0; o < outer; ++o) {
      for (uint64_t i0 = 0; i0 < inner; i0 += L) {
        const auto width = static_cast<uint32_t>(std::min<uint64_t>(L, inner - i0));
        const uint64_t base = (o * axis * inner + i0) * eb;
        NN_TRY(cmds.loadRows(hw::Mem::kVec, in0 + base, buf * bufRows, static_cast<uint32_t>(axis), width * eb,
                             inner * eb, vecBuffer(1 + buf)));
        const auto s = softmax(static_cast<uint32_t>(axis), 1, false, L);
        NN_TRY(cmds.storeRows(out0 + base, inner * eb, static_cast<uint32_t>(axis), width * eb, s.accAddr,
                              accBuffer(buf), 0, 0, lo, hi));
        buf = (buf + 1) % parts;
      }
    }
    return {};
  }

  uint64_t laneOps() const override { return 3 * outer * axis * inner; }
  std::string describe() const override {
    return fmt::format("softmax{} {}x{}x{}", fp16Beta ? " fp16" : "", outer, axis, inner);
  }
};

}  // namespace

nn::Result<LoweredOperation> lowerSoftmax(const OperationReader& r, uint32_t index, bool) {
  const auto& op = r.op();
  NN_TRY(r.expectCounts({2, 3}, 1));
  const auto& in = r.input(0);
  const auto& out = r.output(0);
  // The element type's checks and beta: binary16 bits, or the quant8 reference's table.
  auto layer = std::make_shared<SoftmaxLayer>();
  const bool half = r.halfType(in);
  if (half) {
    NN_TRY(r.halfTensor(in, "input", 1, 4));
    NN_TRY(r.sameType(in, out, "input and output"));
    auto beta = r.halfParam(1, "beta");
    if (!beta.ok()) return beta.error();
    const float value = hw::fp::fp16Value(*beta);
    if (!(value > 0) || std::isinf(value)) return r.fail("beta must be positive and finite in binary16");
    layer->fp16Beta = *beta;
  } else {
    NN_TRY(r.quant8Tensor(in, "input", 1, 4));
    NN_TRY(r.sameType(in, out, "input and output"));
    const bool isSigned = isSignedType(in.type);
    if (out.scale != 1.0f / 256 || out.zeroPoint != (isSigned ? -128 : 0)) {
      return r.fail("the output must have scale 1/256 and zero point {}", isSigned ? -128 : 0);
    }
    auto beta = r.floatParam(1, "beta");
    if (!beta.ok()) return beta.error();
    if (!(*beta > 0)) return r.fail("beta must be positive");
    auto table = softmaxTable(*beta, in.scale);
    if (!table.ok()) return r.fail("the reference rejects its multiplier: {}", table.error().message);
    layer->table = std::move(table).value();
  }
  const auto rank = static_cast<int32_t>(in.dimensions.size());
  int32_t axis = -1;
  if (op.inputs.size() == 3) {
    auto a = r.int32Param(2, "axis");
    if (!a.ok()) return a.error();
    axis = *a;
  }
  if (axis < -rank || axis >= rank) return r.fail("axis {} is out of range for rank {}", axis, rank);
  if (axis < 0) axis += rank;
  NN_TRY(r.checkOutputDims(in.dimensions));
  layer->operationIndex = index;
  layer->type = op.type;
  layer->isSigned = !half && isSignedType(in.type);
  layer->valueType = r.valueType(in);
  for (int32_t d = 0; d < rank; ++d) {
    uint64_t& part = d < axis ? layer->outer : d == axis ? layer->axis : layer->inner;
    part *= in.dimensions[d];
  }
  if (layer->axis > 0xFFFF || layer->inner > 0xFFFFFF) return r.fail("the axis or inner size is too large");
  return loweredOverRows(std::move(layer), op, in.dimensions);
}

}  // namespace weft::accel
