// The whole prepared model in the runtime's cache files (PreparedModelCache.h), through the HAL:
// prepareModelFromCache restores it on another device whose DRAM holds other models (every region
// at another address, the program relocated) and it runs bit-exactly, without the model; a cache
// of another configuration is refused; restoring costs a fraction of compiling. The runtime's
// VTS-style suite (tests/runtime/caching_security_test.cpp) alters the files every way.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <chrono>
#include <cstring>

#include "AccelTestUtil.h"
#include "DeadlineModels.h"
#include "Device.h"
#include "PreparedModel.h"
#include "PreparedModelCache.h"
#include "weft/hal/CacheFiles.h"

namespace weft::accel::test {
namespace {

using Clock = std::chrono::steady_clock;

hal::SharedCacheFile memoryFile() {
  return std::make_shared<const hal::CacheFile>(memfd_create("weft-accel-cache-test", MFD_CLOEXEC));
}

struct Files {
  std::vector<hal::SharedCacheFile> model{memoryFile()}, data{memoryFile()};
  hal::CacheToken token{};
  hal::CacheRequest request() const { return {"", "", model, data, token}; }
};

hal::SharedDevice freshDevice(const std::string& config = "weft8") {
  return deviceOn(sim::createBackend(sim::BackendKind::kApprox, hw::HwConfig::load(config)));
}

nn::Result<hal::SharedPreparedModel> prepareWithCache(const hal::IDevice& device, const nn::Model& model,
                                                      const Files& files) {
  return device.prepareModel(model, nn::ExecutionPreference::FAST_SINGLE_ANSWER, nn::Priority::MEDIUM, {},
                             files.request());
}

const CompiledModel& compiledOf(const hal::SharedPreparedModel& p) {
  return std::static_pointer_cast<const PreparedModel>(p)->compiled();
}

void expectRestoredRunsExactly(const OpModel& m) {
  Files files;
  files.token[0] = 0x42;
  auto saving = freshDevice();
  auto saved = prepareWithCache(*saving, m.model, files);
  ASSERT_TRUE(saved.ok()) << saved.error().message;

  // Another device, its DRAM already holding another model: nothing can stay where it was.
  auto restoring = freshDevice();
  std::mt19937 rng(99);
  const OpModel other = makeConvChain(1, 9, 5, rng);
  auto otherPrepared = prepare(*restoring, other.model);
  ASSERT_TRUE(otherPrepared.ok()) << otherPrepared.error().message;
  auto restored = restoring->prepareModelFromCache({}, files.model, files.data, files.token);
  ASSERT_TRUE(restored.ok()) << restored.error().message;

  const CompiledModel& before = compiledOf(saved.value());
  const CompiledModel& after = compiledOf(restored.value());
  EXPECT_EQ(after.program.size(), before.program.size());
  EXPECT_EQ(after.operations.size(), before.operations.size());
  ASSERT_EQ(after.tensors.size(), before.tensors.size());
  EXPECT_NE(after.tensors.begin()->second.region->addr(), before.tensors.begin()->second.region->addr());
  EXPECT_NE(after.program, before.program) << "the program was not relocated";

  auto cpu = runOnCpu(m);
  ASSERT_TRUE(cpu.ok()) << cpu.error().message;
  for (const auto& prepared : {saved.value(), restored.value()}) {
    auto run = runOnPrepared(*prepared, m);
    ASSERT_TRUE(run.ok()) << run.error().message;
    EXPECT_EQ(firstMismatch(run.value().outputs[0], cpu.value().outputs[0]), -1);
  }
  // The other model still runs: its regions were left alone.
  expectBitExactOnDevice(*restoring, other, "the model that was there first");
}

TEST(PreparedModelCache, AConvolutionChainIsRestoredElsewhereAndRunsExactly) {
  std::mt19937 rng(1);
  expectRestoredRunsExactly(makeConvChain(3, 12, 20, rng));
}

TEST(PreparedModelCache, AFullyConnectedLayerIsRestoredElsewhereAndRunsExactly) {
  std::mt19937 rng(2);
  expectRestoredRunsExactly(makeFcModel(randomFcCase(rng, 30, 60), rng));
}

TEST(PreparedModelCache, TheExtensionsMatmulIsRestoredElsewhereAndRunsExactly) {
  std::mt19937 rng(3);
  MatmulCase c = randomMatmulCase(rng, 30, 60);
  c.rhsAtExecution = false;
  expectRestoredRunsExactly(makeMatmulModel(c, rng));
}

// Two convolutions concatenated along the channels, quantized alike: the concatenation's inputs
// are written in place in its output (views, TensorLayout::aliasOf), which a restore must keep.
OpModel makeConvConcat(std::mt19937& rng) {
  using nn::OperandType;
  constexpr OperandType kType = OperandType::TENSOR_QUANT8_ASYMM;
  ModelBuilder b;
  const uint32_t x = b.input(kType, {1, 8, 8, 4}, 0.5f, 128);
  std::uniform_int_distribution<int> byte(0, 255);
  auto conv = [&](uint32_t kernel, uint32_t channels) {
    std::vector<uint8_t> filter(size_t{channels} * kernel * kernel * 4);
    for (auto& v : filter) v = static_cast<uint8_t>(byte(rng));
    std::vector<int32_t> bias(channels, 100);
    const uint32_t f = b.constant(kType, {channels, kernel, kernel, 4}, filter.data(), filter.size(), 0.01f, 128);
    const uint32_t bi = b.constant(OperandType::TENSOR_INT32, {channels}, bias.data(), 4 * bias.size(), 0.005f, 0);
    const uint32_t y = b.tensor(kType, {1, 8, 8, channels}, 0.5f, 128);
    b.operation(nn::OperationType::CONV_2D,
                {x, f, bi, b.int32Scalar(1), b.int32Scalar(1), b.int32Scalar(1), b.int32Scalar(0)}, {y});
    return y;
  };
  const uint32_t left = conv(3, 6), right = conv(1, 5);
  const uint32_t out = b.tensor(kType, {1, 8, 8, 11}, 0.5f, 128);
  b.operation(nn::OperationType::CONCATENATION, {left, right, b.int32Scalar(3)}, {out});
  b.output(out);
  OpModel m;
  m.model = b.build();
  std::vector<uint8_t> in(8 * 8 * 4);
  for (auto& v : in) v = static_cast<uint8_t>(byte(rng));
  m.inputs.push_back(std::move(in));
  m.outputBytes.push_back(8 * 8 * 11);
  return m;
}

TEST(PreparedModelCache, TensorsWrittenInPlaceInAConcatenationStayViews) {
  std::mt19937 rng(6);
  const OpModel m = makeConvConcat(rng);
  auto probe = prepare(*freshDevice(), m.model);
  ASSERT_TRUE(probe.ok()) << probe.error().message;
  size_t views = 0;
  for (const auto& [operand, placed] : compiledOf(probe.value()).tensors) views += placed.layout.aliasOf ? 1 : 0;
  EXPECT_GT(views, 0u) << "the concatenation's inputs were not written in place: the case tests nothing";
  expectRestoredRunsExactly(m);
}

// A float32 model relaxed to float16 keeps its tensors as binary16 on the device: a restored
// preparation must convert the host's float32 as the original does (TensorLayout::halfOnDevice).
TEST(PreparedModelCache, ARelaxedFloatModelIsRestoredAndConvertsItsTensors) {
  std::mt19937 rng(12);
  const OpModel m = makeFp16Chain(nn::OperandType::TENSOR_FLOAT32, rng);
  Files files;
  auto saved = prepareWithCache(*freshDevice("weft16fp"), m.model, files);
  ASSERT_TRUE(saved.ok()) << saved.error().message;
  auto restored = freshDevice("weft16fp")->prepareModelFromCache({}, files.model, files.data, files.token);
  ASSERT_TRUE(restored.ok()) << restored.error().message;
  size_t halves = 0;
  for (const auto& [operand, placed] : compiledOf(restored.value()).tensors) halves += placed.layout.halfOnDevice;
  EXPECT_EQ(halves, compiledOf(saved.value()).tensors.size());
  auto before = runOnPrepared(*saved.value(), m);
  auto after = runOnPrepared(*restored.value(), m);
  ASSERT_TRUE(before.ok() && after.ok());
  EXPECT_EQ(after.value().outputs, before.value().outputs);
}

TEST(PreparedModelCache, ACacheOfAnotherConfigurationIsRefused) {
  std::mt19937 rng(4);
  const OpModel m = makeConvChain(1, 8, 8, rng);
  Files files;
  auto saved = prepareWithCache(*freshDevice("weft8"), m.model, files);
  ASSERT_TRUE(saved.ok()) << saved.error().message;
  auto refused = freshDevice("weft16")->prepareModelFromCache({}, files.model, files.data, files.token);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, nn::ErrorStatus::BAD_DATA);
  EXPECT_NE(refused.error().message.find("another hardware configuration"), std::string::npos)
      << refused.error().message;
}

// The timing backend leaves its constant images unwritten, so it saves no prepared model: a device
// that computes data then finds nothing under the token and compiles instead of restoring zeros.
// A cache an approx device saved restores on a timing device (its images are real).
TEST(PreparedModelCache, TheTimingBackendSavesNoPreparedModel) {
  std::mt19937 rng(6);
  const OpModel m = makeConvChain(1, 9, 5, rng);
  auto timingDevice = [] {
    return deviceOn(sim::createBackend(sim::BackendKind::kTiming, hw::HwConfig::load("weft8")));
  };
  Files fromTiming;
  auto timed = prepareWithCache(*timingDevice(), m.model, fromTiming);
  ASSERT_TRUE(timed.ok()) << timed.error().message;
  auto none = freshDevice()->prepareModelFromCache({}, fromTiming.model, fromTiming.data, fromTiming.token);
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().code, nn::ErrorStatus::BAD_DATA);

