#include "WindowLayer.h"

#include <fmt/format.h>

#include <algorithm>

#include "../RuntimeOperands.h"
#include "FastestCandidate.h"

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
  images.push_back(paramRows(isFloat(valueType) ? fp16Columns(columns, C) : columns, groups, config));
  if (second) {  // its rows after the first set's (an epoch loads both)
    const std::vector<uint8_t> rows = paramRows(second->columns, groups, config);
    images.back().insert(images.back().end(), rows.begin(), rows.end());
  }
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

uint32_t WindowLayer::epochGroups(const hw::HwConfig& config) const {
  const auto groups = static_cast<uint32_t>(ceilDiv(out.channels, config.cols()));
  uint32_t epoch = std::min(groups, second ? config.paramRows() / 2 : config.paramRows());
  if (depthwise()) epoch = std::min(epoch, std::max(1u, config.vecSpadRows() / 2 / taps()));
  return epoch;
}

uint32_t WindowLayer::epochs(const hw::HwConfig& config) const {
  return static_cast<uint32_t>(ceilDiv(ceilDiv(out.channels, config.cols()), epochGroups(config)));
}

uint64_t WindowLayer::laneOps() const { return out.elements() / valueBytes() * taps(); }

std::string WindowLayer::describe() const {
  static constexpr const char* kKinds[] = {"dwconv", "max", "avg", "mean"};
  const uint32_t bytes = valueBytes();
  return fmt::format("{}{} {}x{} /{}x{} on {}x{}x{} -> {}x{}x{}", kKinds[static_cast<int>(kind)],
                     isFloat(valueType) ? " fp16" : "",
                     kh, kw, sh, sw, in.height, in.width, in.channels / bytes, out.height, out.width,
                     out.channels / bytes);
}

// generate()'s state: the layer, its placement and the commands it makes, epoch by epoch.
class WindowLayer::Emission {
 public:
  // `partialPixelMajor`: load pixel-major also when the channels are not a multiple of C
  // (WindowLayer::generate chooses).
  Emission(const WindowLayer& layer, const VectorPlacement& where, const hw::HwConfig& config, CommandSink& sink,
           bool partialPixelMajor)
      : l_(layer), where_(where), config_(config), sink_(sink), C_(config.cols()),
        input_{where.inputs[0], layer.in, C_}, output_{where.outputs[0], layer.out, C_}, cmds_(config, sink) {
    if (layer.second) second_ = LaneImage{where.outputs.at(1), layer.out, C_};
    pixelMajor_ = layer.depthMultiplier == 1 && (layer.in.channels % C_ == 0 || partialPixelMajor);
    // A group is C bytes of output channels: C values, or C/2 binary16 ones.
    valueBytes_ = layer.valueBytes();
    groupValues_ = C_ / valueBytes_;
    cmds_.setStoreType(layer.valueType);
  }

  nn::Status run();

 private:
  // The tile of an epoch: groups held at once (pixel-major: a chunk of the epoch; else one), the
  // band of outputs (rows x columns) whose input box fits a buffer and output half the
  // accumulator, and the input buffers.
  struct Band {
    uint32_t chunk = 0, cols = 0, rows = 0;
    uint32_t tileBuffers = 2, bufRows = 0;
  };
  // Where the bands' loop is.
  struct Cursor {
    uint32_t tileBuf = 0, accBuf = 0, accSlots = 2, accSlotRows = 0;
  };

  nn::Status repackBias();
  nn::Status loadEpochConstants(uint32_t e0, uint32_t e1);
  nn::Result<Band> chooseBand(uint32_t eg, uint32_t resident) const;
  uint32_t bandRows(uint32_t nc, uint32_t gc, uint32_t bufRows) const;
  bool pixelMajorFits(const PixelBox& box, uint32_t c0, uint32_t gc) const;
  nn::Status epoch(uint32_t e0, uint32_t e1);
  nn::Status groupWindow(uint32_t e0, uint32_t g, const PixelBox& box, const PixelBox& outBox, const Span& ys,
                         const Span& xs, uint32_t base, const TileLayout& tile, uint32_t c0, Cursor& at,
                         const Band& band);

