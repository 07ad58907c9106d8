#include "Transfer.h"

#include <cstring>

namespace weft::accel {
namespace {

// Calls f(deviceOffset, logicalOffsetOfFirstPixel) for every interior image row; in NCHW the
// row is gathered/scattered through `scratch`.
template <typename RowFn>
void forEachRow(const TensorLayout& t, RowFn f) {
  const ImageShape& s = t.image;
  for (uint32_t b = 0; b < s.batches; ++b) {
    for (uint32_t y = 0; y < s.height; ++y) {
      const uint64_t device = t.interiorOffset() + b * t.imageStride() + y * t.rowStride();
      f(device, b, y);
    }
  }
}

}  // namespace

uint64_t logicalBytes(const TensorLayout& t) { return t.image.elements(); }

std::vector<uint8_t> fillImage(const TensorLayout& t) {
  return std::vector<uint8_t>(t.bytes(), t.fill);
}

void copyToDevice(sim::IDeviceBackend& backend, const TensorLayout& t, uint64_t addr, const uint8_t* src) {
  const ImageShape& s = t.image;
  const uint64_t rowBytes = uint64_t{s.width} * s.channels;
  if (t.layout == DataLayout::kFlat || (t.layout == DataLayout::kNHWC && !t.hasHalo())) {
    backend.writeDram(addr, src, logicalBytes(t));
    return;
  }
  std::vector<uint8_t> row(rowBytes);
  forEachRow(t, [&](uint64_t device, uint32_t b, uint32_t y) {
    const uint8_t* from = nullptr;
    if (t.layout == DataLayout::kNHWC) {
      from = src + (uint64_t{b} * s.height + y) * rowBytes;
    } else {  // NCHW: element (b, c, y, x)
      const uint64_t plane = uint64_t{s.height} * s.width;
      const uint8_t* image = src + uint64_t{b} * s.channels * plane + uint64_t{y} * s.width;
      for (uint32_t x = 0; x < s.width; ++x)
        for (uint32_t c = 0; c < s.channels; ++c) row[uint64_t{x} * s.channels + c] = image[c * plane + x];
      from = row.data();
    }
    backend.writeDram(addr + device, from, rowBytes);
  });
}

void copyFromDevice(sim::IDeviceBackend& backend, const TensorLayout& t, uint64_t addr, uint8_t* dst) {
  const ImageShape& s = t.image;
  const uint64_t rowBytes = uint64_t{s.width} * s.channels;
  if (t.layout == DataLayout::kFlat || (t.layout == DataLayout::kNHWC && !t.hasHalo())) {
    backend.readDram(addr, dst, logicalBytes(t));
    return;
  }
  std::vector<uint8_t> row(rowBytes);
  forEachRow(t, [&](uint64_t device, uint32_t b, uint32_t y) {
    if (t.layout == DataLayout::kNHWC) {
      backend.readDram(addr + device, dst + (uint64_t{b} * s.height + y) * rowBytes, rowBytes);
      return;
    }
    backend.readDram(addr + device, row.data(), rowBytes);
    const uint64_t plane = uint64_t{s.height} * s.width;
    uint8_t* image = dst + uint64_t{b} * s.channels * plane + uint64_t{y} * s.width;
    for (uint32_t x = 0; x < s.width; ++x)
      for (uint32_t c = 0; c < s.channels; ++c) image[c * plane + x] = row[uint64_t{x} * s.channels + c];
  });
}

}  // namespace weft::accel
