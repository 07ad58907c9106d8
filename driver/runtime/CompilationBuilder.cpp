#include "CompilationBuilder.h"

#include <algorithm>
#include <chrono>
#include <cstring>

#include <fmt/format.h>

namespace weft::runtime {

CompilationBuilder::CompilationBuilder(std::shared_ptr<const FinishedModel> model, std::vector<const Device*> devices,
                                       bool explicitDeviceList)
    : model_(std::move(model)), devices_(std::move(devices)), explicitDeviceList_(explicitDeviceList) {}

nn::Status CompilationBuilder::checkModifiable() const {
  if (finished_) return NN_ERROR(BAD_STATE) << "the compilation is finished and can no longer be modified";
  return {};
}

nn::Status CompilationBuilder::checkUsable(const char* what) const {
  if (!finished_) return NN_ERROR(BAD_STATE) << what << " needs a finished compilation";
  if (!plan_.has_value()) return NN_ERROR(BAD_STATE) << what << " needs a compilation that finished successfully";
  return {};
}

nn::Status CompilationBuilder::setPreference(int32_t preference) {
  NN_TRY(checkModifiable());
  if (preference < ANEURALNETWORKS_PREFER_LOW_POWER || preference > ANEURALNETWORKS_PREFER_SUSTAINED_SPEED) {
    return NN_ERROR(BAD_DATA) << "invalid preference " << preference;
  }
  preference_ = static_cast<nn::ExecutionPreference>(preference);
  return {};
}

nn::Status CompilationBuilder::setPriority(int32_t priority) {
  NN_TRY(checkModifiable());
  if (priority != ANEURALNETWORKS_PRIORITY_LOW && priority != ANEURALNETWORKS_PRIORITY_MEDIUM &&
      priority != ANEURALNETWORKS_PRIORITY_HIGH) {
    return NN_ERROR(BAD_DATA) << "invalid priority " << priority << " (accepted: 90, 100, 110)";
  }
  priority_ = static_cast<nn::Priority>(priority);
  return {};
}

nn::Status CompilationBuilder::setTimeout(uint64_t durationNs) {
  NN_TRY(checkModifiable());  // first, as in Android's CompilationBuilder
  if (!isExplicitSingleDevice()) {
    return NN_ERROR(BAD_DATA) << "a timeout needs a compilation created by createForDevices with one device";
  }
  if (durationNs == 0) {
    timeoutNs_.reset();
  } else {
    timeoutNs_ = durationNs;
  }
  return {};
}

nn::Status CompilationBuilder::setCaching(const char* cacheDir, const uint8_t* token) {
  NN_TRY(checkModifiable());
  cacheDir_ = cacheDir;
  std::memcpy(cacheToken_.data(), token, cacheToken_.size());
  return {};
}

nn::Status CompilationBuilder::finish() {
  NN_TRY(checkModifiable());
  finished_ = true;
  PlanOptions options;
  options.explicitDeviceList = explicitDeviceList_;
  options.preference = preference_;
  options.priority = priority_;
  if (timeoutNs_.has_value()) {
    options.deadline = std::chrono::steady_clock::now() + std::chrono::nanoseconds(*timeoutNs_);
  }
  if (cacheDir_.has_value()) {
    std::string key;
    for (uint8_t byte : cacheToken_) key += fmt::format("{:02x}", byte);
    options.cache = hal::CacheRequest{*cacheDir_, key, {}, {}, {}};
    std::copy(cacheToken_.begin(), cacheToken_.end(), options.cache->token.begin());
  }
  nn::Result<ExecutionPlan> plan = ExecutionPlan::create(model_, devices_, options);
  if (!plan.ok()) return plan.error();
  plan_ = std::move(plan).value();
  return {};
}

}  // namespace weft::runtime
