// Compilation caching through the NNAPI C API, after Android's VTS CompilationCachingTest and
// CompilationCachingSecurityTest: a compilation saves into its cache files and the next one of the
// same model restores from them; every altered cache (a flipped bit anywhere, a truncated or
// extended file, swapped files, files of another model, token or preference) is refused and the
// model compiled afresh with the right results; a cache directory that is missing or cannot be
// written never fails a compilation.
//
// Written against the C API and the runtime's cache-file naming only (<dir>/<token hex>-<step>-
// <device>-*), so that any device caching through the runtime can run it: add it to the
// instantiation at the end with a model it supports.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <vector>

#include "NnapiTestUtils.h"
#include "weft/runtime/Profile.h"

namespace weft::test {
namespace {

namespace fs = std::filesystem;
using runtime::CacheUse;
using Token = std::array<uint8_t, ANEURALNETWORKS_BYTE_SIZE_OF_CACHE_TOKEN>;
constexpr int kOk = ANEURALNETWORKS_NO_ERROR;

// A model of the suite: how to build it and run it once, checking its results.
struct CacheModel {
  const char* name;
  std::function<std::unique_ptr<Model>()> build;
  std::function<void(const Compilation&)> runAndCheck;
};

// out = (a + c1) * c2 on 64 floats: c1 copied into the model, c2 from a memory (a pool).
CacheModel floatModel() {
  struct Shared {
    int fd = memfd_create("weft-cache-test", 0);
    ANeuralNetworksMemory* memory = nullptr;
    Shared() {
      std::vector<float> c2(64);
      for (int i = 0; i < 64; ++i) c2[i] = 0.5f * static_cast<float>(i % 7);
      EXPECT_EQ(ftruncate(fd, 4096), 0);
      EXPECT_EQ(pwrite(fd, c2.data(), 256, 0), 256);
      EXPECT_EQ(ANeuralNetworksMemory_createFromFd(4096, PROT_READ, fd, 0, &memory), kOk);
    }
    ~Shared() {
      ANeuralNetworksMemory_free(memory);
      close(fd);
    }
  };
  static Shared shared;  // lives as long as the test process: models reference it
  return {"float_add_mul",
          [] {
            auto model = std::make_unique<Model>();
            std::vector<float> c1(64);
            for (int i = 0; i < 64; ++i) c1[i] = static_cast<float>(i);
            const uint32_t a = model->addTensor({64});
            const uint32_t k1 = model->addFloatTensorConstant({64}, c1);
            const uint32_t k2 = model->addTensor({64});
            EXPECT_EQ(ANeuralNetworksModel_setOperandValueFromMemory(model->get(), k2, shared.memory, 0, 256), kOk);
            const uint32_t act = model->addInt32Constant(0);
            const uint32_t sum = model->addTensor({64});
            const uint32_t out = model->addTensor({64});
            EXPECT_EQ(model->addOperation(ANEURALNETWORKS_ADD, {a, k1, act}, {sum}), kOk);
            EXPECT_EQ(model->addOperation(ANEURALNETWORKS_MUL, {sum, k2, act}, {out}), kOk);
            EXPECT_EQ(model->identify({a}, {out}), kOk);
            EXPECT_EQ(model->finish(), kOk);
            return model;
          },
          [](const Compilation& compilation) {
            Execution execution(compilation);
            std::vector<float> a(64, 1.0f), out(64, -1.0f);
            ASSERT_EQ(execution.setInput(0, a), kOk);
            ASSERT_EQ(execution.setOutput(0, out), kOk);
            ASSERT_EQ(execution.compute(), kOk);
            for (int i = 0; i < 64; ++i) {
              EXPECT_EQ(out[i], (1.0f + static_cast<float>(i)) * 0.5f * static_cast<float>(i % 7)) << i;
            }
          }};
}

// A quant8 FULLY_CONNECTED, 1x8 -> 1x4, weights and bias constant (what an accelerator runs).
CacheModel quantModel() {
  return {"quant8_fully_connected",
          [] {
            auto model = std::make_unique<Model>();
            const uint32_t input = model->addOperand(ANEURALNETWORKS_TENSOR_QUANT8_ASYMM, {1, 8}, 0.5f, 10);
            const uint32_t weights = model->addOperand(ANEURALNETWORKS_TENSOR_QUANT8_ASYMM, {4, 8}, 0.25f, 3);
            const uint32_t bias = model->addOperand(ANEURALNETWORKS_TENSOR_INT32, {4}, 0.125f, 0);
            const uint32_t act = model->addInt32Constant(0);
            const uint32_t out = model->addOperand(ANEURALNETWORKS_TENSOR_QUANT8_ASYMM, {1, 4}, 1.0f, 5);
            std::vector<uint8_t> w(32);
            for (int i = 0; i < 32; ++i) w[i] = static_cast<uint8_t>(3 + (i % 5));
            const int32_t b[4] = {8, -8, 16, 0};
            EXPECT_EQ(ANeuralNetworksModel_setOperandValue(model->get(), weights, w.data(), w.size()), kOk);
            EXPECT_EQ(ANeuralNetworksModel_setOperandValue(model->get(), bias, b, sizeof(b)), kOk);
            EXPECT_EQ(model->addOperation(ANEURALNETWORKS_FULLY_CONNECTED, {input, weights, bias, act}, {out}), kOk);
            EXPECT_EQ(model->identify({input}, {out}), kOk);
            EXPECT_EQ(model->finish(), kOk);
            return model;
          },
          [](const Compilation& compilation) {
            Execution execution(compilation);
            std::vector<uint8_t> input(8), out(4, 0);
            for (int i = 0; i < 8; ++i) input[i] = static_cast<uint8_t>(10 + i);
            ASSERT_EQ(ANeuralNetworksExecution_setInput(execution.get(), 0, nullptr, input.data(), 8), kOk);
            ASSERT_EQ(ANeuralNetworksExecution_setOutput(execution.get(), 0, nullptr, out.data(), 4), kOk);
            ASSERT_EQ(execution.compute(), kOk);
            // Real values: (x - 10) * 0.5 and (w - 3) * 0.25, bias b * 0.125; output scale 1, zero point 5.
            for (int n = 0; n < 4; ++n) {
              float sum = 0.125f * static_cast<float>(std::array<int, 4>{8, -8, 16, 0}[n]);
              for (int k = 0; k < 8; ++k)
                sum += 0.5f * static_cast<float>(k) * 0.25f * static_cast<float>((n * 8 + k) % 5);
              EXPECT_EQ(out[n], static_cast<uint8_t>(std::lround(sum) + 5)) << n;
            }
          }};
}

// A quant8 CONV_2D 3x3 (SAME, 3 -> 4 channels) on a 1x4x4x3 image, then ADD of a constant
// 1x4x4x4 tensor: several layers, a constant activation. Checked against a CPU-only compilation.
std::unique_ptr<Model> buildConvAdd() {
  auto model = std::make_unique<Model>();
  constexpr int32_t kQuant = ANEURALNETWORKS_TENSOR_QUANT8_ASYMM;
  const uint32_t input = model->addOperand(kQuant, {1, 4, 4, 3}, 0.5f, 128);
  const uint32_t filter = model->addOperand(kQuant, {4, 3, 3, 3}, 0.25f, 120);
  const uint32_t bias = model->addOperand(ANEURALNETWORKS_TENSOR_INT32, {4}, 0.125f, 0);
  const uint32_t same = model->addInt32Constant(ANEURALNETWORKS_PADDING_SAME);
  const uint32_t one = model->addInt32Constant(1);
  const uint32_t none = model->addInt32Constant(0);
  const uint32_t conv = model->addOperand(kQuant, {1, 4, 4, 4}, 2.0f, 100);
  const uint32_t addend = model->addOperand(kQuant, {1, 4, 4, 4}, 1.0f, 7);
  const uint32_t out = model->addOperand(kQuant, {1, 4, 4, 4}, 3.0f, 90);
  static std::vector<uint8_t> f(4 * 27), c(64);
  for (size_t i = 0; i < f.size(); ++i) f[i] = static_cast<uint8_t>(100 + (i * 37) % 50);
  for (size_t i = 0; i < c.size(); ++i) c[i] = static_cast<uint8_t>((i * 53) % 256);
  const int32_t b[4] = {40, -30, 20, 0};
  EXPECT_EQ(ANeuralNetworksModel_setOperandValue(model->get(), filter, f.data(), f.size()), kOk);
  EXPECT_EQ(ANeuralNetworksModel_setOperandValue(model->get(), bias, b, sizeof(b)), kOk);
  EXPECT_EQ(ANeuralNetworksModel_setOperandValue(model->get(), addend, c.data(), c.size()), kOk);
  EXPECT_EQ(model->addOperation(ANEURALNETWORKS_CONV_2D, {input, filter, bias, same, one, one, none}, {conv}), kOk);
  EXPECT_EQ(model->addOperation(ANEURALNETWORKS_ADD, {conv, addend, none}, {out}), kOk);
  EXPECT_EQ(model->identify({input}, {out}), kOk);
  EXPECT_EQ(model->finish(), kOk);
  return model;
}

CacheModel convAddModel() {
  return {"quant8_conv_add", buildConvAdd, [](const Compilation& compilation) {
            std::vector<uint8_t> input(48);
            for (size_t i = 0; i < input.size(); ++i) input[i] = static_cast<uint8_t>((i * 29) % 256);
            auto run = [&](const Compilation& c) {
              Execution execution(c);
              std::vector<uint8_t> out(64, 0);
              EXPECT_EQ(ANeuralNetworksExecution_setInput(execution.get(), 0, nullptr, input.data(), input.size()), kOk);
              EXPECT_EQ(ANeuralNetworksExecution_setOutput(execution.get(), 0, nullptr, out.data(), out.size()), kOk);
              EXPECT_EQ(execution.compute(), kOk);
              return out;
            };
            const std::unique_ptr<Model> reference = buildConvAdd();
            Compilation onCpu(*reference, {cpuDevice()});
            ASSERT_EQ(onCpu.finish(), kOk);
            EXPECT_EQ(run(compilation), run(onCpu));
          }};
}

struct Param {
  const char* device;
  CacheModel (*model)();
};

std::string hex(const Token& token) {
  std::string s;
  for (uint8_t byte : token) {
    const char* digits = "0123456789abcdef";
    s += digits[byte >> 4];
    s += digits[byte & 15];
  }
  return s;
}

std::vector<uint8_t> readFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<uint8_t>((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

void writeFile(const fs::path& path, const std::vector<uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

class CompilationCaching : public ::testing::TestWithParam<Param> {
 protected:
  void SetUp() override {
    device_ = findDevice(GetParam().device);
    ASSERT_NE(device_, nullptr) << "no device " << GetParam().device;
    // In memory where there is such a file system: the suite rewrites cache files thousands of times.
    const fs::path base = fs::is_directory("/dev/shm") ? fs::path("/dev/shm") : fs::path(::testing::TempDir());
    dir_ = base / ("weft-cache-" + std::to_string(getpid()) + "-" +
                   ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    model_ = GetParam().model().build();
    token_.fill(0);
    token_[0] = 0x5a;
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Compiles the suite's model (or `model`) on the device with the cache and checks the results;
  // returns what the compilation did with the cache.
  CacheUse compileAndRun(const Token& token, const Model* model = nullptr, const std::string& dir = "",
                         int32_t preference = ANEURALNETWORKS_PREFER_FAST_SINGLE_ANSWER) {
    Compilation compilation(model != nullptr ? *model : *model_, {device_});
    EXPECT_EQ(compilation.createResult(), kOk);
    EXPECT_EQ(ANeuralNetworksCompilation_setPreference(compilation.get(), preference), kOk);
    const std::string where = dir.empty() ? dir_.string() : dir;
    EXPECT_EQ(ANeuralNetworksCompilation_setCaching(compilation.get(), where.c_str(), token.data()), kOk);
    EXPECT_EQ(compilation.finish(), kOk);
    const std::vector<runtime::CompilationStep> steps = runtime::getCompilationSteps(compilation.get());
    EXPECT_EQ(steps.size(), 1u);
    if (model == nullptr) GetParam().model().runAndCheck(compilation);
    return steps.empty() ? CacheUse::kNotRequested : steps[0].cache;
  }

  // The cache files of `token`, by name.
  std::map<std::string, fs::path> cacheFiles(const Token& token) const {
    std::map<std::string, fs::path> files;
    const std::string prefix = hex(token) + "-0-" + GetParam().device + "-";
    for (const auto& entry : fs::directory_iterator(dir_)) {
      const std::string name = entry.path().filename().string();
      if (name.rfind(prefix, 0) == 0) files[name] = entry.path();
    }
    return files;
  }

  // Saves the cache once; `alter` changes it; the next compilation must refuse it and compile.
  void expectRefused(const std::function<void(std::map<std::string, std::vector<uint8_t>>&)>& alter) {
    const std::map<std::string, fs::path> files = cacheFiles(token_);
    std::map<std::string, std::vector<uint8_t>> contents;
    for (const auto& [name, path] : files) contents[name] = readFile(path);
    std::map<std::string, std::vector<uint8_t>> altered = contents;
    alter(altered);
    for (const auto& [name, bytes] : altered) writeFile(files.at(name), bytes);
    EXPECT_EQ(compileAndRun(token_), CacheUse::kSaved) << "an altered cache was used";
    for (const auto& [name, bytes] : contents) writeFile(files.at(name), bytes);  // the saved cache again
  }

  const ANeuralNetworksDevice* device_ = nullptr;
  fs::path dir_;
  std::unique_ptr<Model> model_;
  Token token_{};
};

TEST_P(CompilationCaching, SavesThenRestores) {
  EXPECT_EQ(compileAndRun(token_), CacheUse::kSaved);
  EXPECT_FALSE(cacheFiles(token_).empty());
  EXPECT_EQ(compileAndRun(token_), CacheUse::kRestored);
  EXPECT_EQ(compileAndRun(token_), CacheUse::kRestored);
}

TEST_P(CompilationCaching, NothingIsCachedWithoutSetCaching) {
  Compilation compilation(*model_, {device_});
  ASSERT_EQ(compilation.finish(), kOk);
  EXPECT_EQ(runtime::getCompilationSteps(compilation.get())[0].cache, CacheUse::kNotRequested);
  EXPECT_TRUE(fs::is_empty(dir_));
}

TEST_P(CompilationCaching, AMissingOrUnwritableDirectoryOnlyMeansNoCache) {
  EXPECT_EQ(compileAndRun(token_, nullptr, (dir_ / "missing" / "deeper").string()), CacheUse::kNotSaved);
  const fs::path notADirectory = dir_ / "file";
  writeFile(notADirectory, {1, 2, 3});
  EXPECT_EQ(compileAndRun(token_, nullptr, notADirectory.string()), CacheUse::kNotSaved);
  // Not writable even by root.
  EXPECT_EQ(compileAndRun(token_, nullptr, "/proc/self"), CacheUse::kNotSaved);
}

TEST_P(CompilationCaching, EveryFlippedBitIsRefused) {
  ASSERT_EQ(compileAndRun(token_), CacheUse::kSaved);
  const std::map<std::string, fs::path> files = cacheFiles(token_);
  ASSERT_FALSE(files.empty());
  for (const auto& [name, path] : files) {
    const size_t size = readFile(path).size();
    ASSERT_GT(size, 0u);
    // Every byte of the head and tail of every file (header, digest) and 64 bytes spread over the
    // rest, a different bit each time (VTS flips one random bit per run).
    std::vector<size_t> bytes;
    for (size_t byte = 0; byte < size; ++byte) {
      if (byte < 96 || byte + 48 >= size || (byte - 96) % std::max<size_t>(1, (size - 144) / 64) == 0) {
        bytes.push_back(byte);
      }
    }
    for (size_t byte : bytes) {
      SCOPED_TRACE(::testing::Message() << name << " byte " << byte);
      expectRefused(
          [&, name = name](auto& contents) { contents[name][byte] ^= static_cast<uint8_t>(1u << (byte % 8)); });
      if (HasFailure()) return;
    }
  }
}

TEST_P(CompilationCaching, TruncatedOrExtendedFilesAreRefused) {
  ASSERT_EQ(compileAndRun(token_), CacheUse::kSaved);
  for (const auto& [name, path] : cacheFiles(token_)) {
    SCOPED_TRACE(name);
    expectRefused([&, name = name](auto& contents) { contents[name].pop_back(); });
    expectRefused([&, name = name](auto& contents) { contents[name].resize(contents[name].size() / 2); });
    expectRefused([&, name = name](auto& contents) { contents[name].clear(); });
    expectRefused([&, name = name](auto& contents) { contents[name].push_back(0); });
  }
}

TEST_P(CompilationCaching, SwappedFilesAreRefused) {
  ASSERT_EQ(compileAndRun(token_), CacheUse::kSaved);
  const std::map<std::string, fs::path> files = cacheFiles(token_);
  ASSERT_GE(files.size(), 2u);
  for (auto first = files.begin(); first != files.end(); ++first) {
    for (auto second = std::next(first); second != files.end(); ++second) {
      SCOPED_TRACE(first->first + " <-> " + second->first);
      expectRefused([&](auto& contents) { std::swap(contents[first->first], contents[second->first]); });
    }
  }
}

TEST_P(CompilationCaching, AnotherModelsOrTokensFilesAreRefused) {
  // Another model with another token, its files copied over this model's.
  Token other = token_;
  other[31] = 0x77;
  Model* otherModel = nullptr;
  std::unique_ptr<Model> different = std::make_unique<Model>();
  {
    // Quant8, so that every device of the suite runs it.
    const uint32_t a = different->addOperand(ANEURALNETWORKS_TENSOR_QUANT8_ASYMM, {1, 2, 2, 8}, 0.5f, 10);
    const uint32_t b = different->addOperand(ANEURALNETWORKS_TENSOR_QUANT8_ASYMM, {1, 2, 2, 8}, 0.5f, 10);
    const uint32_t act = different->addInt32Constant(0);
    const uint32_t out = different->addOperand(ANEURALNETWORKS_TENSOR_QUANT8_ASYMM, {1, 2, 2, 8}, 0.5f, 10);
    ASSERT_EQ(different->addOperation(ANEURALNETWORKS_SUB, {a, b, act}, {out}), kOk);
    ASSERT_EQ(different->identify({a, b}, {out}), kOk);
    ASSERT_EQ(different->finish(), kOk);
    otherModel = different.get();
  }
  ASSERT_EQ(compileAndRun(other, otherModel), CacheUse::kSaved);
  ASSERT_EQ(compileAndRun(token_), CacheUse::kSaved);
  const std::map<std::string, fs::path> ours = cacheFiles(token_);
  const std::map<std::string, fs::path> theirs = cacheFiles(other);
  ASSERT_EQ(ours.size(), theirs.size());
  expectRefused([&](auto& contents) {
    auto from = theirs.begin();
    for (auto& [name, bytes] : contents) bytes = readFile((from++)->second);
  });
  // This model's own files under another token's names: made for another token.
  for (auto ourFile = ours.begin(), theirFile = theirs.begin(); ourFile != ours.end(); ++ourFile, ++theirFile) {
    fs::copy_file(ourFile->second, theirFile->second, fs::copy_options::overwrite_existing);
  }
  EXPECT_EQ(compileAndRun(other, otherModel), CacheUse::kSaved);
  // The same token for another model: the runtime's token tells them apart.
  EXPECT_EQ(compileAndRun(token_, otherModel), CacheUse::kSaved);
  EXPECT_EQ(compileAndRun(token_), CacheUse::kSaved);
  EXPECT_EQ(compileAndRun(token_), CacheUse::kRestored);
}

TEST_P(CompilationCaching, AnotherPreferenceIsAnotherCache) {
  ASSERT_EQ(compileAndRun(token_), CacheUse::kSaved);
  EXPECT_EQ(compileAndRun(token_, nullptr, "", ANEURALNETWORKS_PREFER_SUSTAINED_SPEED), CacheUse::kSaved);
  EXPECT_EQ(compileAndRun(token_, nullptr, "", ANEURALNETWORKS_PREFER_SUSTAINED_SPEED), CacheUse::kRestored);
}

std::string paramName(const ::testing::TestParamInfo<Param>& info) {
  std::string name = std::string(info.param.device) + "_" + info.param.model().name;
  std::replace(name.begin(), name.end(), '-', '_');
  return name;
}

// Both devices cache through the runtime (getNumberOfCacheFilesNeeded / prepareModelFromCache);
// the accelerator on the approx backend (CMakeLists.txt).
INSTANTIATE_TEST_SUITE_P(Devices, CompilationCaching,
                         ::testing::Values(Param{"weft-cpu", floatModel}, Param{"weft-cpu", quantModel},
                                           Param{"weft-accel", quantModel}, Param{"weft-accel", convAddModel}),
                         paramName);

}  // namespace
}  // namespace weft::test
