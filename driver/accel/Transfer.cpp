#include "Transfer.h"

#include <cstring>
#include <stdexcept>

#include "weft/hw/fp16.h"

namespace weft::accel {
namespace {

// Calls f(deviceOffset, batch, row) for every interior image row.
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

// The layout of the binary16 bytes a halfOnDevice tensor's host copies go through.
TensorLayout asHalves(const TensorLayout& t) {
  TensorLayout h = t;
  h.halfOnDevice = false;
  return h;
}

// Bytes an element of an NCHW image takes: the image counts bytes as channels (two a binary16
// value), the logical dimensions count values.
uint32_t nchwElementBytes(const TensorLayout& t) {
  const uint32_t channels = t.dims.at(1);
  if (channels == 0 || t.image.channels % channels != 0) throw std::logic_error("an NCHW image of partial elements");
  return t.image.channels / channels;
}

}  // namespace

uint64_t logicalBytes(const TensorLayout& t) {
  if (t.halfOnDevice) return 2 * logicalBytes(asHalves(t));  // float32 on the host
  return t.aliasOf ? nn::numberOfElements(t.dims) : t.image.elements();  // a view: its own channels (quant8)
}

std::vector<uint8_t> fillImage(const TensorLayout& t) {
  // The halo belongs to the consuming convolution's padding, which NNAPI defines as the zero
  // point whatever the tensor's own fill (a PAD_V2 border value stays inside the image).
  std::vector<uint8_t> image(t.bytes(), static_cast<uint8_t>(t.zeroPoint));
  if (image.empty() || t.fill == byteTwice(image.front())) return image;
  const uint64_t rowBytes = uint64_t{t.image.width} * t.image.channels;
  const uint8_t pattern[2] = {static_cast<uint8_t>(t.fill & 0xff), static_cast<uint8_t>(t.fill >> 8)};
  forEachRow(t, [&](uint64_t device, uint32_t, uint32_t) {
    for (uint64_t i = device; i < device + rowBytes; ++i) image[i] = pattern[i & 1];
  });
  return image;
}

// Tensors with a halo or kept NHWC for an NCHW model go through a host image of the whole
// region, so that each copy is one DRAM access (a backend call can cost far more than its bytes).
void copyToDevice(sim::IDeviceBackend& backend, const TensorLayout& t, uint64_t addr, const uint8_t* src) {
  if (t.aliasOf) throw std::logic_error("a tensor written in place in another is never written by the host");
  if (t.halfOnDevice) {
    const TensorLayout h = asHalves(t);
    std::vector<uint8_t> halves(logicalBytes(h));
    for (size_t i = 0; i < halves.size() / 2; ++i) {
      uint32_t bits;
      std::memcpy(&bits, src + 4 * i, 4);
      const uint16_t v = hw::fp::fp32ToFp16(bits);
      std::memcpy(&halves[2 * i], &v, 2);
    }
    copyToDevice(backend, h, addr, halves.data());
    return;
  }
  const ImageShape& s = t.image;
  const uint64_t rowBytes = uint64_t{s.width} * s.channels;
  if (t.layout == DataLayout::kFlat || (t.layout == DataLayout::kNHWC && !t.hasHalo())) {
    backend.writeDram(addr, src, logicalBytes(t));
    return;
  }
  std::vector<uint8_t> image = fillImage(t);
  forEachRow(t, [&](uint64_t device, uint32_t b, uint32_t y) {
    uint8_t* row = image.data() + device;
    if (t.layout == DataLayout::kNHWC) {
      std::memcpy(row, src + (uint64_t{b} * s.height + y) * rowBytes, rowBytes);
      return;
    }
    // NCHW: element (b, c, y, x), of e bytes
    const uint32_t e = nchwElementBytes(t);
    const uint64_t plane = uint64_t{s.height} * s.width * e;
    const uint8_t* from = src + uint64_t{b} * s.channels * plane / e + uint64_t{y} * s.width * e;
    for (uint32_t x = 0; x < s.width; ++x)
      for (uint32_t c = 0; c < s.channels / e; ++c)
        std::memcpy(row + (uint64_t{x} * s.channels / e + c) * e, from + c * plane + uint64_t{x} * e, e);
  });
  backend.writeDram(addr, image.data(), image.size());
}

void copyFromDevice(sim::IDeviceBackend& backend, const TensorLayout& t, uint64_t addr, uint8_t* dst) {
  if (t.halfOnDevice) {
    const TensorLayout h = asHalves(t);
    std::vector<uint8_t> halves(logicalBytes(h));
    copyFromDevice(backend, h, addr, halves.data());
    for (size_t i = 0; i < halves.size() / 2; ++i) {
      uint16_t v;
      std::memcpy(&v, &halves[2 * i], 2);
      const uint32_t bits = hw::fp::fp16ToFp32(v);
      std::memcpy(dst + 4 * i, &bits, 4);
    }
    return;
  }
  const ImageShape& s = t.image;
  const uint64_t rowBytes = uint64_t{s.width} * s.channels;
  if (t.aliasOf) {  // its channels of each pixel of the parent's image (`addr` is the parent's)
    const uint32_t channels = t.dims.at(3);
    std::vector<uint8_t> image(t.bytes());
    backend.readDram(addr, image.data(), image.size());
    forEachRow(t, [&](uint64_t device, uint32_t b, uint32_t y) {
      const uint8_t* row = image.data() + device + t.channelOffset;
      uint8_t* to = dst + ((uint64_t{b} * s.height + y) * s.width) * channels;
      for (uint32_t x = 0; x < s.width; ++x) std::memcpy(to + uint64_t{x} * channels, row + uint64_t{x} * s.channels, channels);
    });
    return;
  }
  if (t.layout == DataLayout::kFlat || (t.layout == DataLayout::kNHWC && !t.hasHalo())) {
    backend.readDram(addr, dst, logicalBytes(t));
    return;
  }
  std::vector<uint8_t> image(t.bytes());
  backend.readDram(addr, image.data(), image.size());
  forEachRow(t, [&](uint64_t device, uint32_t b, uint32_t y) {
    const uint8_t* row = image.data() + device;
    if (t.layout == DataLayout::kNHWC) {
      std::memcpy(dst + (uint64_t{b} * s.height + y) * rowBytes, row, rowBytes);
      return;
    }
    const uint32_t e = nchwElementBytes(t);
    const uint64_t plane = uint64_t{s.height} * s.width * e;
    uint8_t* to = dst + uint64_t{b} * s.channels * plane / e + uint64_t{y} * s.width * e;
    for (uint32_t x = 0; x < s.width; ++x)
      for (uint32_t c = 0; c < s.channels / e; ++c)
        std::memcpy(to + c * plane + uint64_t{x} * e, row + (uint64_t{x} * s.channels / e + c) * e, e);
  });
}

}  // namespace weft::accel
