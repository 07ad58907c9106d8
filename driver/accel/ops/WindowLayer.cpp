#include "WindowLayer.h"

#include <fmt/format.h>

#include <algorithm>

#include "../RuntimeOperands.h"

namespace weft::accel {
namespace {

// The input rows (or columns) the windows of outputs [o0, o0 + n) read, clipped to [0, size):
// [begin, end), and the first tap's position relative to begin.
struct Span {
  int64_t begin = 0, end = 0, offset = 0;
  uint32_t length() const { return static_cast<uint32_t>(end - begin); }
};

Span inputSpan(uint32_t o0, uint32_t n, uint32_t stride, int32_t pad, uint32_t k, uint32_t dilation, uint32_t size) {
  const int64_t first = int64_t{o0} * stride - pad;
  const int64_t last = int64_t{o0 + n - 1} * stride - pad + int64_t{k - 1} * dilation;  // inclusive
  Span s;
  s.begin = std::clamp<int64_t>(first, 0, size);
  s.end = std::clamp<int64_t>(last + 1, 0, size);
  if (s.end <= s.begin) return Span{};  // every tap in the padding
  s.offset = first - s.begin;
  return s;
}

// Input rows (columns) a band of n outputs may read, unclipped: what a buffer must hold.
uint64_t spanBound(uint32_t n, uint32_t stride, uint32_t k, uint32_t dilation) {
  return uint64_t{n - 1} * stride + uint64_t{k - 1} * dilation + 1;
}

}  // namespace

std::vector<std::vector<uint8_t>> WindowLayer::constantImages(const hw::HwConfig& config) const {
  const uint32_t C = config.cols();
  const auto groups = static_cast<uint32_t>(ceilDiv(out.channels, C));
  std::vector<std::vector<uint8_t>> images;
  images.push_back(paramRows(fp16 ? fp16Columns(columns, C) : columns, groups, config));
  if (depthwise() && !weightsInput) {
    // Per output group, one row per tap: lane l holds the weight of output channel g*C + l.
    std::vector<uint8_t> w(size_t{groups} * taps() * C, static_cast<uint8_t>(wZp));
    if (!weights.empty()) {
      for (uint32_t g = 0; g < groups; ++g)
        for (uint32_t t = 0; t < taps(); ++t)
          for (uint32_t l = 0; l < C && g * C + l < out.channels; ++l) {
            w[(size_t{g} * taps() + t) * C + l] = weights[size_t{t} * out.channels + g * C + l];
          }
    }
    images.push_back(std::move(w));
  }
  if (biasInput) images.push_back(copyParamRow(config));
  return images;
}

std::vector<hw::ColumnParams> fp16Columns(const std::vector<hw::ColumnParams>& biases, uint32_t cols) {
  const uint32_t lanes = cols / 2;
  const auto groups = static_cast<uint32_t>(ceilDiv(biases.size(), lanes));
  std::vector<hw::ColumnParams> out(size_t{groups} * cols, hw::ColumnParams{0, 0, 0});
  for (size_t v = 0; v < biases.size(); ++v) out[v / lanes * cols + v % lanes].bias = biases[v].bias;
  return out;
}

uint64_t WindowLayer::laneOps() const { return out.elements() / (fp16 ? 2 : 1) * taps(); }

std::string WindowLayer::describe() const {
  static constexpr const char* kKinds[] = {"dwconv", "max", "avg", "mean"};
  const uint32_t valueBytes = fp16 ? 2 : 1;
  return fmt::format("{}{} {}x{} /{}x{} on {}x{}x{} -> {}x{}x{}", kKinds[static_cast<int>(kind)], fp16 ? " fp16" : "",
                     kh, kw, sh, sw, in.height, in.width, in.channels / valueBytes, out.height, out.width,
                     out.channels / valueBytes);
}

nn::Status WindowLayer::generate(const VectorPlacement& where, const hw::HwConfig& config, CommandSink& sink) const {
  const uint32_t C = config.cols();
  const LaneImage input{where.inputs[0], in, C}, output{where.outputs[0], out, C};
  const uint32_t groups = output.groups();
  const bool pixelMajor = depthMultiplier == 1 && in.channels % C == 0;
  // A group is C bytes of output channels: C values, or C/2 binary16 ones.
  const uint32_t valueBytes = fp16 ? 2 : 1, groupValues = C / valueBytes;
  const uint32_t accHalf = config.accRows() / 2;
  VectorCommands cmds(config, sink);
  cmds.setFp16Stores(fp16);
  if (biasInput) {
    // This execution's bias into the parameter rows, before any epoch loads them.
    EltwiseEmitter copies(config, sink);
    NN_TRY(copies.begin(where.constants[copyRowIndex()], std::nullopt));
    NN_TRY(repackBias(out.channels, where.inputs[*biasInput].origin, where.constants[0], config, copies));
    sink.add(PlannedCommand{hw::BarrierCmd{}, {}});
  }

  // Epochs: as many groups as the parameter memory holds and, for a depthwise layer, as leave
  // half the scratchpad for input tiles beside their weights.
  uint32_t epochGroups = std::min(groups, config.paramRows());
  if (depthwise()) epochGroups = std::min(epochGroups, std::max(1u, config.vecSpadRows() / 2 / taps()));

  for (uint32_t e0 = 0; e0 < groups; e0 += epochGroups) {
    const uint32_t e1 = std::min(groups, e0 + epochGroups), eg = e1 - e0;
    if (e0 > 0) {
      hw::BarrierCmd b;  // the next epoch's parameters and weights replace these
      sink.add(PlannedCommand{b, {}});
    }
    NN_TRY(cmds.loadRows(hw::Mem::kParam, where.constants[0] + uint64_t{e0} * config.paramRowBytes(), 0, eg,
                         config.paramRowBytes(), config.paramRowBytes(), paramBuffer()));
    const uint32_t resident = depthwise() ? eg * taps() : 0;
    if (depthwise() && weightsInput) {
      // Straight from the filter tensor: group g's row for tap t is channels [g*C, g*C + C) of
      // the tensor's row t.
      const uint64_t filter = where.inputs[*weightsInput].origin;
      for (uint32_t g = e0; g < e1; ++g) {
        NN_TRY(cmds.loadRows(hw::Mem::kVec, filter + uint64_t{g} * C, (g - e0) * taps(), taps(), output.groupBytes(g),
                             out.channels, vecBuffer(0)));
      }
    } else if (depthwise()) {
      NN_TRY(cmds.loadRows(hw::Mem::kVec, where.constants[weightImageIndex()] + uint64_t{e0} * taps() * C, 0,
                           resident, C, C, vecBuffer(0)));
    }
    // Input tiles are double-buffered (the next loads while this one is read) unless one
    // window alone needs the whole free scratchpad.
    uint32_t tileBuffers = 2;
    uint32_t bufRows = (config.vecSpadRows() - resident) / tileBuffers;

    // The tile: groups held at once (pixel-major: a chunk of the epoch; else one), and the
    // band of outputs (rows x columns) whose input box fits a buffer and output half the
    // accumulator.
    // (Command fields: dimensions and the pixel stride below 4096.)
    constexpr uint32_t kFieldMax = 4095;
    const uint32_t firstChunk = pixelMajor ? std::min(eg, kFieldMax) : 1, firstCols = std::min(out.width, kFieldMax);
    auto bandRows = [&](uint32_t nc, uint32_t gc) -> uint32_t {
      const uint64_t boxW = std::min<uint64_t>(spanBound(nc, sw, kw, dw), in.width);
      if (boxW > kFieldMax) return 0;
      uint32_t best = 0;
      for (uint32_t nr = 1; nr <= std::min(out.height, kFieldMax) && uint64_t{nr} * nc <= accHalf; ++nr) {
        const uint64_t boxH = std::min<uint64_t>(spanBound(nr, sh, kh, dh), in.height);
        if (boxH > kFieldMax || boxH * boxW * gc > bufRows) break;
        best = nr;
      }
      return best;
    };
    // Of the chunks and band widths that fit (halving from the largest), the one with the most
    // output pixels per command: each WINDOW and STORE costs a fixed pipeline fill and a DRAM
    // write latency, so wide bands of few groups beat many groups of one output row. A chunk
    // is also a load's bytes per pixel, and DRAM reads run at full bandwidth only when each
    // request carries latency x bandwidth / requests-in-flight bytes: chunks below that are
    // taken only when none above it fits. Ties go to the larger chunk, then the wider band.
    const uint64_t fullRateBytes =
        ceilDiv(config.get(hw::Param::kDramLatencyCycles) * config.get(hw::Param::kDramBytesPerCycle),
                config.get(hw::Param::kMaxOutstanding));
    const uint32_t rateChunk = static_cast<uint32_t>(std::min<uint64_t>(firstChunk, ceilDiv(fullRateBytes, C)));
    uint32_t chunk = 0, cols = 0, rows = 0;
    for (;;) {
      uint64_t bestPixels = 0;
      bool bestAtRate = false;
      for (uint32_t gc = firstChunk;; gc = (gc + 1) / 2) {
        for (uint32_t nc = firstCols;; nc = (nc + 1) / 2) {
          const uint32_t nr = bandRows(nc, gc);
          const uint64_t pixels = uint64_t{nr} * nc;
          const bool atRate = gc >= rateChunk;
          if (nr > 0 && (atRate > bestAtRate || (atRate == bestAtRate && pixels > bestPixels))) {
            bestAtRate = atRate;
            bestPixels = pixels;
            chunk = gc;
            cols = nc;
            rows = nr;
          }
          if (nc == 1) break;
        }
        if (gc == 1) break;
      }
      if (bestPixels > 0) break;
      if (tileBuffers == 1) {
        return NN_ERROR(BAD_DATA) << describe() << ": one window does not fit the vector scratchpad";
      }
      tileBuffers = 1;
      bufRows = config.vecSpadRows() - resident;
    }

    // The accumulator is cut into as many slots as bands fit (two at least, up to kMaxAccSlots):
    // a band's STORE frees its slot only when its last write is acknowledged, a DRAM latency
    // after it starts, so small bands with only two slots would leave the vector unit waiting.
    constexpr uint32_t kMaxAccSlots = 8;
    const uint32_t accSlots = std::clamp<uint32_t>(config.accRows() / (rows * cols), 2, kMaxAccSlots);
    const uint32_t accSlotRows = config.accRows() / accSlots;
    uint32_t tileBuf = 0, accBuf = 0;
    for (uint32_t b = 0; b < out.batches; ++b) {
      for (uint32_t oy0 = 0; oy0 < out.height; oy0 += rows) {
        const uint32_t nr = std::min(rows, out.height - oy0);
        const Span ys = inputSpan(oy0, nr, sh, padTop, kh, dh, in.height);
        for (uint32_t ox0 = 0; ox0 < out.width; ox0 += cols) {
          const uint32_t nc = std::min(cols, out.width - ox0);
          const Span xs = inputSpan(ox0, nc, sw, padLeft, kw, dw, in.width);
          const PixelBox box{b, static_cast<uint32_t>(ys.begin), ys.length(), static_cast<uint32_t>(xs.begin),
                             xs.length()};
          const bool empty = box.h == 0 || box.w == 0;
          for (uint32_t c0 = e0; c0 < e1; c0 += chunk) {
            const uint32_t gc = std::min(chunk, e1 - c0);
            const uint32_t base = resident + tileBuf * bufRows;
            const TileLayout tile{base, pixelMajor, gc, box.w, box.h};
            if (!empty && depthMultiplier == 1) NN_TRY(cmds.loadBox(input, box, tile, c0, vecBuffer(1 + tileBuf)));
            for (uint32_t g = c0; g < c0 + gc; ++g) {
              hw::WindowCmd w;
              w.kind = kind;
              w.fp16 = fp16;
              w.inSigned = inSigned;
              w.wSigned = wSigned;
              w.dm = depthMultiplier;
              w.phase = (g * groupValues) % depthMultiplier;
              if (!empty && depthMultiplier > 1) {
                // The input channels this group's outputs read, from channel (g*groupValues) / dm
                // on (valueBytes bytes each).
                const uint32_t first = g * groupValues / depthMultiplier * valueBytes;
                NN_TRY(cmds.loadPlane(input, box, first, std::min(C, in.channels - first), base,
                                      vecBuffer(1 + tileBuf)));
              }
              w.inAddr = empty ? 0 : (depthMultiplier > 1 ? base : tile.groupBase(g - c0));
              w.pixStride = tile.pixStride();
              w.rowStride = empty ? 0 : tile.rowStride();
              w.tileH = box.h;
              w.tileW = box.w;
              w.yOff = empty ? 0 : static_cast<int32_t>(ys.offset);
              w.xOff = empty ? 0 : static_cast<int32_t>(xs.offset);
              w.outH = nr;
              w.outW = nc;
              w.kH = kh;
              w.kW = kw;
              w.sH = sh;
              w.sW = sw;
              w.dH = dh;
              w.dW = dw;
              w.inZp = inZp;
              w.wZp = wZp;
              w.wAddr = depthwise() ? (g - e0) * taps() : 0;
              w.accAddr = accBuf * accSlotRows;
              BufferUses uses{{accBuffer(accBuf), true}, {paramBuffer(), false}};
              if (!empty) uses.push_back({vecBuffer(1 + tileBuf), false});
              if (depthwise()) uses.push_back({vecBuffer(0), false});
              cmds.vector(w, uses);
              NN_TRY(cmds.storeBox(output, PixelBox{b, oy0, nr, ox0, nc}, g, accBuf * accSlotRows, accBuffer(accBuf),
                                   g - e0, outZp, clamp.min, clamp.max));
              accBuf = (accBuf + 1) % accSlots;
              if (depthMultiplier > 1) tileBuf = (tileBuf + 1) % tileBuffers;
            }
            if (depthMultiplier == 1) tileBuf = (tileBuf + 1) % tileBuffers;
          }
        }
      }
    }
  }
  return {};
}

}  // namespace weft::accel
