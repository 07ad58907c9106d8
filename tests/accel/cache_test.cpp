// Compilation caching on the accelerator (CompilationCache.h): a second compilation replays the
// tilings the first chose and runs bit-exactly; a cache that is missing, malformed, tampered
// with, forged with indices that name no candidate, or made for another model or configuration
// is not used, the model is compiled afresh and the file rewritten; a cache that cannot be
// written does not fail the compilation.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "AccelTestUtil.h"
#include "CompilationCache.h"
#include "PreparedModel.h"
#include "weft/hw/config.h"
#include "weft/sim/backend.h"
#include "weft/common/files.h"

namespace weft::accel::test {
namespace {

namespace fs = std::filesystem;

class CompilationCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) / ("weft_cache_" + std::to_string(::getpid()) + "_" +
                                             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    std::mt19937 rng(7);
    ConvCase c;
    c.height = c.width = 20;
    c.inChannels = 24;
    c.outChannels = 40;
    model_ = makeConvModel(c, rng);
  }
  void TearDown() override { fs::remove_all(dir_); }

  hal::CacheRequest request(const std::string& key = "00ff-0") const { return {dir_.string(), key, {}, {}, {}}; }
  std::string file(const std::string& key = "00ff-0") const { return cacheFilePath(request(key)); }

  // Prepares `m` on `device` with the cache, runs it, checks it against the CPU reference, and
  // says whether its tilings came from the cache.
  bool compileAndCheck(const hal::IDevice& device, const OpModel& m, const std::string& key = "00ff-0") {
    auto prepared = device.prepareModel(m.model, nn::ExecutionPreference::FAST_SINGLE_ANSWER, nn::Priority::MEDIUM,
                                        {}, request(key));
    EXPECT_TRUE(prepared.ok()) << prepared.error().message;
    if (!prepared.ok()) return false;
    auto ran = runOnPrepared(*prepared.value(), m);
    auto reference = runOnCpu(m);
    EXPECT_TRUE(ran.ok() && reference.ok());
    if (ran.ok() && reference.ok()) {
      EXPECT_EQ(ran.value().outputs[0], reference.value().outputs[0]);
    }
    const auto& compiled = static_cast<const PreparedModel&>(*prepared.value()).compiled();
    lastTilings_.clear();
    for (const auto& op : compiled.operations) lastTilings_.push_back(op.tiling);
    return compiled.tilingsFromCache;
  }

  std::string read(const std::string& path) const { return weft::common::readFile(path).value_or(""); }
  void write(const std::string& path, const std::string& text) const { std::ofstream(path) << text; }

  fs::path dir_;
  OpModel model_;
  std::vector<std::string> lastTilings_;
};

TEST_F(CompilationCacheTest, TheSecondCompilationReplaysTheFirstsTilings) {
  auto device = approxDevice("weft8");
  EXPECT_FALSE(compileAndCheck(*device, model_));
  ASSERT_TRUE(fs::exists(file()));
  const auto searched = lastTilings_;
  std::string why;
  const auto cached = readTilingCache(file(), &why);
  ASSERT_TRUE(cached.has_value()) << why;
  EXPECT_EQ(cached->tilings.size(), 1u);
  EXPECT_TRUE(compileAndCheck(*device, model_));
  EXPECT_EQ(lastTilings_, searched);
}

TEST_F(CompilationCacheTest, MalformedOrTamperedFilesAreRejectedAndRewritten) {
  auto device = approxDevice("weft8");
  ASSERT_FALSE(compileAndCheck(*device, model_));
  const std::string good = read(file());
  std::string tampered = good;
  const size_t at = tampered.find("\"tilings\":[") + std::string("\"tilings\":[").size();
  tampered[at] = tampered[at] == '1' ? '2' : '1';  // another index, the old checksum
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"empty", ""},
      {"not JSON", "weft"},
      {"truncated", good.substr(0, good.size() / 2)},
      {"a JSON array", "[1, 2]"},
      {"another format", R"({"format": "other", "version": 1})"},
      {"tampered", tampered},
  };
  for (const auto& [what, text] : bad) {
    SCOPED_TRACE(what);
    write(file(), text);
    std::string why;
    EXPECT_FALSE(readTilingCache(file(), &why).has_value());
    EXPECT_FALSE(why.empty());
    EXPECT_FALSE(compileAndCheck(*device, model_));
    EXPECT_TRUE(readTilingCache(file(), &why).has_value()) << "not rewritten: " << why;
    EXPECT_TRUE(compileAndCheck(*device, model_));
  }
}

TEST_F(CompilationCacheTest, AForgedIndexThatNamesNoCandidateIsNotUsed) {
  auto device = approxDevice("weft8");
  ASSERT_FALSE(compileAndCheck(*device, model_));
  std::string why;
  auto forged = readTilingCache(file(), &why);
  ASSERT_TRUE(forged.has_value()) << why;
  forged->tilings[0] = 100000;  // a valid checksum, an index no ranking reaches
  ASSERT_TRUE(writeTilingCache(file(), *forged));
  EXPECT_FALSE(compileAndCheck(*device, model_));
  EXPECT_LT(readTilingCache(file(), &why)->tilings[0], 100000u);
}

TEST_F(CompilationCacheTest, ACacheOfAnotherModelOrConfigurationIsNotUsed) {
  auto weft8 = approxDevice("weft8");
  ASSERT_FALSE(compileAndCheck(*weft8, model_));
  std::mt19937 rng(8);
  ConvCase other;
  other.height = other.width = 12;
  other.inChannels = 24;
  other.outChannels = 40;
  EXPECT_FALSE(compileAndCheck(*weft8, makeConvModel(other, rng)));  // same key, other layers
  EXPECT_TRUE(compileAndCheck(*weft8, makeConvModel(other, rng)));

  ASSERT_FALSE(compileAndCheck(*weft8, model_, "00ff-1"));
  auto weft16 = deviceOn(sim::createBackend(sim::BackendKind::kApprox, hw::HwConfig::load("weft16")));
  EXPECT_FALSE(compileAndCheck(*weft16, model_, "00ff-1"));
  EXPECT_TRUE(compileAndCheck(*weft16, model_, "00ff-1"));
}

TEST_F(CompilationCacheTest, ACacheThatCannotBeWrittenDoesNotFailTheCompilation) {
  auto device = approxDevice("weft8");
  const hal::CacheRequest nowhere{(dir_ / "missing" / "deeper").string(), "00ff-0", {}, {}, {}};
  auto prepared = device->prepareModel(model_.model, nn::ExecutionPreference::FAST_SINGLE_ANSWER,
                                       nn::Priority::MEDIUM, {}, nowhere);
  ASSERT_TRUE(prepared.ok()) << prepared.error().message;
  EXPECT_FALSE(fs::exists(cacheFilePath(nowhere)));
  auto ran = runOnPrepared(*prepared.value(), model_);
  ASSERT_TRUE(ran.ok());
  EXPECT_EQ(ran.value().outputs[0], runOnCpu(model_).value().outputs[0]);
}

}  // namespace
}  // namespace weft::accel::test
