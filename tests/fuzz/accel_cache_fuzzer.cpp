// libFuzzer target: the accelerator's compilation cache (driver/accel/PreparedModelCache.h), past
// its integrity check. The files' framing and SHA-256 digests stop every altered file before its
// payload is read (tests/runtime/caching_security_test.cpp); this target asks what happens when
// the payload itself is wrong behind valid digests: a cache written by a buggy or older driver,
// or forged. The input is
//   u32 little-endian: n | n bytes of model records | the data payload
// sealed with the configuration's and the data's digests (sealCacheImage), then parsed, placed
// in the device's DRAM (regions allocated, images written, the program relocated) and, when that
// all checks, executed once with zero inputs under a short deadline. A cache of a model compiled
// per execution (one with execution parameters) holds the model instead: it is prepared and run
// the same way. Every step may refuse, with
// a Result error; none may crash, touch memory outside its buffers (AddressSanitizer), hit
// undefined behaviour, leak device DRAM (each input's regions are freed again: a leak would show
// as allocations that fail later), or run past the deadline.
//
// Seeds: with WEFT_FUZZ_SEED_DIR set, the target first compiles two small models on the device
// and writes their cache payloads there, with the cache of a model compiled per execution, so the
// seeds follow the cache format (scripts/fuzz.sh).
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "DeviceQueue.h"
#include "ModelCompiler.h"
#include "PreparedModel.h"
#include "PreparedModelCache.h"
#include "Transfer.h"
#include "weft/nn/Sha256.h"
#include "weft/sim/backend.h"

namespace {

namespace accel = weft::accel;
namespace nn = weft::nn;
using Clock = std::chrono::steady_clock;

const weft::hw::HwConfig& config() {
  static const weft::hw::HwConfig c = weft::hw::HwConfig::load("weft8");
  return c;
}

std::shared_ptr<accel::DeviceQueue> queue() {
  static std::shared_ptr<accel::DeviceQueue> q = [] {
    auto created =
        accel::DeviceQueue::create(weft::sim::createBackend(weft::sim::BackendKind::kApprox, config()));
    if (!created.ok()) std::abort();
    return std::shared_ptr<accel::DeviceQueue>(std::move(created).value());
  }();
  return q;
}

uint32_t addOperand(nn::Model& m, nn::OperandType type, nn::Dimensions dims, float scale, int32_t zeroPoint,
                    nn::Operand::LifeTime lifetime, const std::vector<uint8_t>& value = {}) {
  nn::Operand o;
  o.type = type;
  o.dimensions = std::move(dims);
  o.scale = scale;
  o.zeroPoint = zeroPoint;
  o.lifetime = lifetime;
  if (!value.empty()) {
    o.location.offset = static_cast<uint32_t>(m.operandValues.size());
    o.location.length = static_cast<uint32_t>(value.size());
    m.operandValues.insert(m.operandValues.end(), value.begin(), value.end());
  }
  m.main.operands.push_back(o);
  return static_cast<uint32_t>(m.main.operands.size() - 1);
}

std::vector<uint8_t> pattern(size_t n, uint32_t seed) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<uint8_t>((i * 37 + seed * 11) ^ (i >> 3));
  return v;
}

// FULLY_CONNECTED [batch, 32] -> [batch, 16] on the array, then RELU on the vector unit.
nn::Model seedModel(uint32_t batch) {
  using T = nn::OperandType;
  using L = nn::Operand::LifeTime;
  nn::Model m;
  const uint32_t in = addOperand(m, T::TENSOR_QUANT8_ASYMM, {batch, 32}, 0.5f, 128, L::SUBGRAPH_INPUT);
  const uint32_t w = addOperand(m, T::TENSOR_QUANT8_ASYMM, {16, 32}, 0.25f, 120, L::CONSTANT_COPY, pattern(512, batch));
  std::vector<uint8_t> bias(64);
  for (size_t i = 0; i < 16; ++i) {
    const int32_t b = static_cast<int32_t>(i * 97) - 700;
    std::memcpy(&bias[4 * i], &b, 4);
  }
  const uint32_t b = addOperand(m, T::TENSOR_INT32, {16}, 0.125f, 0, L::CONSTANT_COPY, bias);
  const uint32_t act = addOperand(m, T::INT32, {}, 0, 0, L::CONSTANT_COPY, {0, 0, 0, 0});
  const uint32_t mid = addOperand(m, T::TENSOR_QUANT8_ASYMM, {batch, 16}, 2.0f, 100, L::TEMPORARY_VARIABLE);
  const uint32_t out = addOperand(m, T::TENSOR_QUANT8_ASYMM, {batch, 16}, 2.0f, 100, L::SUBGRAPH_OUTPUT);
  m.main.operations.push_back({nn::OperationType::FULLY_CONNECTED, {in, w, b, act}, {mid}});
  m.main.operations.push_back({nn::OperationType::RELU, {mid}, {out}});
  m.main.inputIndexes = {in};
  m.main.outputIndexes = {out};
  return m;
}

// PAD whose paddings are a model input: compiled per execution, cached as the model itself.
nn::Model padModel() {
  using T = nn::OperandType;
  using L = nn::Operand::LifeTime;
  nn::Model m;
  const uint32_t in = addOperand(m, T::TENSOR_QUANT8_ASYMM, {1, 3, 4, 10}, 0.5f, 7, L::SUBGRAPH_INPUT);
  const uint32_t paddings = addOperand(m, T::TENSOR_INT32, {4, 2}, 0, 0, L::SUBGRAPH_INPUT);
  const uint32_t out = addOperand(m, T::TENSOR_QUANT8_ASYMM, {1, 5, 5, 10}, 0.5f, 7, L::SUBGRAPH_OUTPUT);
  m.main.operations.push_back({nn::OperationType::PAD, {in, paddings}, {out}});
  m.main.inputIndexes = {in, paddings};
  m.main.outputIndexes = {out};
  return m;
}

