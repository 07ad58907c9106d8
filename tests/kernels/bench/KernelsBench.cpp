// Benchmarks of the reference kernels through executeOnCpu (the way the CPU device runs them).
// The headline figure: a 3x3 CONV_2D quant8, 224x224x32 -> 224x224x64, SAME padding, must take
// well under a second.
#include <benchmark/benchmark.h>

#include <cstring>
#include <memory>
#include <random>
#include <vector>

#include "weft/kernels/CpuExecutor.h"

namespace {

using namespace weft::nn;

class BufferMemory final : public Memory {
 public:
  explicit BufferMemory(size_t size) : bytes_(size) {}
  uint8_t* data() override { return bytes_.data(); }
  size_t size() const override { return bytes_.size(); }

 private:
  std::vector<uint8_t> bytes_;
};

// Appends a constant to model.operandValues and returns its operand.
Operand constant(Model& model, OperandType type, Dimensions dims, const void* data, size_t bytes, float scale = 0,
                 int32_t zeroPoint = 0) {
  Operand o;
  o.type = type;
  o.dimensions = std::move(dims);
  o.scale = scale;
  o.zeroPoint = zeroPoint;
  o.lifetime = Operand::LifeTime::CONSTANT_COPY;
  const size_t offset = (model.operandValues.size() + 7) / 8 * 8;
  model.operandValues.resize(offset + bytes);
  std::memcpy(model.operandValues.data() + offset, data, bytes);
  o.location.offset = static_cast<uint32_t>(offset);
  o.location.length = static_cast<uint32_t>(bytes);
  return o;
}

Operand scalar(Model& model, int32_t v) { return constant(model, OperandType::INT32, {}, &v, sizeof(v)); }

struct ConvCase {
  Model model;
  Request request;
};

// CONV_2D quant8: input [1, size, size, inDepth], filter [outDepth, 3, 3, inDepth], SAME, stride 1.
ConvCase makeQuantConv(uint32_t size, uint32_t inDepth, uint32_t outDepth) {
  ConvCase c;
  Model& m = c.model;
  std::mt19937 rng(42);
  std::uniform_int_distribution<int> byte(0, 255);
  std::vector<uint8_t> filter(size_t{outDepth} * 3 * 3 * inDepth);
  for (auto& v : filter) v = static_cast<uint8_t>(byte(rng));
  std::vector<int32_t> bias(outDepth);
  for (auto& v : bias) v = byte(rng) * 16 - 2048;
  const float inScale = 0.05f, filterScale = 0.02f, outScale = 0.5f;
  Operand input;
  input.type = OperandType::TENSOR_QUANT8_ASYMM;
  input.dimensions = {1, size, size, inDepth};
  input.scale = inScale;
  input.zeroPoint = 128;
  input.lifetime = Operand::LifeTime::SUBGRAPH_INPUT;
  Operand output = input;
  output.dimensions = {1, size, size, outDepth};
  output.scale = outScale;
  output.lifetime = Operand::LifeTime::SUBGRAPH_OUTPUT;
  m.main.operands = {input,
                     constant(m, OperandType::TENSOR_QUANT8_ASYMM, {outDepth, 3, 3, inDepth}, filter.data(),
                              filter.size(), filterScale, 120),
                     constant(m, OperandType::TENSOR_INT32, {outDepth}, bias.data(), bias.size() * 4,
                              inScale * filterScale, 0),
                     scalar(m, 1),  // SAME
                     scalar(m, 1), scalar(m, 1), scalar(m, 1),  // strides, RELU
                     output};
  m.main.operations = {{OperationType::CONV_2D, {0, 1, 2, 3, 4, 5, 6}, {7}}};
  m.main.inputIndexes = {0};
  m.main.outputIndexes = {7};

  const size_t inBytes = size_t{size} * size * inDepth, outBytes = size_t{size} * size * outDepth;
  auto pool = std::make_shared<BufferMemory>(inBytes + outBytes);
  for (size_t i = 0; i < inBytes; ++i) pool->data()[i] = static_cast<uint8_t>(byte(rng));
  c.request.pools = {pool};
  RequestArgument in;
  in.lifetime = RequestArgument::LifeTime::POOL;
  in.location = {nullptr, 0, 0, static_cast<uint32_t>(inBytes)};
  RequestArgument out;
  out.lifetime = RequestArgument::LifeTime::POOL;
  out.location = {nullptr, 0, static_cast<uint32_t>(inBytes), static_cast<uint32_t>(outBytes)};
  c.request.inputs = {in};
  c.request.outputs = {out};
  return c;
}

void BM_Conv2dQuant8_3x3(benchmark::State& state) {
  const auto size = static_cast<uint32_t>(state.range(0));
  const auto inDepth = static_cast<uint32_t>(state.range(1));
  const auto outDepth = static_cast<uint32_t>(state.range(2));
  ConvCase c = makeQuantConv(size, inDepth, outDepth);
  for (auto _ : state) {
    auto result = executeOnCpu(c.model, c.request);
    if (!result.ok()) {
      state.SkipWithError(result.error().message.c_str());
      break;
    }
  }
  const double macs = double(size) * size * outDepth * inDepth * 9;
  state.counters["GMAC/s"] = benchmark::Counter(macs * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_Conv2dQuant8_3x3)->Args({224, 32, 64})->Args({56, 64, 64})->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
