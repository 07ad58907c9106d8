#include "EltwiseLayer.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "OperationReader.h"

namespace weft::accel {
namespace {

constexpr uint32_t kStrideMax = 4095;  // ELTWISE stride fields

bool sameShape(const ImageShape& x, const ImageShape& y) {
  return x.batches == y.batches && x.height == y.height && x.width == y.width && x.channels == y.channels;
}

// The image is its shape's bytes, packed, with nothing between rows or images.
bool dense(const LaneImage& i) {
  const ImageShape& s = i.shape;
  return i.view.pixelStride == s.channels && i.view.rowStride == uint64_t{s.width} * s.channels &&
         (s.batches == 1 || i.view.imageStride == uint64_t{s.height} * i.view.rowStride);
}

// Few pixels of many channels with a row broadcast to them (a decode step's attention mask over
// 12 heads x 513 positions, a bias row): the general path's tile a lane group (a 16-byte request a
// pixel) left DRAM bursts half empty. Here a pixel's channels load as one run (a spread LOAD) and
// leave as STOREs of several column tiles. 8-bit values; `b` one pixel of out's channels; the
// operands and the output dense.
bool wideRowShapes(const ImageShape& a, const ImageShape* b, const ImageShape& out, ElementType type, uint32_t cols) {
  if (bytesPerElement(type) != 1 || out.channels <= cols || !sameShape(a, out)) return false;
  return b != nullptr && b->batches == 1 && b->height == 1 && b->width == 1 && b->channels == out.channels &&
         out.pixels() > 1;
}

uint32_t storeTilesOf(const hw::HwConfig& config) {
  return config.cols() % config.busBytes() == 0 ? hw::micro::kStoreFifoDepth : 1;
}

}  // namespace

uint32_t storeTileParamRows(const hw::HwConfig& config) { return std::min(storeTilesOf(config), config.paramRows()); }

uint32_t wideRowParamRows(const ImageShape& a, const ImageShape* b, const ImageShape& out, ElementType type,
                          const hw::HwConfig& config) {
  return wideRowShapes(a, b, out, type, config.cols()) ? storeTileParamRows(config) : 1;
}

std::vector<uint8_t> lutImage(const std::vector<int32_t>& lut, const hw::HwConfig& config) {
  std::vector<uint8_t> image(size_t{config.lutRows()} * config.cols() * 4, 0);
  std::memcpy(image.data(), lut.data(), std::min(image.size(), lut.size() * 4));
  return image;
}

EltwiseEmitter::EltwiseEmitter(const hw::HwConfig& config, CommandSink& sink)
    : config_(config), cmds_(config, sink), cols_(config.cols()), bufRows_(config.vecSpadRows() / 4),
      accHalf_(config.accRows() / 2) {}

nn::Status EltwiseEmitter::begin(uint64_t paramAddr, std::optional<uint64_t> lutAddr, uint32_t paramRows) {
  paramRows_ = paramRows;
  NN_TRY(cmds_.loadRows(hw::Mem::kParam, paramAddr, 0, paramRows, config_.paramRowBytes(), config_.paramRowBytes(),
                        paramBuffer()));
  lut_ = lutAddr.has_value();
  if (lut_) {
    NN_TRY(cmds_.loadRows(hw::Mem::kLut, *lutAddr, 0, config_.lutRows(), 4 * cols_, 4 * cols_, lutBuffer()));
  }
  return {};
}

nn::Status EltwiseEmitter::loadLut(uint64_t lutAddr) {
  lut_ = true;
  return cmds_.loadRows(hw::Mem::kLut, lutAddr, 0, config_.lutRows(), 4 * cols_, 4 * cols_, lutBuffer());
}

hw::EltwiseCmd EltwiseEmitter::command(const EltwiseMath& m) const {
  hw::EltwiseCmd e;
  e.kind = m.kind;
  e.fp16 = isFloat(m.aType);
  e.aSigned = isSignedInteger(m.aType);
  e.bSigned = isSignedInteger(m.bType);
  e.aZp = m.kind == hw::EltKind::kLut ? 0 : m.aZp;
  e.bZp = m.binary() ? m.bZp : 0;
  e.leftShift = m.leftShift;
  e.aMult = m.aMult;
  e.bMult = m.bMult;
  e.aShift = m.aShift;
  e.bShift = m.bShift;
  e.aAddr = tile_ * bufRows_;
  e.bAddr = (2 + tile_) * bufRows_;
  e.accAddr = acc_ * accHalf_;
  return e;
}

void EltwiseEmitter::compute(hw::EltwiseCmd e, bool binary) {
  BufferUses uses{{accBuffer(acc_), true}, {paramBuffer(), false}, {vecBuffer(1 + tile_), false}};
  if (binary) uses.push_back({vecBuffer(3 + tile_), false});
  if (e.kind == hw::EltKind::kLut) uses.push_back({lutBuffer(), false});
  cmds_.vector(e, uses);
}

nn::Status EltwiseEmitter::piece(const EltwiseMath& math, const LaneImage& a, const LaneImage* b,
                                 const LaneImage& out) {
  cmds_.setStoreType(math.aType);
  const bool binary = math.binary() && b != nullptr;
  const bool shapes = sameShape(a.shape, out.shape) && (!binary || sameShape(b->shape, out.shape));
  if (shapes && dense(a) && dense(out) && (!binary || dense(*b))) return flat(math, a, binary ? b : nullptr, out);
  if (paramRows_ > 1 && wideRowShapes(a.shape, binary ? &b->shape : nullptr, out.shape, math.aType, cols_) &&
      dense(a) && dense(out) && (!binary || dense(*b))) {
    return wideRows(math, a, binary ? b : nullptr, out);
  }
  if (shapes && a.packed() && out.shape.channels % cols_ == 0 && (!binary || b->packed()) &&
      uint64_t{out.shape.width} * out.groups() <= std::min(bufRows_, accHalf_)) {
    return rowPacked(math, a, binary ? b : nullptr, out);
  }
  if (takesPixelRuns(math, a, b, out)) return pixelRuns(math, a, out);
  return general(math, a, binary ? b : nullptr, out);
}

bool EltwiseEmitter::takesPixelRuns(const EltwiseMath& math, const LaneImage& a, const LaneImage* b,
                                    const LaneImage& out) const {
  return pixelRuns_ && !(math.binary() && b != nullptr) && sameShape(a.shape, out.shape) &&
         bytesPerElement(math.aType) == 1 && out.groups() > 1 && out.groups() <= std::min(bufRows_, accHalf_) &&
         out.shape.width > 1;
}

nn::Status EltwiseEmitter::widenFp16(uint64_t src, uint64_t values, uint64_t dst, uint32_t perRow,
                                     uint64_t rowStride, uint64_t zeroRow) {
  const uint32_t lanes = cols_ / 2;  // binary16 values a scratchpad row, binary32 ones an accumulator row
  if (perRow == 0 || perRow % lanes != 0) {
    return NN_ERROR(BAD_DATA) << "widening binary16 to rows of " << perRow << " values, not a multiple of " << lanes;
  }
  const uint32_t k = perRow / lanes;  // scratchpad rows a destination row takes
  const uint32_t tileRows = std::min(bufRows_, accHalf_) / k * k;
  if (tileRows == 0) return NN_ERROR(BAD_DATA) << "a destination row of " << perRow << " values exceeds the buffers";
  const uint64_t rows = ceilDiv(values, lanes);
  const auto rem = static_cast<uint32_t>(values % lanes);
  const uint32_t rowBytes = 4 * lanes;  // one accumulator row stored raw
  EltwiseMath math;
  math.kind = hw::EltKind::kAdd;
  math.aType = math.bType = ElementType::kFloat16;
  cmds_.setStoreType(ElementType::kInt32Raw);
  // Scratchpad row r lands at dst + (r / k) * rowStride + (r % k) * rowBytes; tiles start at a
  // multiple of k, so a tile's rows fill whole destination rows but for the last.
  auto store = [&](uint64_t r, uint32_t count, uint32_t acc, uint32_t bytes) -> nn::Status {
    const uint64_t at = dst + r / k * rowStride + r % k * rowBytes;
    if (count == 0) return {};
    if (r % k == 0 && count >= k && k > 1) {
      const uint32_t whole = count / k;
      NN_TRY(cmds_.storeRows(at, rowBytes, k, bytes, acc, accBuffer(acc_), 0, 0, 0, 0, whole, rowStride));
      if (count % k == 0) return {};
      return cmds_.storeRows(at + whole * rowStride, rowBytes, count % k, bytes, acc + whole * k, accBuffer(acc_), 0, 0,
                             0, 0);
    }
    return cmds_.storeRows(at, k == 1 ? rowStride : rowBytes, count, bytes, acc, accBuffer(acc_), 0, 0, 0, 0);
  };
  for (uint64_t r0 = 0; r0 < rows; r0 += tileRows) {
    const auto t = static_cast<uint32_t>(std::min<uint64_t>(tileRows, rows - r0));
    hw::EltwiseCmd e = command(math);
    // The last row may read up to Cols - 1 bytes past the tensor (allocations keep that slack):
    // lanes computed, never stored.
    NN_TRY(cmds_.loadRows(hw::Mem::kVec, src + r0 * cols_, e.aAddr, t, cols_, cols_, vecBuffer(1 + tile_)));
    NN_TRY(cmds_.loadRows(hw::Mem::kVec, zeroRow, e.bAddr, 1, cols_, cols_, vecBuffer(3 + tile_)));
    e.count0 = t;
    e.count1 = 1;
    e.aStride0 = 1;
    e.bStride0 = 0;
    compute(e, true);
    const uint32_t full = r0 + t == rows && rem != 0 ? t - 1 : t;
    NN_TRY(store(r0, full, e.accAddr, rowBytes));
    if (full < t) NN_TRY(store(r0 + full, 1, e.accAddr + full, 4 * rem));
    tile_ ^= 1;
    acc_ ^= 1;
  }
  return {};
}

nn::Status EltwiseEmitter::flat(const EltwiseMath& math, const LaneImage& a, const LaneImage* b,
                                const LaneImage& out) {
  const uint64_t bytes = out.shape.elements();
  const uint64_t rows = ceilDiv(bytes, cols_);
  const uint32_t rem = static_cast<uint32_t>(bytes % cols_);
  const uint32_t tileRows = std::min(bufRows_, accHalf_);
  for (uint64_t r0 = 0; r0 < rows; r0 += tileRows) {
    const auto t = static_cast<uint32_t>(std::min<uint64_t>(tileRows, rows - r0));
    hw::EltwiseCmd e = command(math);
    // The last row may reach up to Cols - 1 bytes past the tensor (allocations keep that slack);
    // those lanes are computed and never stored.
    NN_TRY(cmds_.loadRows(hw::Mem::kVec, a.view.origin + r0 * cols_, e.aAddr, t, cols_, cols_, vecBuffer(1 + tile_)));
    if (b != nullptr) {
      NN_TRY(cmds_.loadRows(hw::Mem::kVec, b->view.origin + r0 * cols_, e.bAddr, t, cols_, cols_,
                            vecBuffer(3 + tile_)));
    }
    e.count0 = t;
    e.count1 = 1;
    e.aStride0 = e.bStride0 = 1;
    compute(e, b != nullptr);
    const bool last = r0 + t == rows;
    const uint32_t full = last && rem != 0 ? t - 1 : t;
    const uint64_t dram = out.view.origin + r0 * cols_;
    if (full > 0) {
      NN_TRY(cmds_.storeRows(dram, cols_, full, cols_, e.accAddr, accBuffer(acc_), 0, math.outZp, math.clamp.min,
                             math.clamp.max));
    }
    if (full < t) {
      NN_TRY(cmds_.storeRows(dram + uint64_t{full} * cols_, cols_, 1, rem, e.accAddr + full, accBuffer(acc_), 0,
                             math.outZp, math.clamp.min, math.clamp.max));
    }
    tile_ ^= 1;
    acc_ ^= 1;
  }
  return {};
}

nn::Status EltwiseEmitter::rowPacked(const EltwiseMath& math, const LaneImage& a, const LaneImage* b,
                                     const LaneImage& out) {
  const ImageShape& s = out.shape;
  const uint32_t rowUnits = s.width * out.groups();  // scratchpad rows of one image row
  const uint32_t band = std::max(1u, std::min(bufRows_, accHalf_) / rowUnits);
  for (uint32_t n = 0; n < s.batches; ++n) {
    for (uint32_t y0 = 0; y0 < s.height; y0 += band) {
      const uint32_t ty = std::min(band, s.height - y0);
      const PixelBox box{n, y0, ty, 0, s.width};
      hw::EltwiseCmd e = command(math);
      NN_TRY(cmds_.loadBox(a, box, TileLayout{e.aAddr, true, a.groups(), s.width, ty}, 0, vecBuffer(1 + tile_)));
      if (b != nullptr) {
        NN_TRY(cmds_.loadBox(*b, box, TileLayout{e.bAddr, true, b->groups(), s.width, ty}, 0, vecBuffer(3 + tile_)));
      }
      e.count0 = ty * rowUnits;
      e.count1 = 1;
      e.aStride0 = e.bStride0 = 1;
      compute(e, b != nullptr);
      if (out.packed()) {
        NN_TRY(cmds_.storeRows(out.pixelAddr(n, y0, 0), cols_, rowUnits, cols_, e.accAddr, accBuffer(acc_), 0,
                               math.outZp, math.clamp.min, math.clamp.max, ty, out.view.rowStride));
      } else {  // pixels strided in the output (a CONCATENATION input's channels): a STORE a row
        for (uint32_t y = 0; y < ty; ++y) {
          NN_TRY(cmds_.storeRows(out.pixelAddr(n, y0 + y, 0), cols_, out.groups(), cols_, e.accAddr + y * rowUnits,
                                 accBuffer(acc_), 0, math.outZp, math.clamp.min, math.clamp.max, s.width,
                                 out.view.pixelStride));
        }
      }
      tile_ ^= 1;
      acc_ ^= 1;
    }
  }
  return {};
}

// Tiles of P pixels x G lane groups, held group-major (row g*P + p: lane group g of pixel p), so
// that one ELTWISE walks pixels (i0) and groups (i1) with the broadcast row's group g at b row g.
nn::Status EltwiseEmitter::wideRows(const EltwiseMath& math, const LaneImage& a, const LaneImage* b,
                                    const LaneImage& out) {
  const uint64_t C = out.shape.channels, pixels = out.shape.pixels();
  const uint32_t G = out.groups(), lastBytes = out.groupBytes(G - 1);
  const uint32_t limit = std::min(bufRows_, accHalf_);
  // At least two tiles, so that one's load overlaps the other's STOREs.
  const auto P = static_cast<uint32_t>(std::min<uint64_t>({(pixels + 1) / 2, limit / G, kStrideMax}));
  if (P == 0 || G > limit) return general(math, a, b, out);
  const uint32_t tiles = std::min(paramRows_, cmds_.maxStoreTiles());
  for (uint64_t p0 = 0; p0 < pixels; p0 += P) {
    const auto n = static_cast<uint32_t>(std::min<uint64_t>(P, pixels - p0));
    hw::EltwiseCmd e = command(math);
    // Each pixel's groups as one run; its last group may read up to Cols - 1 bytes past the
    // tensor (allocations keep that slack): lanes computed, never stored.
    NN_TRY(cmds_.loadSpread(a.view.origin + p0 * C, e.aAddr, n, C, G, vecBuffer(1 + tile_)));
    if (b != nullptr) NN_TRY(cmds_.loadRows(hw::Mem::kVec, b->view.origin, e.bAddr, G, cols_, cols_, vecBuffer(3 + tile_)));
    e.count0 = n;
    e.count1 = G;
    e.aStride0 = 1;
    e.aStride1 = n;
    e.bStride0 = 0;
    e.bStride1 = 1;
    compute(e, b != nullptr);
    for (uint32_t g0 = 0; g0 < G; g0 += tiles) {
      const uint32_t t = std::min(tiles, G - g0);
      NN_TRY(cmds_.storeTiledRows(out.view.origin + p0 * C + uint64_t{g0} * cols_, C, n, t,
                                  g0 + t == G ? lastBytes : cols_, e.accAddr + g0 * n, n, accBuffer(acc_), 0,
                                  math.outZp, math.clamp.min, math.clamp.max));
    }
    tile_ ^= 1;
    acc_ ^= 1;
  }
  return {};
}

// Tiles of P pixels x G lane groups, held group-major as in wideRows (row g*P + p), each pixel's
// groups loaded as one run (one spread LOAD a tile, runs a pixel's stride apart) and stored as
// STOREs of several column tiles a pixel's stride apart: for pixels strided in DRAM (attention's
// head split and merge, a SLICE of rows) the general path's tile a lane group made a request of
// Cols bytes a pixel, a row activation every few on a cycle-level DRAM and half-empty bursts on
// the simple pipe. A tile takes whole image rows when they are narrower than it (the head merge's
// rows are 12 pixels). A pixel's last group may read up to Cols - 1 bytes past its channels
// (within the tensor, or in the allocations' slack past it): lanes computed, never stored.
nn::Status EltwiseEmitter::pixelRuns(const EltwiseMath& math, const LaneImage& a, const LaneImage& out) {
  const ImageShape& s = out.shape;
  const uint32_t G = out.groups(), lastBytes = out.groupBytes(G - 1);
  const auto P = static_cast<uint32_t>(std::min<uint64_t>(std::min(bufRows_, accHalf_) / G, kStrideMax));
  // Rows wider than a tile are cut into tiles of equal width (197 tokens: 99 and 98, not 128 and 69).
  const uint32_t w = static_cast<uint32_t>(ceilDiv(s.width, ceilDiv(s.width, P)));
  const uint32_t rowsPerTile = w == s.width ? std::max(1u, P / w) : 1;
  const uint32_t tiles = std::min(paramRows_, cmds_.maxStoreTiles());
  for (uint32_t n = 0; n < s.batches; ++n) {
    for (uint32_t y0 = 0; y0 < s.height; y0 += rowsPerTile) {
      const uint32_t h = std::min(rowsPerTile, s.height - y0);
      for (uint32_t x0 = 0; x0 < s.width; x0 += w) {
        const uint32_t tw = std::min(w, s.width - x0), pixels = h * tw;
        hw::EltwiseCmd e = command(math);
        NN_TRY(cmds_.loadSpread(a.pixelAddr(n, y0, x0), e.aAddr, tw, a.view.pixelStride, G, vecBuffer(1 + tile_),
                                pixels, h, a.view.rowStride));
        e.count0 = pixels;
        e.count1 = G;
        e.aStride0 = 1;
        e.aStride1 = pixels;
        compute(e, false);
        for (uint32_t r = 0; r < h; ++r) {
          for (uint32_t g0 = 0; g0 < G; g0 += tiles) {
            const uint32_t t = std::min(tiles, G - g0);
            NN_TRY(cmds_.storeTiledRows(out.pixelAddr(n, y0 + r, x0) + uint64_t{g0} * cols_, out.view.pixelStride, tw,
                                        t, g0 + t == G ? lastBytes : cols_, e.accAddr + g0 * pixels + r * tw, pixels,
                                        accBuffer(acc_), 0, math.outZp, math.clamp.min, math.clamp.max));
          }
        }
        tile_ ^= 1;
        acc_ ^= 1;
      }
    }
  }
  return {};
}

nn::Status EltwiseEmitter::general(const EltwiseMath& math, const LaneImage& a, const LaneImage* b,
                                   const LaneImage& out) {
  const ImageShape& s = out.shape;
  const uint32_t valueBytes = bytesPerElement(math.aType);  // a lane broadcasts one value
  const uint32_t limit = std::min(bufRows_, accHalf_);
  const uint32_t tx = std::min({s.width, kStrideMax, limit});
  const uint32_t ty = std::max(1u, std::min(s.height, limit / tx));
  // One operand's box for output box `o` (stride-0 dimensions where it is broadcast) and how the
  // ELTWISE walks it.
  struct Operand {
    PixelBox box;
    bool laneBroadcast;
    uint32_t stride0, stride1;
  };
  auto operand = [&](const LaneImage& x, const PixelBox& o) {
    const ImageShape& xs = x.shape;
    Operand r;
    r.box = PixelBox{xs.batches > 1 ? o.b : 0, xs.height > 1 ? o.y0 : 0, xs.height > 1 ? o.h : 1,
                     xs.width > 1 ? o.x0 : 0, xs.width > 1 ? o.w : 1};
    r.laneBroadcast = xs.channels == valueBytes && s.channels > valueBytes;
    r.stride0 = xs.width > 1 ? 1 : 0;
    r.stride1 = xs.height > 1 ? r.box.w : 0;
    return r;
  };
  for (uint32_t n = 0; n < s.batches; ++n) {
    for (uint32_t y0 = 0; y0 < s.height; y0 += ty) {
      for (uint32_t x0 = 0; x0 < s.width; x0 += tx) {
        const PixelBox o{n, y0, std::min(ty, s.height - y0), x0, std::min(tx, s.width - x0)};
        const Operand oa = operand(a, o);
        const Operand ob = b != nullptr ? operand(*b, o) : Operand{};
        for (uint32_t g = 0; g < out.groups(); ++g) {
          hw::EltwiseCmd e = command(math);
          auto load = [&](const LaneImage& x, const Operand& op, uint32_t base, uint32_t buffer) {
            return cmds_.loadPlane(x, op.box, op.laneBroadcast ? 0 : g * cols_,
                                   op.laneBroadcast ? valueBytes : x.groupBytes(g), base, buffer);
          };
          NN_TRY(load(a, oa, e.aAddr, vecBuffer(1 + tile_)));
          e.aBcast = oa.laneBroadcast;
          e.aStride0 = oa.stride0;
          e.aStride1 = oa.stride1;
          if (b != nullptr) {
            NN_TRY(load(*b, ob, e.bAddr, vecBuffer(3 + tile_)));
            e.bBcast = ob.laneBroadcast;
            e.bStride0 = ob.stride0;
            e.bStride1 = ob.stride1;
          }
          e.count0 = o.w;
          e.count1 = o.h;
          compute(e, b != nullptr);
          NN_TRY(cmds_.storeBox(out, o, g, e.accAddr, accBuffer(acc_), 0, math.outZp, math.clamp.min,
                                math.clamp.max));
          tile_ ^= 1;
          acc_ ^= 1;
        }
      }
    }
  }
  return {};
}

std::vector<std::vector<uint8_t>> EltwiseLayer::constantImages(const hw::HwConfig& config) const {
  std::vector<std::vector<uint8_t>> images;
  const uint32_t rows = wideRowParamRows(inputs[0].shape, secondShape(), outputs[0].shape, math.aType, config);
  images.push_back(paramRows(std::vector<hw::ColumnParams>(size_t{rows} * config.cols(), math.column), rows, config));
  if (math.kind == hw::EltKind::kLut) images.push_back(lutImage(math.lut, config));
  if (!constantB.empty()) {  // with a row of slack: the vector unit reads whole rows
    std::vector<uint8_t> b = constantB;
    b.resize(b.size() + config.cols(), 0);
    images.push_back(std::move(b));
  }
  return images;
}

nn::Status EltwiseLayer::generate(const VectorPlacement& where, const hw::HwConfig& config, CommandSink& sink) const {
  const uint32_t C = config.cols();
  EltwiseEmitter emitter(config, sink);
  NN_TRY(emitter.begin(where.constants[0],
                       math.kind == hw::EltKind::kLut ? std::optional<uint64_t>(where.constants[1]) : std::nullopt,
                       wideRowParamRows(inputs[0].shape, secondShape(), outputs[0].shape, math.aType, config)));
  const LaneImage a{where.inputs[0], inputs[0].shape, C};
  const LaneImage out{where.outputs[0], outputs[0].shape, C};
  if (!constantB.empty()) {
    const ImageShape& s = constantBShape;
    const ImageView dense{where.constants.back(), s.channels, uint64_t{s.width} * s.channels,
                          uint64_t{s.height} * s.width * s.channels};
    const LaneImage b{dense, s, C};
    return emitter.piece(math, a, &b, out);
  }
  if (inputs.size() > 1) {
    const LaneImage b{where.inputs[1], inputs[1].shape, C};
    return emitter.piece(math, a, &b, out);
  }
  return emitter.piece(math, a, nullptr, out);
}

std::string EltwiseLayer::describe() const {
  static constexpr const char* kKinds[] = {"add", "mul", "lut", "copy"};
  const ImageShape& o = outputs[0].shape;
  return fmt::format("{}{} {}x{}x{}x{}", kKinds[static_cast<int>(math.kind)], isFloat(math.aType) ? " fp16" : "",
                     o.batches, o.height, o.width, o.channels / bytesPerElement(math.aType));
}

LoweredOperation loweredOverRows(std::shared_ptr<VectorLayer> layer, const nn::Operation& op,
                                 const nn::Dimensions& dims) {
  const ImageShape shape = paddedImage(dims);
  layer->inputs = {{op.inputs[0], shape, DataLayout::kFlat}};  // rows along the axis: dense bytes
  layer->outputs = {{op.outputs[0], shape, DataLayout::kFlat}};
  LoweredLayer lo;
  lo.work = std::move(layer);
  lo.outputDims = dims;
  return LoweredOperation(std::move(lo));
}

}  // namespace weft::accel
