// The AOSP NNAPI conformance corpus through the NNAPI C API (libneuralnetworks.so): each case is
// built with ANeuralNetworksModel_*, compiled for one device with createForDevices, executed, and
// checked with NNAPI's rules (tests/support). Suites are <device>_<spec version>:
//   cpu_<version>    every case, on the CPU reference device;
//   accel_<version>  every case whose operations the accelerator runs (the array's CONV_2D and
//                    FULLY_CONNECTED and BATCH_MATMUL, the vector unit's depthwise convolution, pools, MEAN,
//                    ADD/SUB/MUL, activations, SOFTMAX, PAD, CONCATENATION, RESHAPE) on 8-bit
//                    quantized tensors (with int32 biases), on the accelerator alone: a case it
//                    does not claim fails (skipped only when no accelerator is present);
//   accelfp16_<version>  the float16 and relaxed float32 cases the fp16 datapath runs (run
//                    with WEFT_HW=weft16fp);
//                    WEFT_CONFORMANCE_SAMPLE=K runs a sample of the accelerator's cases (see
//                    registerAcceleratorCases).
// Run a subset with  weft_conformance_api --gtest_filter='cpu_V1_2.conv2d*'
// A summary per device, spec version and operation is printed at the end.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "AcceleratorCases.h"
#include "ApiModelBuilder.h"
#include "ConformanceSummary.h"
#include "Corpus.h"
#include "KernelCoverage.h"
#include "ResultChecker.h"
#include "TestModelLoader.h"
#include "android/NeuralNetworks.h"

namespace weft::test {
namespace {

constexpr uint64_t kShortLoopTimeoutNs = 50'000'000;  // the infinite-loop case need not take 2 s

enum class Target { kCpu, kAccelerator };

const char* targetName(Target target) { return target == Target::kCpu ? "cpu" : "accel"; }

const ANeuralNetworksDevice* deviceOfType(int32_t wanted) {
  uint32_t count = 0;
  if (ANeuralNetworks_getDeviceCount(&count) != ANEURALNETWORKS_NO_ERROR) return nullptr;
  for (uint32_t i = 0; i < count; ++i) {
    ANeuralNetworksDevice* device = nullptr;
    int32_t type = 0;
    if (ANeuralNetworks_getDevice(i, &device) == ANEURALNETWORKS_NO_ERROR &&
        ANeuralNetworksDevice_getType(device, &type) == ANEURALNETWORKS_NO_ERROR && type == wanted) {
      return device;
    }
  }
  return nullptr;
}

struct Compilation {
  ANeuralNetworksCompilation* handle = nullptr;
  ~Compilation() { ANeuralNetworksCompilation_free(handle); }
};
struct Execution {
  ANeuralNetworksExecution* handle = nullptr;
  ~Execution() { ANeuralNetworksExecution_free(handle); }
};

class ApiCaseTest : public testing::Test {
 public:
  ApiCaseTest(CorpusCase c, Target target) : case_(std::move(c)), target_(target) {}

  void TestBody() override {
    auto loaded = loadTestModel(case_.file, case_.version);
    ASSERT_TRUE(loaded.ok()) << loaded.error().message;
    const TestModel& model = *loaded;
    CaseRecord& record = caseRecord(std::string(targetName(target_)) + "_" + case_.version + "." + case_.name);
    const std::string missing = recordOperations(model, hasKernel, &record);
    if (!missing.empty()) {
      record.skipReason = CaseOutcome::kNoKernel;
      GTEST_SKIP() << "skipped: no reference kernel for " << missing;
    }
    const ANeuralNetworksDevice* device =
        deviceOfType(target_ == Target::kCpu ? ANEURALNETWORKS_DEVICE_CPU : ANEURALNETWORKS_DEVICE_ACCELERATOR);
    if (device == nullptr) {
      GTEST_SKIP() << "skipped: no " << (target_ == Target::kCpu ? "CPU" : "accelerator")
                   << " device (for the accelerator set WEFT_BACKEND=approx, or build the RTL for WEFT_HW)";
    }

    ApiModelBuilder builder(model);
    if (builder.model() == nullptr) {
      if (model.expectFailure) return;  // rejected while building, as it must be
      FAIL() << "building the model failed: " << builder.failure();
    }
    if (target_ == Target::kAccelerator) {
      std::vector<uint8_t> supported(model.main.operations.size(), 0);
      ASSERT_EQ(ANeuralNetworksModel_getSupportedOperationsForDevices(builder.model(), &device, 1,
                                                                      reinterpret_cast<bool*>(supported.data())),
                ANEURALNETWORKS_NO_ERROR);
      for (size_t i = 0; i < supported.size(); ++i) {
        if (supported[i] == 0) {
          record.skipReason = CaseOutcome::kNotClaimed;
          FAIL() << "the accelerator does not claim operation " << i << " ("
                 << nn::toString(model.main.operations[i].type) << ")";
        }
      }
    }
    run(model, builder.model(), device);
  }

