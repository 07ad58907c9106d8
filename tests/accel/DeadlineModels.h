// Models large enough that an execution or a compilation outlasts a short deadline: a chain of
// SAME kernel x kernel convolutions (3x3 unless said), channels -> channels, on a size x size
// image (quant8, constant filters). Small ones serve the device-buffer and cache tests.
#pragma once

#include <random>

#include "AccelTestUtil.h"

namespace weft::accel::test {

// `layers` 3x3 (or kernel x kernel) convolutions in a chain over a size x size image. Each layer
// adds `growth` channels, so that with growth > 0 no two layers have the same shape (and none
// reuses another's tiling search).
inline OpModel makeConvChain(uint32_t layers, uint32_t size, uint32_t channels, std::mt19937& rng,
                             uint32_t kernel = 3, uint32_t growth = 0) {
  using nn::OperandType;
  constexpr OperandType kType = OperandType::TENSOR_QUANT8_ASYMM;
  ModelBuilder b;
  uint32_t x = b.input(kType, {1, size, size, channels}, 0.5f, 128);
  std::uniform_int_distribution<int> byte(0, 255), bias(-2000, 2000);
  uint32_t in = channels;
  for (uint32_t l = 0; l < layers; ++l) {
    const uint32_t out = in + growth;
    std::vector<uint8_t> filter(size_t{out} * kernel * kernel * in);
    for (auto& v : filter) v = static_cast<uint8_t>(byte(rng));
    std::vector<int32_t> biases(out);
    for (auto& v : biases) v = bias(rng);
    const uint32_t f = b.constant(kType, {out, kernel, kernel, in}, filter.data(), filter.size(), 0.01f, 128);
    const uint32_t bi = b.constant(OperandType::TENSOR_INT32, {out}, biases.data(), 4 * biases.size(), 0.005f, 0);
    const uint32_t y = b.tensor(kType, {1, size, size, out}, 0.5f, 128);
    b.operation(nn::OperationType::CONV_2D,
                {x, f, bi, b.int32Scalar(1), b.int32Scalar(1), b.int32Scalar(1), b.int32Scalar(0)}, {y});
    x = y;
    in = out;
  }
  b.output(x);
  OpModel m;
  m.model = b.build();
  std::vector<uint8_t> input(size_t{size} * size * channels);
  for (auto& v : input) v = static_cast<uint8_t>(byte(rng));
  m.inputs.push_back(std::move(input));
  m.outputBytes.push_back(size_t{size} * size * in);
  return m;
}

}  // namespace weft::accel::test