void writeSeed(const std::string& path, const accel::CacheImage& image) {
  // The records follow the two digests sealCacheImage puts in front.
  const size_t digests = 2 * sizeof(nn::Sha256Digest);
  const std::vector<uint8_t> records(image.model.begin() + static_cast<std::ptrdiff_t>(digests), image.model.end());
  std::ofstream out(path, std::ios::binary);
  const uint32_t n = static_cast<uint32_t>(records.size());
  const uint8_t length[4] = {static_cast<uint8_t>(n), static_cast<uint8_t>(n >> 8), static_cast<uint8_t>(n >> 16),
                             static_cast<uint8_t>(n >> 24)};
  out.write(reinterpret_cast<const char*>(length), 4);
  out.write(reinterpret_cast<const char*>(records.data()), static_cast<std::streamsize>(records.size()));
  out.write(reinterpret_cast<const char*>(image.data.data()), static_cast<std::streamsize>(image.data.size()));
}

void writeSeeds(const char* dir) {
  for (uint32_t batch : {1u, 5u}) {
    const nn::Model model = seedModel(batch);
    auto compiled = accel::compileModel(model, *queue(), nullptr, std::nullopt,
                                        nn::ExecutionPreference::FAST_SINGLE_ANSWER);
    if (!compiled.ok()) std::abort();
    std::lock_guard<std::mutex> lock(queue()->mutex());
    auto image = accel::captureForCache(*compiled, model, nn::Priority::MEDIUM, *queue());
    if (!image.ok()) std::abort();
    writeSeed(std::string(dir) + "/generated_batch" + std::to_string(batch), *image);
  }
  auto perExecution = accel::captureModelForCache(padModel(), nn::Priority::LOW,
                                                  nn::ExecutionPreference::SUSTAINED_SPEED, config());
  if (!perExecution.ok()) std::abort();
  writeSeed(std::string(dir) + "/generated_per_execution", *perExecution);
}

// Zero inputs of the sizes `bytesOf` gives each operand, outputs to match; runs once.
template <typename BytesOf>
void executeOnce(const std::shared_ptr<const accel::PreparedModel>& prepared, BytesOf bytesOf) {
  std::vector<std::vector<uint8_t>> buffers;
  nn::Request request;
  auto argument = [&](uint32_t operand) {
    nn::RequestArgument a;
    // At most 1 MiB a buffer: a forged layout may claim any size; the driver must refuse it
    // against the buffer it gets, not trust it.
    buffers.emplace_back(std::min<uint64_t>(bytesOf(operand), 1 << 20));
    a.location.pointer = buffers.back().data();
    a.location.length = static_cast<uint32_t>(buffers.back().size());
    return a;
  };
  buffers.reserve(prepared->inputOperands().size() + prepared->outputOperands().size());
  for (uint32_t operand : prepared->inputOperands()) request.inputs.push_back(argument(operand));
  for (uint32_t operand : prepared->outputOperands()) request.outputs.push_back(argument(operand));
  const auto deadline = Clock::now() + std::chrono::milliseconds(100);
  (void)prepared->execute(request, nn::MeasureTiming::NO, deadline, std::nullopt);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  if (const char* dir = std::getenv("WEFT_FUZZ_SEED_DIR")) writeSeeds(dir);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 4) return 0;
  const size_t n = std::min<size_t>(size - 4, data[0] | data[1] << 8 | data[2] << 16 | size_t{data[3]} << 24);
  const std::vector<uint8_t> records(data + 4, data + 4 + n);
  std::vector<uint8_t> payload(data + 4 + n, data + size);
  const accel::CacheImage image = accel::sealCacheImage(config(), records, std::move(payload));

  auto parsed = accel::parseCacheImage(image, config());
  if (!parsed.ok()) return 0;
  auto q = queue();
  if (const accel::CachedModel* cached = accel::perExecutionModel(**parsed)) {
    // A model compiled by each execution (it has execution parameters), as Device restores it.
    const nn::Model& model = cached->model;
    executeOnce(std::make_shared<const accel::PreparedModel>(q, model, nullptr, cached->priority, cached->preference),
                [&](uint32_t operand) -> uint64_t {
                  if (operand >= model.main.operands.size()) return 0;
                  const nn::Operand& o = model.main.operands[operand];
                  return nn::sizeOfData(o.type, o.dimensions);
                });
    return 0;
  }
  nn::Result<accel::RestoredPreparation> restored = NN_ERROR(OP_FAILED) << "not placed";
  {
    std::lock_guard<std::mutex> lock(q->mutex());
    restored = accel::placeCache(**parsed, *q);
  }
  if (!restored.ok()) return 0;
  auto compiled = std::make_shared<const accel::CompiledModel>(std::move(restored->compiled));
  auto prepared = std::make_shared<const accel::PreparedModel>(q, std::move(restored->inputs),
                                                               std::move(restored->outputs), std::move(compiled),
                                                               restored->priority);
  executeOnce(prepared, [&](uint32_t operand) -> uint64_t {
    const auto it = prepared->compiled().tensors.find(operand);
    return it == prepared->compiled().tensors.end() ? 0 : accel::logicalBytes(it->second.layout);
  });
  return 0;
}
