#include "OpModelBuilder.h"

#include <gtest/gtest.h>

namespace weft::test {

namespace {

constexpr size_t kGuard = 64;
constexpr uint8_t kGuardByte = 0xA5;

class Pool final : public nn::Memory {
 public:
  explicit Pool(size_t size) : bytes_(size, kGuardByte) {}
  uint8_t* data() override { return bytes_.data(); }
  size_t size() const override { return bytes_.size(); }

 private:
  std::vector<uint8_t> bytes_;
};

}  // namespace

OpModelBuilder::Run OpModelBuilder::run(const nn::CpuExecutionOptions& options) const {
  nn::Request request;
  for (size_t i = 0; i < inputBytes_.size(); ++i) {
    auto pool = std::make_shared<Pool>(std::max<size_t>(inputBytes_[i].size(), 1));
    if (!inputBytes_[i].empty()) std::memcpy(pool->data(), inputBytes_[i].data(), inputBytes_[i].size());
    nn::RequestArgument arg;
    arg.lifetime = nn::RequestArgument::LifeTime::POOL;
    arg.location.poolIndex = static_cast<uint32_t>(request.pools.size());
    arg.location.length = static_cast<uint32_t>(inputBytes_[i].size());
    arg.dimensions = inputDims_[i];
    request.pools.push_back(pool);
    request.inputs.push_back(arg);
  }
  // Each output sits between two guard regions in its own pool.
  std::vector<std::shared_ptr<Pool>> outputPools;
  for (size_t capacity : outputCapacity_) {
    auto pool = std::make_shared<Pool>(kGuard + capacity + kGuard);
    nn::RequestArgument arg;
    arg.lifetime = nn::RequestArgument::LifeTime::POOL;
    arg.location.poolIndex = static_cast<uint32_t>(request.pools.size());
    arg.location.offset = kGuard;
    arg.location.length = static_cast<uint32_t>(capacity);
    request.pools.push_back(pool);
    request.outputs.push_back(arg);
    outputPools.push_back(pool);
  }
  Run run;
  run.result = nn::executeOnCpu(model_, request, options);
  for (size_t i = 0; i < outputPools.size(); ++i) {
    const uint8_t* p = outputPools[i]->data();
    const size_t capacity = outputCapacity_[i];
    run.outputs.emplace_back(p + kGuard, p + kGuard + capacity);
    for (size_t k = 0; k < kGuard; ++k) {
      if (p[k] != kGuardByte || p[kGuard + capacity + k] != kGuardByte) run.guardsIntact = false;
    }
  }
  return run;
}

void expectBadData(const nn::Status& status, const std::string& mention) {
  ASSERT_FALSE(status.ok()) << "expected BAD_DATA" << (mention.empty() ? "" : " mentioning \"" + mention + "\"");
  EXPECT_EQ(status.error().code, nn::ErrorStatus::BAD_DATA) << status.error().message;
  if (!mention.empty()) {
    EXPECT_NE(status.error().message.find(mention), std::string::npos) << status.error().message;
  }
}

void expectExecutionBadData(const OpModelBuilder& m, const std::string& mention) {
  const nn::Status validation = m.validate();
  ASSERT_TRUE(validation.ok()) << validation.error().message;
  const OpModelBuilder::Run run = m.run();
  ASSERT_FALSE(run.result.ok()) << "expected the execution to fail"
                                << (mention.empty() ? "" : " on \"" + mention + "\"");
  EXPECT_EQ(run.result.error().code, nn::ErrorStatus::BAD_DATA) << run.result.error().message;
  if (!mention.empty()) {
    EXPECT_NE(run.result.error().message.find(mention), std::string::npos) << run.result.error().message;
  }
  EXPECT_TRUE(run.guardsIntact);
}

}  // namespace weft::test