  // Command fields: dimensions and the pixel stride below 4096.
  static constexpr uint32_t kFieldMax = 4095;
  // The accumulator is cut into as many slots as bands fit (two at least, up to this): a band's
  // STORE frees its slot only when its last write is acknowledged, a DRAM latency after it
  // starts, so small bands with only two slots would leave the vector unit waiting.
  static constexpr uint32_t kMaxAccSlots = 8;

  const WindowLayer& l_;
  const VectorPlacement& where_;
  const hw::HwConfig& config_;
  CommandSink& sink_;
  const uint32_t C_;
  const LaneImage input_, output_;
  std::optional<LaneImage> second_;
  VectorCommands cmds_;
  bool pixelMajor_ = false;
  uint32_t valueBytes_ = 1, groupValues_ = 0;
};

// This execution's bias into the parameter rows, before any epoch loads them.
nn::Status WindowLayer::Emission::repackBias() {
  EltwiseEmitter copies(config_, sink_);
  NN_TRY(copies.begin(where_.constants[l_.copyRowIndex()], std::nullopt));
  const uint64_t bias = where_.inputs[*l_.biasInput].origin, copyRow = where_.constants[l_.copyRowIndex()];
  if (isFloat(l_.valueType)) {
    NN_TRY(accel::repackFp16Bias(l_.out.channels / 2, bias, where_.constants[0], C_ / 2, copyRow, config_, copies));
  } else {
    NN_TRY(accel::repackBias(l_.out.channels, bias, where_.constants[0], config_, copies));
  }
  sink_.add(PlannedCommand{hw::BarrierCmd{}, {}});
  return {};
}

nn::Status WindowLayer::Emission::run() {
  if (l_.biasInput) NN_TRY(repackBias());
  const uint32_t groups = output_.groups(), epochGroups = l_.epochGroups(config_);
  for (uint32_t e0 = 0; e0 < groups; e0 += epochGroups) {
    if (e0 > 0) {
      hw::BarrierCmd b;  // the next epoch's parameters and weights replace these
      sink_.add(PlannedCommand{b, {}});
    }
    NN_TRY(epoch(e0, std::min(groups, e0 + epochGroups)));
  }
  return {};
}

// The epoch's parameter rows and, for a depthwise layer, its weights.
nn::Status WindowLayer::Emission::loadEpochConstants(uint32_t e0, uint32_t e1) {
  const uint32_t eg = e1 - e0;
  if (!l_.paramRowsLoaded) {
    NN_TRY(cmds_.loadRows(hw::Mem::kParam, where_.constants[0] + uint64_t{e0} * config_.paramRowBytes(), 0, eg,
                          config_.paramRowBytes(), config_.paramRowBytes(), paramBuffer()));
    if (l_.second) {  // the second output's rows: groups on in the image, eg on in the memory
      NN_TRY(cmds_.loadRows(hw::Mem::kParam, where_.constants[0] + uint64_t{output_.groups() + e0} * config_.paramRowBytes(),
                            eg, eg, config_.paramRowBytes(), config_.paramRowBytes(), paramBuffer()));
    }
  }
  const uint32_t taps = l_.taps();
  if (l_.depthwise() && l_.weightsInput) {
    // Straight from the filter tensor: group g's row for tap t is channels [g*C, g*C + C) of
    // the tensor's row t.
    const uint64_t filter = where_.inputs[*l_.weightsInput].origin;
    for (uint32_t g = e0; g < e1; ++g) {
      NN_TRY(cmds_.loadRows(hw::Mem::kVec, filter + uint64_t{g} * C_, (g - e0) * taps, taps, output_.groupBytes(g),
                            l_.out.channels, vecBuffer(0)));
    }
  } else if (l_.depthwise()) {
    NN_TRY(cmds_.loadRows(hw::Mem::kVec, where_.constants[l_.weightImageIndex()] + uint64_t{e0} * taps * C_, 0,
                          eg * taps, C_, C_, vecBuffer(0)));
  }
  return {};
}

