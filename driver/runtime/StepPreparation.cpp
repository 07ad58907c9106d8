#include "StepPreparation.h"

#include <fcntl.h>

#include <cstring>
#include <string>
#include <vector>

#include "Errors.h"
#include "weft/nn/ModelSerialization.h"
#include "weft/nn/Sha256.h"

namespace weft::runtime {
namespace {

// The token the device sees: the client's token alone cannot tell two models (or two
// preferences) apart, so the model's bytes and the settings go into it too.
std::optional<hal::CacheToken> deviceToken(const hal::CacheToken& clientToken, const nn::Model& model,
                                           const StepSettings& settings) {
  nn::Result<nn::SerializedModel> serialized = nn::serializeModel(model);
  if (!serialized.ok()) return std::nullopt;
  const char kPurpose[] = "weft compilation cache token 1";
  const int32_t preference = static_cast<int32_t>(settings.preference);
  const int32_t priority = static_cast<int32_t>(settings.priority);
  nn::Sha256 hash;
  hash.update(kPurpose, sizeof(kPurpose));
  hash.update(clientToken.data(), clientToken.size());
  hash.update(serialized->structure);
  hash.update(serialized->constants);
  hash.update(&preference, sizeof(preference));
  hash.update(&priority, sizeof(priority));
  return hash.finish();
}

std::vector<std::string> cachePaths(const hal::CacheRequest& cache, const std::string& device, const char* kind,
                                    uint32_t count) {
  std::vector<std::string> paths;
  for (uint32_t i = 0; i < count; ++i)
    paths.push_back(cache.dir + "/" + cache.key + "-" + device + "-" + kind + std::to_string(i));
  return paths;
}

// Opens every path with `flags`; nullopt when one cannot be opened.
std::optional<std::vector<hal::SharedCacheFile>> openAll(const std::vector<std::string>& paths, int flags) {
  std::vector<hal::SharedCacheFile> files;
  for (const std::string& path : paths) {
    const int fd = open(path.c_str(), flags | O_CLOEXEC, 0600);
    if (fd < 0) return std::nullopt;
    files.push_back(std::make_shared<const hal::CacheFile>(fd));
  }
  return files;
}

}  // namespace

nn::Result<PreparedStep> prepareStep(const Device& device, const nn::Model& model, const StepSettings& settings) {
  const hal::IDevice& hal = *device.hal();
  auto compile = [&](const std::optional<hal::CacheRequest>& cache, CacheUse use) -> nn::Result<PreparedStep> {
    nn::Result<hal::SharedPreparedModel> prepared =
        hal.prepareModel(model, settings.preference, settings.priority, settings.deadline, cache);
    if (!prepared.ok()) return prepared.error();
    return PreparedStep{std::move(prepared).value(), use};
  };
  if (!settings.cache.has_value()) return compile(std::nullopt, CacheUse::kNotRequested);
  const hal::NumberOfCacheFiles needed = hal.getNumberOfCacheFilesNeeded();
  if (needed.modelCache == 0 && needed.dataCache == 0) return compile(settings.cache, CacheUse::kDeviceOwn);

  hal::CacheRequest cache = *settings.cache;
  const std::optional<hal::CacheToken> token = deviceToken(settings.cache->token, model, settings);
  if (!token.has_value()) return compile(std::nullopt, CacheUse::kNotSaved);
  cache.token = *token;
  const std::vector<std::string> modelPaths = cachePaths(cache, device.name(), "model", needed.modelCache);
  const std::vector<std::string> dataPaths = cachePaths(cache, device.name(), "data", needed.dataCache);

  const auto modelFiles = openAll(modelPaths, O_RDONLY);
  const auto dataFiles = openAll(dataPaths, O_RDONLY);
  if (modelFiles.has_value() && dataFiles.has_value()) {
    nn::Result<hal::SharedPreparedModel> restored =
        hal.prepareModelFromCache(settings.deadline, *modelFiles, *dataFiles, cache.token);
    if (restored.ok()) return PreparedStep{std::move(restored).value(), CacheUse::kRestored};
    logWarning("the compilation cache of " + device.name() + " in " + cache.dir + " is not used (" +
               restored.error().message + "); compiling afresh");
  }
  const auto writableModel = openAll(modelPaths, O_RDWR | O_CREAT);
  const auto writableData = openAll(dataPaths, O_RDWR | O_CREAT);
  if (!writableModel.has_value() || !writableData.has_value()) {
    return compile(std::nullopt, CacheUse::kNotSaved);  // a directory missing or read-only
  }
  cache.modelCache = *writableModel;
  cache.dataCache = *writableData;
  return compile(cache, CacheUse::kSaved);
}

}  // namespace weft::runtime
