#include "RuntimeOperands.h"

#include "CommandGenerator.h"

namespace weft::accel {

bool productsOverlap(const GemmLayer& a, const GemmLayer& b, const hw::HwConfig& config) {
  if (a.type != nn::OperationType::BATCH_MATMUL || a.operationIndex != b.operationIndex ||
      b.inputOperand == a.outputOperand || b.runtimeWeights == a.outputOperand || a.runtimeBias || b.runtimeBias) {
    return false;
  }
  return !b.runtimeWeights || runtimeWeightSource(b, config) != WeightSource::kImage;
}

std::vector<uint8_t> copyParamRow(const hw::HwConfig& config) { return paramRows({}, 1, config); }

WeightSource runtimeWeightSource(const GemmLayer& layer, const hw::HwConfig& config) {
  if (!layer.runtimeWeights) return WeightSource::kImage;
  // The in-place LOADs step a matrix row at a time (stride0, 24 bits) and a tile at a time
  // (stride1, 32 bits): a matrix too wide for them is repacked.
  const uint64_t rowStride = layer.runtimeWeightsKMajor ? layer.n() : layer.k();
  if (rowStride >= (uint64_t{1} << 24) || rowStride * config.cols() >= (uint64_t{1} << 32)) return WeightSource::kImage;
  // [K, N] binary16 interleaves two rows' bytes a tile row: the repack's job.
  if (layer.runtimeWeightsKMajor) return isFloat(layer.weightType) ? WeightSource::kImage : WeightSource::kInPlaceKMajor;
  const bool transposer = config.rows() == config.cols() && config.dataflow() == hw::Dataflow::kWS;
  return transposer ? WeightSource::kInPlaceTransposed : WeightSource::kImage;
}

nn::Status repackWeights(const GemmLayer& layer, const TilePlan& plan, uint64_t filter, uint64_t image,
                         const hw::HwConfig& config, EltwiseEmitter& emitter) {
  const uint32_t C = config.cols(), K = layer.k(), N = layer.n();
  for (uint32_t t = 0; t < plan.nTiles; ++t) {
    const uint32_t n0 = t * C, channels = std::min(C, N - n0);
    for (uint32_t c = 0; c < plan.chunks.size(); ++c) {
      const KChunk& chunk = plan.chunks[c];
      const uint64_t tile = image + weightTileOffset(plan, t, c, config);
      if (layer.runtimeWeightsKMajor && isFloat(layer.weightType)) {
        // [K, N] binary16: tile row 2k + h holds byte h of filter row k's values, bytes 2 apart in
        // DRAM: per h, an image of `channels` rows of chunk.bytes / 2 one-byte pixels.
        const uint32_t k0 = chunk.kBegin / 2, values = chunk.bytes / 2;
        const ImageShape shape{1, channels, values, 1};
        for (uint32_t h = 0; h < 2; ++h) {
          const LaneImage src{ImageView{filter + (uint64_t{k0} * N + n0) * 2 + h, 2ull * N, 2, 0}, shape, C};
          const LaneImage dst{ImageView{tile + h * C, 2ull * C, 1, 0}, shape, C};
          NN_TRY(emitter.piece(byteCopy(), src, nullptr, dst));
        }
        continue;
      }
      if (layer.runtimeWeightsKMajor) {
        // [K, N]: tile row r is filter row kBegin + r's `channels` bytes from n0, contiguous, so
        // the copy moves a whole row a vector row (an image of chunk.bytes one-pixel rows).
        const ImageShape rows{1, chunk.bytes, 1, channels};
        const LaneImage src{ImageView{filter + uint64_t{chunk.kBegin} * N + n0, channels, N, 0}, rows, C};
        const LaneImage dst{ImageView{tile, C, C, 0}, rows, C};
        NN_TRY(emitter.piece(byteCopy(), src, nullptr, dst));
        continue;
      }
      // The tile's row r, column x is filter byte (n0 + x) * K + kBegin + r: both as an image of
      // `channels` rows of chunk.bytes one-byte pixels, read along K, written down the tile.
      const ImageShape shape{1, channels, chunk.bytes, 1};
      const LaneImage src{ImageView{filter + uint64_t{n0} * K + chunk.kBegin, 1, K, 0}, shape, C};
      const LaneImage dst{ImageView{tile, C, 1, 0}, shape, C};
      NN_TRY(emitter.piece(byteCopy(), src, nullptr, dst));
    }
  }
  return {};
}

nn::Status repackBias(uint32_t channels, uint64_t bias, uint64_t params, const hw::HwConfig& config,
                      EltwiseEmitter& emitter) {
  const uint32_t C = config.cols();
  const uint64_t row = config.paramRowBytes();
  const uint32_t full = channels / C, rest = channels % C;
  // Full rows: 4 x Cols bytes each, packed in the tensor, a parameter row apart on the device.
  if (full > 0) {
    const ImageShape shape{1, full, 1, 4 * C};
    const LaneImage src{ImageView{bias, 4 * C, 4 * C, 0}, shape, C};
    const LaneImage dst{ImageView{params, row, row, 0}, shape, C};
    NN_TRY(emitter.piece(byteCopy(), src, nullptr, dst));
  }
  if (rest > 0) {
    const ImageShape shape{1, 1, 1, 4 * rest};
    const LaneImage src{ImageView{bias + uint64_t{full} * 4 * C, 4 * rest, 4 * rest, 0}, shape, C};
    const LaneImage dst{ImageView{params + full * row, 4 * rest, 4 * rest, 0}, shape, C};
    NN_TRY(emitter.piece(byteCopy(), src, nullptr, dst));
  }
  return {};
}

nn::Status repackFp16Bias(uint32_t channels, uint64_t bias, uint64_t params, uint32_t perRow, uint64_t copyRow,
                          const hw::HwConfig& config, EltwiseEmitter& emitter) {
  return emitter.widenFp16(bias, channels, params, perRow, config.paramRowBytes(), copyRow);
}

}  // namespace weft::accel