// Whether the box's groups [c0, c0 + gc) load pixel-major. A pixel-major LOAD reads whole
// groups of C bytes, one request for a pixel's groups: with channels not a multiple of C, a
// pixel's last group reads up to C - 1 bytes past its channels (the next pixel's: lanes no
// STORE writes), which past the image's last pixel would leave the tensor, so there that group
// loads on its own, group by group (a request of its bytes per pixel). Pixel-major keeps a DMA
// stream in one DRAM row where group-by-group jumps a pixel's stride every few bytes:
// SqueezeNet's MEAN over 13x13x1000 ran 8x slower group by group at weft16-lpddr4.
bool WindowLayer::Emission::pixelMajorFits(const PixelBox& box, uint32_t c0, uint32_t gc) const {
  if (!pixelMajor_) return false;
  const ImageShape& in = l_.in;
  if (uint64_t{c0 + gc} * C_ <= in.channels || box.h == 0 || box.w == 0) return true;
  const uint64_t readEnd = input_.pixelAddr(box.b, box.y0 + box.h - 1, box.x0 + box.w - 1) + uint64_t{c0 + gc} * C_;
  return readEnd <= input_.pixelAddr(in.batches - 1, in.height - 1, in.width - 1) + in.channels;
}

// The most output rows of a band nc columns wide over gc groups whose input box fits bufRows.
uint32_t WindowLayer::Emission::bandRows(uint32_t nc, uint32_t gc, uint32_t bufRows) const {
  const uint32_t accHalf = config_.accRows() / 2;
  const uint64_t boxW = std::min<uint64_t>(spanBound(nc, l_.sw, l_.kw, l_.dw), l_.in.width);
  if (boxW > kFieldMax) return 0;
  uint32_t best = 0;
  for (uint32_t nr = 1; nr <= std::min(l_.out.height, kFieldMax) && uint64_t{nr} * nc <= accHalf; ++nr) {
    const uint64_t boxH = std::min<uint64_t>(spanBound(nr, l_.sh, l_.kh, l_.dh), l_.in.height);
    if (boxH > kFieldMax || boxH * boxW * gc > bufRows) break;
    best = nr;
  }
  return best;
}

// Of the chunks and band widths that fit (halving from the largest), the one with the most
// output pixels per command: each WINDOW and STORE costs a fixed pipeline fill and a DRAM
// write latency, so wide bands of few groups beat many groups of one output row. A chunk
// is also a load's bytes per pixel, and DRAM reads run at full bandwidth only when each
// request carries latency x bandwidth / requests-in-flight bytes: chunks below that are
// taken only when none above it fits. Ties go to the larger chunk, then the wider band.
// Input tiles are double-buffered (the next loads while this one is read) unless one window
// alone needs the whole free scratchpad.
nn::Result<WindowLayer::Emission::Band> WindowLayer::Emission::chooseBand(uint32_t eg, uint32_t resident) const {
  Band band;
  band.bufRows = (config_.vecSpadRows() - resident) / band.tileBuffers;
  const uint32_t firstChunk = pixelMajor_ ? std::min(eg, kFieldMax) : 1;
  const uint32_t firstCols = std::min(l_.out.width, kFieldMax);
  const uint64_t fullRateBytes =
      ceilDiv(config_.get(hw::Param::kDramLatencyCycles) * config_.get(hw::Param::kDramBytesPerCycle),
              config_.get(hw::Param::kMaxOutstanding));
  const uint32_t rateChunk = static_cast<uint32_t>(std::min<uint64_t>(firstChunk, ceilDiv(fullRateBytes, C_)));
  for (;;) {
    uint64_t bestPixels = 0;
    bool bestAtRate = false;
    for (uint32_t gc = firstChunk;; gc = (gc + 1) / 2) {
      for (uint32_t nc = firstCols;; nc = (nc + 1) / 2) {
        const uint32_t nr = bandRows(nc, gc, band.bufRows);
        const uint64_t pixels = uint64_t{nr} * nc;
        const bool atRate = gc >= rateChunk;
        if (nr > 0 && (atRate > bestAtRate || (atRate == bestAtRate && pixels > bestPixels))) {
          bestAtRate = atRate;
          bestPixels = pixels;
          band.chunk = gc;
          band.cols = nc;
          band.rows = nr;
        }
        if (nc == 1) break;
      }
      if (gc == 1) break;
    }
    if (bestPixels > 0) return band;
    if (band.tileBuffers == 1) {
      return NN_ERROR(BAD_DATA) << l_.describe() << ": one window does not fit the vector scratchpad";
    }
    band.tileBuffers = 1;
    band.bufRows = config_.vecSpadRows() - resident;
  }
}

