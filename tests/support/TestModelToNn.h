// Turns a TestModel into weft's canonical nn::Model and an nn::Request over memory it owns, the way
// AOSP's harness builds a model: CONSTANT_COPY values in Model::operandValues, CONSTANT_REFERENCE
// values in one shared pool at 4-byte-aligned offsets, SUBGRAPH operands naming Model::referenced,
// empty main inputs as omitted (NO_VALUE) arguments, and a 1-byte buffer for zero-sized outputs.
#pragma once

#include <memory>
#include <vector>

#include "TestModel.h"
#include "weft/nn/Types.h"

namespace weft::test {

// A block of bytes usable as an nn::Memory pool.
class VectorMemory final : public nn::Memory {
 public:
  explicit VectorMemory(size_t size) : bytes_(size) {}
  uint8_t* data() override { return bytes_.data(); }
  size_t size() const override { return bytes_.size(); }

 private:
  std::vector<uint8_t> bytes_;
};

nn::Model createModel(const TestModel& testModel);

// A request whose inputs hold the case's input values and whose outputs are sized for the
// expected outputs. Keeps its pools alive; read results back with output().
class TestRequest {
 public:
  explicit TestRequest(const TestModel& testModel);
  const nn::Request& request() const { return request_; }
  nn::Request& request() { return request_; }
  // The bytes of output `i` as the execution left them (its full buffer).
  TestBuffer output(size_t i) const;
  // Buffer size of output `i`.
  size_t outputLength(size_t i) const { return request_.outputs.at(i).location.length; }

 private:
  nn::Request request_;
  std::shared_ptr<VectorMemory> inputPool_;
  std::shared_ptr<VectorMemory> outputPool_;
};

}  // namespace weft::test