  Files fromApprox;
  ASSERT_TRUE(prepareWithCache(*freshDevice(), m.model, fromApprox).ok());
  auto restored = timingDevice()->prepareModelFromCache({}, fromApprox.model, fromApprox.data, fromApprox.token);
  ASSERT_TRUE(restored.ok()) << restored.error().message;
  EXPECT_EQ(compiledOf(restored.value()).operations.size(), compiledOf(timed.value()).operations.size());
}

TEST(PreparedModelCache, EmptyFilesOrTheWrongNumberOfThemAreRefused) {
  Files files;
  auto device = freshDevice();
  auto empty = device->prepareModelFromCache({}, files.model, files.data, files.token);
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.error().code, nn::ErrorStatus::BAD_DATA);
  auto none = device->prepareModelFromCache({}, {}, {}, files.token);
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().code, nn::ErrorStatus::BAD_DATA);
  EXPECT_EQ(device->getNumberOfCacheFilesNeeded().modelCache, 1u);
  EXPECT_EQ(device->getNumberOfCacheFilesNeeded().dataCache, 1u);
}

TEST(PreparedModelCache, RestoringCostsAFractionOfCompiling) {
  std::mt19937 rng(5);
  // Layers of distinct shapes: each one's tiling is searched (repeated shapes would find theirs in
  // the tiling memo), which is what restoring from the cache saves.
  const OpModel big = makeConvChain(/*layers=*/8, /*size=*/40, /*channels=*/64, rng, /*kernel=*/3, /*growth=*/8);
  Files files;
  auto device = freshDevice();
  const auto t0 = Clock::now();
  auto compiled = prepareWithCache(*device, big.model, files);
  const double compileSeconds = std::chrono::duration<double>(Clock::now() - t0).count();
  ASSERT_TRUE(compiled.ok()) << compiled.error().message;
  const auto t1 = Clock::now();
  auto restored = device->prepareModelFromCache({}, files.model, files.data, files.token);
  const double restoreSeconds = std::chrono::duration<double>(Clock::now() - t1).count();
  ASSERT_TRUE(restored.ok()) << restored.error().message;
  EXPECT_LT(restoreSeconds, compileSeconds / 3) << "compile " << compileSeconds << " s, restore " << restoreSeconds;
}