// The epoch's constants, then per batch, band of output rows and column segment, its groups a
// chunk at a time: the chunk's input box loaded (pixel-major: all its groups at once), then a
// WINDOW and its STORE per group.
nn::Status WindowLayer::Emission::epoch(uint32_t e0, uint32_t e1) {
  NN_TRY(loadEpochConstants(e0, e1));
  const uint32_t resident = l_.depthwise() ? (e1 - e0) * l_.taps() : 0;
  auto chosen = chooseBand(e1 - e0, resident);
  if (!chosen.ok()) return chosen.error();
  const Band band = chosen.value();
  Cursor at;
  at.accSlots = std::clamp<uint32_t>(config_.accRows() / (band.rows * band.cols), 2, kMaxAccSlots);
  at.accSlotRows = config_.accRows() / at.accSlots;
  const ImageShape& out = l_.out;
  for (uint32_t b = 0; b < out.batches; ++b) {
    for (uint32_t oy0 = 0; oy0 < out.height; oy0 += band.rows) {
      const uint32_t nr = std::min(band.rows, out.height - oy0);
      const Span ys = inputSpan(oy0, nr, l_.sh, l_.padTop, l_.kh, l_.dh, l_.in.height);
      for (uint32_t ox0 = 0; ox0 < out.width; ox0 += band.cols) {
        const uint32_t nc = std::min(band.cols, out.width - ox0);
        const Span xs = inputSpan(ox0, nc, l_.sw, l_.padLeft, l_.kw, l_.dw, l_.in.width);
        const PixelBox box{b, static_cast<uint32_t>(ys.begin), ys.length(), static_cast<uint32_t>(xs.begin),
                           xs.length()};
        const PixelBox outBox{b, oy0, nr, ox0, nc};
        const bool empty = box.h == 0 || box.w == 0;
        // Groups [c0, c0 + gc): their input box loaded (pixel-major or group by group), then a
        // WINDOW and its STORE per group.
        auto chunk = [&](uint32_t c0, uint32_t gc, bool pixelMajor) -> nn::Status {
          const uint32_t base = resident + at.tileBuf * band.bufRows;
          const TileLayout tile{base, pixelMajor, gc, box.w, box.h};
          if (!empty && l_.depthMultiplier == 1) {
            NN_TRY(cmds_.loadBox(input_, box, tile, c0, vecBuffer(1 + at.tileBuf)));
          }
          for (uint32_t g = c0; g < c0 + gc; ++g) {
            NN_TRY(groupWindow(e0, g, box, outBox, ys, xs, base, tile, c0, at, band));
          }
          if (l_.depthMultiplier == 1) at.tileBuf = (at.tileBuf + 1) % band.tileBuffers;
          return {};
        };
        for (uint32_t c0 = e0; c0 < e1; c0 += band.chunk) {
          const uint32_t gc = std::min(band.chunk, e1 - c0);
          if (!pixelMajor_ || pixelMajorFits(box, c0, gc)) {
            NN_TRY(chunk(c0, gc, pixelMajor_));
          } else {
            // The partial last group would read past the image: the others pixel-major, it
            // alone group by group.
            if (gc > 1) NN_TRY(chunk(c0, gc - 1, true));
            NN_TRY(chunk(c0 + gc - 1, 1, false));
          }
        }
      }
    }
  }
  return {};
}

