// Models large enough that an execution or a compilation outlasts a short deadline: a chain of
// SAME kernel x kernel convolutions (3x3 unless said), channels -> channels, on a size x size
// image (quant8, constant filters). Small ones serve the device-buffer and cache tests.
#pragma once

#include <random>

#include "AccelTestUtil.h"

namespace weft::accel::test {

inline OpModel makeConvChain(uint32_t layers, uint32_t size, uint32_t channels, std::mt19937& rng,
                             uint32_t kernel = 3) {
  using nn::OperandType;
  constexpr OperandType kType = OperandType::TENSOR_QUANT8_ASYMM;
  ModelBuilder b;
  const nn::Dimensions image{1, size, size, channels};
  uint32_t x = b.input(kType, image, 0.5f, 128);
  std::uniform_int_distribution<int> byte(0, 255), bias(-2000, 2000);
  for (uint32_t l = 0; l < layers; ++l) {
    std::vector<uint8_t> filter(size_t{channels} * kernel * kernel * channels);
    for (auto& v : filter) v = static_cast<uint8_t>(byte(rng));
    std::vector<int32_t> biases(channels);
    for (auto& v : biases) v = bias(rng);
    const uint32_t f = b.constant(kType, {channels, kernel, kernel, channels}, filter.data(), filter.size(), 0.01f, 128);
    const uint32_t bi = b.constant(OperandType::TENSOR_INT32, {channels}, biases.data(), 4 * biases.size(), 0.005f, 0);
    const uint32_t y = b.tensor(kType, image, 0.5f, 128);
    b.operation(nn::OperationType::CONV_2D,
                {x, f, bi, b.int32Scalar(1), b.int32Scalar(1), b.int32Scalar(1), b.int32Scalar(0)}, {y});
    x = y;
  }
  b.output(x);
  OpModel m;
  m.model = b.build();
  std::vector<uint8_t> in(size_t{size} * size * channels);
  for (auto& v : in) v = static_cast<uint8_t>(byte(rng));
  m.inputs.push_back(std::move(in));
  m.outputBytes.push_back(size_t{size} * size * channels);
  return m;
}

}  // namespace weft::accel::test