// The integrity check refuses any altered file (the runtime's suite flips every bit). Behind it,
// the payload parser must not crash or allocate without bound on any bytes either: payloads
// altered and framed again with a valid digest are read and, when they parse, placed.
TEST(PreparedModelCache, PayloadsAlteredBehindAValidDigestNeverCrashTheParser) {
  std::mt19937 rng(8);
  const OpModel m = makeConvChain(2, 6, 8, rng);
  Files files;
  auto device = freshDevice();
  ASSERT_TRUE(prepareWithCache(*device, m.model, files).ok());
  auto model = hal::unframeCacheFile(kPreparedModelCacheFormat, 1, files.token, hal::readCacheFile(*files.model[0]).value(), "model");
  ASSERT_TRUE(model.ok()) << model.error().message;
  const std::vector<uint8_t> original = model.value();
  const auto& queue = std::static_pointer_cast<const Device>(device)->queue();
  const uint64_t inUse = queue->allocator()->bytesInUse();
  auto attempt = [&](const std::vector<uint8_t>& payload) {
    Files altered;
    altered.token = files.token;
    altered.data = files.data;
    ASSERT_TRUE(hal::writeCacheFile(*altered.model[0], hal::frameCacheFile(kPreparedModelCacheFormat, 1, files.token, payload)).ok());
    auto parsed = readCache(altered.model, altered.data, altered.token, queue->config());
    if (!parsed.ok()) return;
    std::lock_guard<std::mutex> lock(queue->mutex());
    (void)placeCache(**parsed, *queue);  // accepted or refused, never a crash
  };
  for (size_t i = 0; i < original.size(); i += std::max<size_t>(1, original.size() / 200)) {
    std::vector<uint8_t> payload = original;
    payload[i] ^= 0xFF;
    attempt(payload);
    payload = original;
    payload.resize(i);
    attempt(payload);
  }
  // Whatever was placed and dropped gave its DRAM back.
  EXPECT_EQ(queue->allocator()->bytesInUse(), inUse);
}

