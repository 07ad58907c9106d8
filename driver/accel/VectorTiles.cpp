#include "VectorTiles.h"

#include <cstring>

namespace weft::accel {
namespace {

bool fits(hw::Field f, uint64_t v) { return hw::CommandWord::fits(f, static_cast<int64_t>(v)); }

nn::Status checkLoad(const hw::LoadCmd& l) {
  namespace f = hw::field::load;
  if (fits(f::kRowBytes, l.rowBytes) && fits(f::kSpadAddr, l.spadAddr) && fits(f::kStride0, l.stride0) &&
      fits(f::kStride1, l.stride1) && fits(f::kStride2, l.stride2) && fits(f::kCount0, l.count0) &&
      fits(f::kCount1, l.count1) && fits(f::kCount2, l.count2) && fits(f::kDramAddr, l.dramAddr)) {
    return {};
  }
  return NN_ERROR(BAD_DATA) << "a tile load does not fit the LOAD command's fields";
}

nn::Status checkStore(const hw::StoreCmd& s) {
  namespace f = hw::field::store;
  if (fits(f::kStride0, s.stride0) && fits(f::kStride1, s.stride1) && fits(f::kCount0, s.count0) &&
      fits(f::kCount1, s.count1) && fits(f::kAccAddr, s.accAddr) && fits(f::kDramAddr, s.dramAddr) &&
      fits(f::kTileAccStride, s.tileAccStride)) {
    return {};
  }
  return NN_ERROR(BAD_DATA) << "a tile store does not fit the STORE command's fields";
}

void put32(uint8_t* p, int32_t v) { std::memcpy(p, &v, 4); }

}  // namespace

std::vector<uint8_t> paramRows(const std::vector<hw::ColumnParams>& columns, uint32_t rows, const hw::HwConfig& config) {
  const uint32_t C = config.cols(), rowBytes = config.paramRowBytes();
  std::vector<uint8_t> image(size_t{rows} * rowBytes);
  for (uint32_t r = 0; r < rows; ++r) {
    uint8_t* row = &image[size_t{r} * rowBytes];
    for (uint32_t n = 0; n < C; ++n) {
      const size_t i = size_t{r} * C + n;
      const hw::ColumnParams p = i < columns.size() ? columns[i] : kIdentityColumn;
      put32(row + 4 * n, p.bias);
      put32(row + 4 * C + 4 * n, p.multiplier);
      row[8 * C + n] = static_cast<uint8_t>(p.shift);
    }
  }
  return image;
}

nn::Status VectorCommands::loadBox(const LaneImage& image, const PixelBox& box, const TileLayout& tile,
                                   uint32_t firstGroup, uint32_t buffer, bool broadcastLanes) {
  const uint32_t C = config_.cols();
  const uint64_t origin = image.pixelAddr(box.b, box.y0, box.x0);
  auto emitLoad = [&](hw::LoadCmd l) -> nn::Status {
    l.dst = hw::Mem::kVec;
    NN_TRY(checkLoad(l));
    emit(PlannedCommand{l, {{buffer, true}}});
    return {};
  };
  if (tile.pixelMajor) {
    hw::LoadCmd l;
    l.rowBytes = C;
    l.spadAddr = tile.base;
    l.dramAddr = origin + uint64_t{firstGroup} * C;
    l.stride0 = C;
    if (image.packed() && tile.groups == image.groups()) {  // an image row of the box: w x groups rows
      l.count0 = box.w * tile.groups;
      l.count1 = box.h;
      l.stride1 = image.view.rowStride;
      l.count2 = 1;
    } else {
      l.count0 = tile.groups;
      l.count1 = box.w;
      l.stride1 = image.view.pixelStride;
      l.count2 = box.h;
      l.stride2 = image.view.rowStride;
    }
    return emitLoad(l);
  }
  for (uint32_t g = 0; g < tile.groups; ++g) {
    NN_TRY(loadPlane(image, box, broadcastLanes ? 0 : (firstGroup + g) * C,
                     broadcastLanes ? 1 : image.groupBytes(firstGroup + g), tile.groupBase(g), buffer));
  }
  return {};
}

nn::Status VectorCommands::loadPlane(const LaneImage& image, const PixelBox& box, uint32_t channelOffset,
                                     uint32_t rowBytes, uint32_t base, uint32_t buffer) {
  hw::LoadCmd l;
  l.dst = hw::Mem::kVec;
  l.rowBytes = rowBytes;
  l.spadAddr = base;
  l.dramAddr = image.pixelAddr(box.b, box.y0, box.x0) + channelOffset;
  l.stride0 = image.view.pixelStride;
  l.count0 = box.w;
  l.stride1 = image.view.rowStride;
  l.count1 = box.h;
  l.count2 = 1;
  NN_TRY(checkLoad(l));
  emit(PlannedCommand{l, {{buffer, true}}});
  return {};
}

nn::Status VectorCommands::loadRows(hw::Mem dst, uint64_t dram, uint32_t spadAddr, uint32_t rows, uint32_t rowBytes,
                                    uint64_t stride, uint32_t buffer, uint32_t count1, uint64_t stride1) {
  hw::LoadCmd l;
  l.dst = dst;
  l.rowBytes = rowBytes;
  l.spadAddr = spadAddr;
  l.dramAddr = dram;
  l.stride0 = stride;
  l.count0 = rows;
  l.count1 = count1;
  l.stride1 = stride1;
  l.count2 = 1;
  NN_TRY(checkLoad(l));
  emit(PlannedCommand{l, {{buffer, true}}});
  return {};
}

nn::Status VectorCommands::storeBox(const LaneImage& image, const PixelBox& box, uint32_t group, uint32_t acc,
                                    uint32_t accBuf, uint32_t paramRow, int32_t outZp, int32_t clampMin,
                                    int32_t clampMax) {
  hw::StoreCmd s;
  s.mode = storeMode_.value_or(storeModeFor(storeType_));
  s.rowBytes = image.groupBytes(group) / bytesPerElement(storeType_);  // columns
  s.paramRow = paramRow;
  s.accAddr = acc;
  s.dramAddr = image.pixelAddr(box.b, box.y0, box.x0) + uint64_t{group} * config_.cols();
  s.stride0 = image.view.pixelStride;
  s.count0 = box.w;
  s.stride1 = image.view.rowStride;
  s.count1 = box.h;
  s.outZp = outZp;
  s.clampMin = clampMin;
  s.clampMax = clampMax;
  return emitStore(s, accBuf);
}

hw::StoreCmd VectorCommands::rowStore(uint64_t dram, uint64_t stride, uint32_t rows, uint32_t rowBytes, uint32_t acc,
                                      uint32_t paramRow, int32_t outZp, int32_t clampMin, int32_t clampMax) const {
  hw::StoreCmd s;
  s.mode = storeMode_.value_or(storeModeFor(storeType_));
  s.rowBytes = rowBytes / bytesPerElement(storeType_);  // columns (of the last tile)
  s.paramRow = paramRow;
  s.accAddr = acc;
  s.dramAddr = dram;
  s.stride0 = stride;
  s.count0 = rows;
  s.count1 = 1;
  s.outZp = outZp;
  s.clampMin = clampMin;
  s.clampMax = clampMax;
  return s;
}

nn::Status VectorCommands::emitStore(const hw::StoreCmd& s, uint32_t accBuf) {
  NN_TRY(checkStore(s));
  BufferUses uses{{accBuf, false}, {storeParams_, false}};
  if (storeAlso_ != 0) uses.push_back({storeAlso_, false});
  emit(PlannedCommand{s, uses});
  return {};
}

nn::Status VectorCommands::storeRows(uint64_t dram, uint64_t stride, uint32_t rows, uint32_t rowBytes, uint32_t acc,
                                     uint32_t accBuf, uint32_t paramRow, int32_t outZp, int32_t clampMin,
                                     int32_t clampMax, uint32_t count1, uint64_t stride1) {
  hw::StoreCmd s = rowStore(dram, stride, rows, rowBytes, acc, paramRow, outZp, clampMin, clampMax);
  s.count1 = count1;
  s.stride1 = stride1;
  return emitStore(s, accBuf);
}

nn::Status VectorCommands::loadSpread(uint64_t dram, uint32_t spadAddr, uint32_t runs, uint64_t runStride,
                                      uint32_t rowsPerRun, uint32_t buffer, uint32_t packStride, uint32_t planes,
                                      uint64_t planeStride) {
  if (packStride == 0) packStride = runs;
  if (runStride > 0xFFFFFFFFull || runs > 0xFFFF || rowsPerRun > 0xFFFF || packStride > 0xFFFF || planes > 0xFFFF ||
      planeStride > 0xFFFFFFFFull) {
    return NN_ERROR(BAD_DATA) << "a spread LOAD of " << runs << " runs " << runStride << " bytes apart";
  }
  hw::LoadCmd c;
  c.dst = hw::Mem::kVec;
  c.rowBytes = config_.cols();
  c.spadAddr = spadAddr;
  c.dramAddr = dram;
  c.count0 = rowsPerRun;
  c.stride0 = config_.cols();
  c.count1 = runs;
  c.stride1 = static_cast<uint32_t>(runStride);
  c.count2 = planes;
  c.stride2 = static_cast<uint32_t>(planeStride);
  c.spread = true;
  c.packStride = packStride;
  emit(PlannedCommand{c, {{buffer, true}}});
  return {};
}

uint32_t VectorCommands::maxStoreTiles() const {
  return config_.cols() % config_.busBytes() == 0 ? hw::micro::kStoreFifoDepth : 1;
}

nn::Status VectorCommands::storeTiledRows(uint64_t dram, uint64_t stride, uint32_t rows, uint32_t tiles,
                                          uint32_t lastBytes, uint32_t acc, uint32_t tileAccStride, uint32_t accBuf,
                                          uint32_t paramRow, int32_t outZp, int32_t clampMin, int32_t clampMax) {
  if (tiles == 0 || tiles > maxStoreTiles()) return NN_ERROR(BAD_DATA) << "a STORE of " << tiles << " column tiles";
  hw::StoreCmd s = rowStore(dram, stride, rows, lastBytes, acc, paramRow, outZp, clampMin, clampMax);
  s.tiles = tiles;
  s.tileAccStride = tileAccStride;
  return emitStore(s, accBuf);
}

void VectorCommands::vector(const TypedCommand& cmd, BufferUses uses) { emit(PlannedCommand{cmd, uses}); }

void VectorCommands::relay(uint32_t vecRow, uint32_t acc, BufferUses uses) {
  hw::EltwiseCmd e;
  e.kind = hw::EltKind::kCopy;
  e.aAddr = vecRow;
  e.accAddr = acc;
  e.count0 = e.count1 = 1;
  e.aStride0 = e.aStride1 = 1;
  emit(PlannedCommand{e, uses});
}

}  // namespace weft::accel