 private:
  void run(const TestModel& model, ANeuralNetworksModel* nnModel, const ANeuralNetworksDevice* device) {
    Compilation compilation;
    ASSERT_EQ(ANeuralNetworksCompilation_createForDevices(nnModel, &device, 1, &compilation.handle),
              ANEURALNETWORKS_NO_ERROR);
    const int finished = ANeuralNetworksCompilation_finish(compilation.handle);
    if (model.expectFailure && finished != ANEURALNETWORKS_NO_ERROR) return;
    ASSERT_EQ(finished, ANEURALNETWORKS_NO_ERROR) << "ANeuralNetworksCompilation_finish";
    Execution execution;
    ASSERT_EQ(ANeuralNetworksExecution_create(compilation.handle, &execution.handle), ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksExecution_setMeasureTiming(execution.handle, true), ANEURALNETWORKS_NO_ERROR);
    if (model.isInfiniteLoopTimeoutTest()) {
      ASSERT_EQ(ANeuralNetworksExecution_setLoopTimeout(execution.handle, kShortLoopTimeoutNs), ANEURALNETWORKS_NO_ERROR);
    }
    const TestSubgraph& main = model.main;
    for (size_t i = 0; i < main.inputIndexes.size(); ++i) {
      const TestBuffer& data = main.operands[main.inputIndexes[i]].data;
      ASSERT_EQ(ANeuralNetworksExecution_setInput(execution.handle, static_cast<int32_t>(i), nullptr,
                                                  data.empty() ? nullptr : data.data(), data.size()),
                ANEURALNETWORKS_NO_ERROR)
          << "setInput " << i;
    }
    // Outputs sized for the expected values (a zero-sized output still gets one byte, as in CTS).
    std::vector<std::vector<uint64_t>> storage(main.outputIndexes.size());
    for (size_t i = 0; i < main.outputIndexes.size(); ++i) {
      const size_t bytes = std::max<size_t>(main.operands[main.outputIndexes[i]].data.size(), 1);
      storage[i].resize((bytes + 7) / 8);
      ASSERT_EQ(ANeuralNetworksExecution_setOutput(execution.handle, static_cast<int32_t>(i), nullptr,
                                                   storage[i].data(), bytes),
                ANEURALNETWORKS_NO_ERROR)
          << "setOutput " << i;
    }
    const int computed = ANeuralNetworksExecution_compute(execution.handle);
    if (model.expectFailure) {
      EXPECT_NE(computed, ANEURALNETWORKS_NO_ERROR) << "an expectFailure case was built, compiled and computed";
      return;
    }
    ASSERT_EQ(computed, ANEURALNETWORKS_NO_ERROR) << "ANeuralNetworksExecution_compute";

    std::vector<TestBuffer> outputs;
    std::vector<nn::Dimensions> dimensions;
    for (size_t i = 0; i < main.outputIndexes.size(); ++i) {
      const size_t bytes = std::max<size_t>(main.operands[main.outputIndexes[i]].data.size(), 1);
      outputs.emplace_back(storage[i].data(), bytes);
      uint32_t rank = 0;
      ASSERT_EQ(ANeuralNetworksExecution_getOutputOperandRank(execution.handle, static_cast<int32_t>(i), &rank),
                ANEURALNETWORKS_NO_ERROR);
      nn::Dimensions dims(rank);
      if (rank > 0) {
        ASSERT_EQ(ANeuralNetworksExecution_getOutputOperandDimensions(execution.handle, static_cast<int32_t>(i),
                                                                      dims.data()),
                  ANEURALNETWORKS_NO_ERROR);
      }
      dimensions.push_back(std::move(dims));
    }
    CheckOptions options;
    options.testSuiteName = testing::UnitTest::GetInstance()->current_test_suite()->name();
    const CheckReport report = checkResults(model, outputs, &dimensions, options);
    EXPECT_TRUE(report.ok()) << report.summary();

    // Timing: measured for one explicit device, and never more on hardware than in the driver.
    uint64_t onHardware = 0, inDriver = 0;
    ASSERT_EQ(ANeuralNetworksExecution_getDuration(execution.handle, ANEURALNETWORKS_DURATION_ON_HARDWARE, &onHardware),
              ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksExecution_getDuration(execution.handle, ANEURALNETWORKS_DURATION_IN_DRIVER, &inDriver),
              ANEURALNETWORKS_NO_ERROR);
    EXPECT_NE(inDriver, UINT64_MAX);
    if (onHardware != UINT64_MAX) {
      EXPECT_LE(onHardware, inDriver);
    }
  }

  CorpusCase case_;
  Target target_;
};

class SummaryPrinter : public SummaryListener {
 protected:
  std::string operationKey(const std::string& suite, const std::string& operation) const override {
    return suite.substr(0, suite.find('_')) + " " + operation;  // "<device> <operation>"
  }