// PAD whose paddings are a model input: compiled by each execution (ExecutionParameters.h).
OpModel padWithPaddingsInput(const std::vector<int32_t>& paddings) {
  ModelBuilder b;
  const uint32_t in = b.input(nn::OperandType::TENSOR_QUANT8_ASYMM, {1, 3, 4, 10}, 0.5f, 7);
  const uint32_t given = b.input(nn::OperandType::TENSOR_INT32, {4, 2}, 0, 0);
  const uint32_t out = b.tensor(nn::OperandType::TENSOR_QUANT8_ASYMM, {1, 5, 5, 10}, 0.5f, 7);
  b.operation(nn::OperationType::PAD, {in, given}, {out});
  b.output(out);
  OpModel m;
  m.model = b.build();
  std::vector<uint8_t> input(3 * 4 * 10), values(4 * paddings.size());
  for (size_t i = 0; i < input.size(); ++i) input[i] = static_cast<uint8_t>(5 * i + 2);
  std::memcpy(values.data(), paddings.data(), values.size());
  m.inputs = {input, values};
  m.outputBytes = {5 * 5 * 10};
  return m;
}

// A model with execution parameters has no program to keep: its cache holds the model, and the
// restored prepared model compiles each execution as the original does, bit-exactly.
TEST(PreparedModelCache, AModelWithExecutionParametersIsCachedAsTheModel) {
  Files files;
  files.token[3] = 0x17;
  const OpModel first = padWithPaddingsInput({0, 0, 1, 1, 0, 1, 0, 0});
  ASSERT_TRUE(prepareWithCache(*freshDevice(), first.model, files).ok());
  auto restored = freshDevice()->prepareModelFromCache({}, files.model, files.data, files.token);
  ASSERT_TRUE(restored.ok()) << restored.error().message;
  EXPECT_FALSE(std::static_pointer_cast<const PreparedModel>(restored.value())->isCompiled());
  for (const auto& paddings :
       {std::vector<int32_t>{0, 0, 1, 1, 0, 1, 0, 0}, std::vector<int32_t>{0, 0, 2, 0, 1, 0, 0, 0}}) {
    const OpModel m = padWithPaddingsInput(paddings);
    auto cpu = runOnCpu(m);
    ASSERT_TRUE(cpu.ok()) << cpu.error().message;
    auto run = runOnPrepared(*restored.value(), m);
    ASSERT_TRUE(run.ok()) << run.error().message;
    EXPECT_EQ(firstMismatch(run.value().outputs[0], cpu.value().outputs[0]), -1);
  }
}

