// ANeuralNetworksCompilation_*: argument and state rules.
#include <gtest/gtest.h>

#include <vector>

#include "NnapiTestUtils.h"

namespace weft::test {
namespace {

constexpr int kOk = ANEURALNETWORKS_NO_ERROR;
constexpr int kNull = ANEURALNETWORKS_UNEXPECTED_NULL;
constexpr int kBadData = ANEURALNETWORKS_BAD_DATA;
constexpr int kBadState = ANEURALNETWORKS_BAD_STATE;

void expectAddComputes(const Compilation& compilation) {
  Execution execution(compilation);
  std::vector<float> a{1, 2, 3, 4}, b{10, 20, 30, 40}, out(4);
  ASSERT_EQ(execution.setInput(0, a), kOk);
  ASSERT_EQ(execution.setInput(1, b), kOk);
  ASSERT_EQ(execution.setOutput(0, out), kOk);
  ASSERT_EQ(execution.compute(), kOk);
  EXPECT_EQ(out, (std::vector<float>{11, 22, 33, 44}));
}

TEST(CompilationApi, CreateChecksItsArguments) {
  std::unique_ptr<Model> model = makeAddModel();
  Model unfinished;
  ANeuralNetworksCompilation* compilation = reinterpret_cast<ANeuralNetworksCompilation*>(0x1);
  EXPECT_EQ(ANeuralNetworksCompilation_create(nullptr, &compilation), kNull);
  EXPECT_EQ(compilation, nullptr);  // set to NULL when unsuccessful
  EXPECT_EQ(ANeuralNetworksCompilation_create(model->get(), nullptr), kNull);
  EXPECT_EQ(ANeuralNetworksCompilation_create(unfinished.get(), &compilation), kBadState);
  EXPECT_EQ(compilation, nullptr);
  ANeuralNetworksCompilation_free(nullptr);
}

TEST(CompilationApi, CreateForDevicesChecksItsArguments) {
  std::unique_ptr<Model> model = makeAddModel();
  const ANeuralNetworksDevice* cpu = cpuDevice();
  ASSERT_NE(cpu, nullptr);
  ANeuralNetworksCompilation* compilation = nullptr;
  EXPECT_EQ(ANeuralNetworksCompilation_createForDevices(nullptr, &cpu, 1, &compilation), kNull);
  EXPECT_EQ(ANeuralNetworksCompilation_createForDevices(model->get(), nullptr, 1, &compilation), kNull);
  EXPECT_EQ(ANeuralNetworksCompilation_createForDevices(model->get(), &cpu, 1, nullptr), kNull);
  EXPECT_EQ(ANeuralNetworksCompilation_createForDevices(model->get(), &cpu, 0, &compilation), kBadData);
  const ANeuralNetworksDevice* twice[] = {cpu, cpu};
  EXPECT_EQ(ANeuralNetworksCompilation_createForDevices(model->get(), twice, 2, &compilation), kBadData);
  const ANeuralNetworksDevice* withNull[] = {cpu, nullptr};
  EXPECT_EQ(ANeuralNetworksCompilation_createForDevices(model->get(), withNull, 2, &compilation), kNull);
  int notADevice = 0;
  const ANeuralNetworksDevice* bogus = reinterpret_cast<const ANeuralNetworksDevice*>(&notADevice);
  EXPECT_EQ(ANeuralNetworksCompilation_createForDevices(model->get(), &bogus, 1, &compilation), kBadData);
  EXPECT_EQ(compilation, nullptr);
  Model unfinished;
  EXPECT_EQ(ANeuralNetworksCompilation_createForDevices(unfinished.get(), &cpu, 1, &compilation), kBadState);

  Compilation onCpu(*model, {cpu});
  ASSERT_EQ(onCpu.createResult(), kOk);
  ASSERT_EQ(onCpu.finish(), kOk);
  expectAddComputes(onCpu);
}

TEST(CompilationApi, SettingsAreCheckedAndOnlyBeforeFinish) {
  std::unique_ptr<Model> model = makeAddModel();
  Compilation compilation(*model);
  ASSERT_EQ(compilation.createResult(), kOk);
  ANeuralNetworksCompilation* c = compilation.get();
  EXPECT_EQ(ANeuralNetworksCompilation_setPreference(nullptr, ANEURALNETWORKS_PREFER_LOW_POWER), kNull);
  EXPECT_EQ(ANeuralNetworksCompilation_setPreference(c, -1), kBadData);
  EXPECT_EQ(ANeuralNetworksCompilation_setPreference(c, 3), kBadData);
  EXPECT_EQ(ANeuralNetworksCompilation_setPreference(c, ANEURALNETWORKS_PREFER_SUSTAINED_SPEED), kOk);
  EXPECT_EQ(ANeuralNetworksCompilation_setPriority(nullptr, ANEURALNETWORKS_PRIORITY_LOW), kNull);
  EXPECT_EQ(ANeuralNetworksCompilation_setPriority(c, 0), kBadData);
  EXPECT_EQ(ANeuralNetworksCompilation_setPriority(c, 95), kBadData);
  EXPECT_EQ(ANeuralNetworksCompilation_setPriority(c, ANEURALNETWORKS_PRIORITY_HIGH), kOk);
  EXPECT_EQ(ANeuralNetworksCompilation_setPriority(c, ANEURALNETWORKS_PRIORITY_DEFAULT), kOk);
  // A timeout needs createForDevices with one device.
  EXPECT_EQ(ANeuralNetworksCompilation_setTimeout(nullptr, 1000), kNull);
  EXPECT_EQ(ANeuralNetworksCompilation_setTimeout(c, 1000), kBadData);
  const uint8_t token[ANEURALNETWORKS_BYTE_SIZE_OF_CACHE_TOKEN] = {};
  EXPECT_EQ(ANeuralNetworksCompilation_setCaching(nullptr, "/tmp", token), kNull);
  EXPECT_EQ(ANeuralNetworksCompilation_setCaching(c, nullptr, token), kNull);
  EXPECT_EQ(ANeuralNetworksCompilation_setCaching(c, "/tmp", nullptr), kNull);
  EXPECT_EQ(ANeuralNetworksCompilation_setCaching(c, "/tmp", token), kOk);

  EXPECT_EQ(ANeuralNetworksCompilation_finish(nullptr), kNull);
  ASSERT_EQ(compilation.finish(), kOk);
  EXPECT_EQ(compilation.finish(), kBadState);
  EXPECT_EQ(ANeuralNetworksCompilation_setPreference(c, ANEURALNETWORKS_PREFER_LOW_POWER), kBadState);
  EXPECT_EQ(ANeuralNetworksCompilation_setPriority(c, ANEURALNETWORKS_PRIORITY_LOW), kBadState);
  EXPECT_EQ(ANeuralNetworksCompilation_setCaching(c, "/tmp", token), kBadState);
  expectAddComputes(compilation);
}

TEST(CompilationApi, TimeoutWithOneExplicitDevice) {
  std::unique_ptr<Model> model = makeAddModel();
  Compilation compilation(*model, {cpuDevice()});
  ASSERT_EQ(compilation.createResult(), kOk);
  EXPECT_EQ(ANeuralNetworksCompilation_setTimeout(compilation.get(), 10'000'000'000ULL), kOk);
  EXPECT_EQ(ANeuralNetworksCompilation_setTimeout(compilation.get(), 0), kOk);  // 0 = no timeout
  ASSERT_EQ(compilation.finish(), kOk);
  EXPECT_EQ(ANeuralNetworksCompilation_setTimeout(compilation.get(), 1000), kBadState);
  expectAddComputes(compilation);
}

TEST(CompilationApi, ExecutionsAndBurstsNeedAFinishedCompilation) {
  std::unique_ptr<Model> model = makeAddModel();
  Compilation compilation(*model);
  ANeuralNetworksExecution* execution = nullptr;
  ANeuralNetworksBurst* burst = nullptr;
  EXPECT_EQ(ANeuralNetworksExecution_create(compilation.get(), &execution), kBadState);
  EXPECT_EQ(execution, nullptr);
  EXPECT_EQ(ANeuralNetworksBurst_create(compilation.get(), &burst), kBadState);
  EXPECT_EQ(burst, nullptr);
}

TEST(CompilationApi, PreferredMemoryAlignmentAndPadding) {
  std::unique_ptr<Model> model = makeAddModel();
  Compilation compilation(*model);
  uint32_t value = 0;
  using Query = int (*)(const ANeuralNetworksCompilation*, uint32_t, uint32_t*);
  const Query inputQueries[] = {ANeuralNetworksCompilation_getPreferredMemoryAlignmentForInput,
                                ANeuralNetworksCompilation_getPreferredMemoryPaddingForInput};
  const Query outputQueries[] = {ANeuralNetworksCompilation_getPreferredMemoryAlignmentForOutput,
                                 ANeuralNetworksCompilation_getPreferredMemoryPaddingForOutput};
  for (Query query : inputQueries) EXPECT_EQ(query(compilation.get(), 0, &value), kBadState);
  ASSERT_EQ(compilation.finish(), kOk);
  for (Query query : inputQueries) {
    EXPECT_EQ(query(nullptr, 0, &value), kNull);
    EXPECT_EQ(query(compilation.get(), 0, nullptr), kNull);
    EXPECT_EQ(query(compilation.get(), 2, &value), kBadData);  // two inputs
    ASSERT_EQ(query(compilation.get(), 1, &value), kOk);
    EXPECT_GT(value, 0u);
    EXPECT_EQ(value & (value - 1), 0u) << "a power of 2";
  }
  for (Query query : outputQueries) {
    EXPECT_EQ(query(compilation.get(), 1, &value), kBadData);  // one output
    ASSERT_EQ(query(compilation.get(), 0, &value), kOk);
    EXPECT_EQ(value & (value - 1), 0u);
  }
}

TEST(CompilationApi, CompilationOutlivesItsModel) {
  std::unique_ptr<Model> model = makeAddModel();
  Compilation compilation(*model);
  ASSERT_EQ(compilation.finish(), kOk);
  model.reset();
  expectAddComputes(compilation);
}

}  // namespace
}  // namespace weft::test