  void print(const OutcomeTally& tally) const override {
    auto row = [](const std::string& name, const OutcomeCounts& c) {
      std::printf("  %-40s %7zu %7zu %10zu %12zu %8zu\n", name.c_str(), c.passed, c.failed, c.noKernel,
                  c.notClaimed, c.skipped);
    };
    std::printf("\nConformance through the NNAPI C API\n");
    std::printf("  %-40s %7s %7s %10s %12s %8s\n", "device_version", "passed", "failed", "no kernel", "not claimed",
                "skipped");
    for (const auto& [suite, c] : tally.bySuite) row(suite, c);
    row("total", tally.total);
    std::printf("\n  %-40s %7s %7s %10s %12s %8s   (a case counts under every operation it uses)\n",
                "device operation", "passed", "failed", "no kernel", "not claimed", "skipped");
    for (const auto& [op, c] : tally.byOperation) row(op, c);
    const OutcomeCounts& total = tally.total;
    std::printf("\nconformance_api: %zu passed, %zu failed, %zu skipped (%zu no kernel, %zu not claimed by the device)\n",
                total.passed, total.failed, total.noKernel + total.notClaimed + total.skipped, total.noKernel,
                total.notClaimed);
  }
};

// An accelerator case with what sampling groups it by: its spec version and set of operations,
// and the bytes of its inputs.
struct SampledCase {
  CorpusCase corpusCase;
  std::string group;
  uint64_t inputBytes = 0;
};

SampledCase sampledCase(const CorpusCase& c, const TestModel& model) {
  SampledCase s{c, c.version, 0};
  for (nn::OperationType t : model.operationTypes()) s.group += std::string(" ") + nn::toString(t);
  for (uint32_t i : model.main.inputIndexes) s.inputBytes += model.main.operands[i].data.size();
  return s;
}

// Registers `cases` on the accelerator as suites <prefix><version>: all of them, or with
// sample = K > 0, K cases of each version and operation set, spread over those whose inputs are
// at most 16 KiB.
void registerAcceleratorCases(const std::string& prefix, const std::vector<SampledCase>& cases, size_t sample) {
  auto add = [&](const CorpusCase& c) {
    const std::string suite = prefix + c.version;
    testing::RegisterTest(suite.c_str(), c.name.c_str(), nullptr, nullptr, __FILE__, __LINE__,
                          [c]() -> testing::Test* { return new ApiCaseTest(c, Target::kAccelerator); });
  };
  if (sample == 0) {
    for (const SampledCase& s : cases) add(s.corpusCase);
    return;
  }
  std::map<std::string, std::vector<CorpusCase>> groups;
  for (const SampledCase& s : cases) {
    if (s.inputBytes <= 16 * 1024) groups[s.group].push_back(s.corpusCase);
  }
  size_t picked = 0;
  for (const auto& [key, group] : groups) {
    const size_t n = group.size(), k = std::min(sample, n);
    for (size_t j = 0; j < k; ++j) add(group[k == 1 ? 0 : j * (n - 1) / (k - 1)]);
    picked += k;
  }
  std::printf("[conformance] accelerator sample (%s*): %zu of %zu cases (WEFT_CONFORMANCE_SAMPLE=%zu per spec "
              "version and operation set, inputs up to 16 KiB; unset it for every case)\n",
              prefix.c_str(), picked, cases.size(), sample);
}

void registerTests() {
  const CorpusLocation location = findConformanceCorpus();
  if (!location.dir) {
    std::vector<std::string> suites;
    for (Target target : {Target::kCpu, Target::kAccelerator}) {
      for (const char* version : kCorpusVersions) suites.push_back(std::string(targetName(target)) + "_" + version);
    }
    registerCorpusMissingTests(suites, location.describeMissing());
    return;
  }
  const std::vector<CorpusCase> cases = listCorpusCases(*location.dir);
  for (const CorpusCase& c : cases) {
    const std::string suite = std::string("cpu_") + c.version;
    testing::RegisterTest(suite.c_str(), c.name.c_str(), nullptr, nullptr, __FILE__, __LINE__,
                          [c]() -> testing::Test* { return new ApiCaseTest(c, Target::kCpu); });
  }
  // The accelerator's cases are chosen by content, which needs the file read: the 8-bit ones
  // (accel_<version>) and the float16 and relaxed ones of the fp16 datapath (accelfp16_<version>).
  std::vector<SampledCase> int8Cases, fp16Cases;
  for (const CorpusCase& c : cases) {
    auto model = loadTestModel(c.file, c.version);
    if (!model.ok()) continue;
    if (isAcceleratorFp16Case(*model)) fp16Cases.push_back(sampledCase(c, *model));
    if (isAcceleratorCase(*model)) int8Cases.push_back(sampledCase(c, *model));
  }
  // WEFT_CONFORMANCE_SAMPLE=K: only a sample runs (ctest's RTL entries: the whole set takes tens
  // of minutes there, and the approx entries run every case on the same command programs).
  const char* sampleVar = std::getenv("WEFT_CONFORMANCE_SAMPLE");
  const size_t sample = sampleVar != nullptr ? std::strtoul(sampleVar, nullptr, 10) : 0;
  registerAcceleratorCases("accel_", int8Cases, sample);
  registerAcceleratorCases("accelfp16_", fp16Cases, sample);
}

}  // namespace
}  // namespace weft::test

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  weft::test::registerTests();
  testing::UnitTest::GetInstance()->listeners().Append(new weft::test::SummaryPrinter);
  return RUN_ALL_TESTS();
}