// That form is trusted no more than the other: a model without execution parameters, or one the
// device cannot run, is refused even behind valid digests.
TEST(PreparedModelCache, ACachedModelMustBeOneCompiledPerExecution) {
  const hw::HwConfig config = hw::HwConfig::load("weft8");
  std::mt19937 rng(5);
  const OpModel plain = makeConvChain(1, 6, 8, rng);
  auto image = captureModelForCache(plain.model, nn::Priority::MEDIUM, nn::ExecutionPreference::LOW_POWER, config);
  ASSERT_TRUE(image.ok()) << image.error().message;
  auto parsed = parseCacheImage(*image, config);
  ASSERT_FALSE(parsed.ok());
  EXPECT_NE(parsed.error().message.find("per execution"), std::string::npos) << parsed.error().message;

  // A model no client could give (PAD without its paddings) is refused before anything reads it.
  OpModel broken = padWithPaddingsInput({0, 0, 1, 1, 0, 1, 0, 0});
  broken.model.main.operations[0].inputs.resize(1);
  image = captureModelForCache(broken.model, nn::Priority::MEDIUM, nn::ExecutionPreference::LOW_POWER, config);
  ASSERT_TRUE(image.ok()) << image.error().message;
  parsed = parseCacheImage(*image, config);
  ASSERT_FALSE(parsed.ok());
  EXPECT_NE(parsed.error().message.find("invalid"), std::string::npos) << parsed.error().message;

  const OpModel pad = padWithPaddingsInput({0, 0, 1, 1, 0, 1, 0, 0});
  image = captureModelForCache(pad.model, nn::Priority::HIGH, nn::ExecutionPreference::LOW_POWER, config);
  ASSERT_TRUE(image.ok()) << image.error().message;
  parsed = parseCacheImage(*image, config);
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  const CachedModel* cached = perExecutionModel(**parsed);
  ASSERT_NE(cached, nullptr);
  EXPECT_EQ(cached->priority, nn::Priority::HIGH);
  EXPECT_EQ(cached->preference, nn::ExecutionPreference::LOW_POWER);
  // It has no program to place.
  auto device = freshDevice();
  const auto& queue = std::static_pointer_cast<const Device>(device)->queue();
  std::lock_guard<std::mutex> lock(queue->mutex());
  EXPECT_FALSE(placeCache(**parsed, *queue).ok());
}

TEST(PreparedModelCache, APassedDeadlineRestoresNothing) {
  Files files;
  auto refused = freshDevice()->prepareModelFromCache(Clock::now() - std::chrono::milliseconds(1), files.model,
                                                      files.data, files.token);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, nn::ErrorStatus::MISSED_DEADLINE_PERSISTENT);
}

}  // namespace
}  // namespace weft::accel::test