// Group g's WINDOW over the box (its input plane loaded first when the depth multiplier makes
// each group read its own channels) and its STORE.
nn::Status WindowLayer::Emission::groupWindow(uint32_t e0, uint32_t g, const PixelBox& box, const PixelBox& outBox,
                                              const Span& ys, const Span& xs, uint32_t base, const TileLayout& tile,
                                              uint32_t c0, Cursor& at, const Band& band) {
  const bool empty = box.h == 0 || box.w == 0;
  const uint32_t dm = l_.depthMultiplier;
  hw::WindowCmd w;
  w.kind = l_.kind;
  w.fp16 = isFloat(l_.valueType);
  w.inSigned = isSignedInteger(l_.valueType);
  w.wSigned = isSignedInteger(l_.weightType);
  w.dm = dm;
  w.phase = (g * groupValues_) % dm;
  if (!empty && dm > 1) {
    // The input channels this group's outputs read, from channel (g*groupValues) / dm on
    // (valueBytes bytes each).
    const uint32_t first = g * groupValues_ / dm * valueBytes_;
    NN_TRY(cmds_.loadPlane(input_, box, first, std::min(C_, l_.in.channels - first), base,
                           vecBuffer(1 + at.tileBuf)));
  }
  w.inAddr = empty ? 0 : (dm > 1 ? base : tile.groupBase(g - c0));
  w.pixStride = tile.pixStride();
  w.rowStride = empty ? 0 : tile.rowStride();
  w.tileH = box.h;
  w.tileW = box.w;
  w.yOff = empty ? 0 : static_cast<int32_t>(ys.offset);
  w.xOff = empty ? 0 : static_cast<int32_t>(xs.offset);
  w.outH = outBox.h;
  w.outW = outBox.w;
  w.kH = l_.kh;
  w.kW = l_.kw;
  w.sH = l_.sh;
  w.sW = l_.sw;
  w.dH = l_.dh;
  w.dW = l_.dw;
  w.inZp = l_.inZp;
  w.wZp = l_.wZp;
  w.wAddr = l_.depthwise() ? (g - e0) * l_.taps() : 0;
  w.accAddr = at.accBuf * at.accSlotRows;
  BufferUses uses{{accBuffer(at.accBuf), true}, {paramBuffer(), false}};
  if (!empty) uses.push_back({vecBuffer(1 + at.tileBuf), false});
  if (l_.depthwise()) uses.push_back({vecBuffer(0), false});
  cmds_.vector(w, uses);
  NN_TRY(cmds_.storeBox(output_, outBox, g, at.accBuf * at.accSlotRows, accBuffer(at.accBuf), g - e0, l_.outZp,
                        l_.clamp.min, l_.clamp.max));
  if (l_.second) {
    const uint32_t eg = std::min(output_.groups(), e0 + l_.epochGroups(config_)) - e0;
    NN_TRY(cmds_.storeBox(*second_, outBox, g, at.accBuf * at.accSlotRows, accBuffer(at.accBuf), eg + g - e0, 0,
                          l_.second->clamp.min, l_.second->clamp.max));
  }
  at.accBuf = (at.accBuf + 1) % at.accSlots;
  if (dm > 1) at.tileBuf = (at.tileBuf + 1) % band.tileBuffers;
  return {};
}

// With channels not a multiple of C the input tiles' layout is a choice: pixel-major (a DMA
// request per pixel's groups, streaming DRAM rows; a pixel's last group reads lanes it does not
// use) or group by group (a request of a group's bytes per pixel, a pixel's stride apart: what a
// cycle-level DRAM pays a row activation for every few of). The tile shapes differ too
// (chooseBand). Each is scheduled where the tensors lie and the faster is emitted: SqueezeNet's
// MEAN over 13x13x1000 at weft16-lpddr4 takes pixel-major (224,596 -> 54,304 cycles), the
// regression set's small windows over 11 and 13 channels at weft8 group by group.
nn::Status WindowLayer::generate(const VectorPlacement& where, const hw::HwConfig& config, CommandSink& sink) const {
  bool partialPixelMajor = false;
  // Both layouts fit alike (pixel-major's chunks include the group-by-group one's): a fit check
  // takes either.
  if (depthMultiplier == 1 && in.channels % config.cols() != 0 && !sink.provesFitOnly()) {
    const auto fastest = fastestCandidate(config, 2, [&](CommandSink& s, uint32_t pixelMajor) {
      return Emission(*this, where, config, s, pixelMajor == 1).run();
    });
    if (!fastest.ok()) return fastest.error();
    partialPixelMajor = *fastest == 1;
    sink.note(partialPixelMajor ? "tiles pixel-major" : "tiles group by group");
  }
  return Emission(*this, where, config, sink, partialPixelMajor).run();
}

}  // namespace weft::accel
