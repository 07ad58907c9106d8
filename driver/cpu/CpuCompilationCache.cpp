#include "CpuCompilationCache.h"

#include <cstring>

#include "weft/hal/CacheFiles.h"
#include "weft/nn/ModelSerialization.h"
#include "weft/nn/Sha256.h"

namespace weft::cpu {
namespace {

// Changes whenever the layout of the payloads or of the serialized model changes.
constexpr hal::CacheFileFormat kFormat{{'W', 'E', 'F', 'T', 'C', 'P', 'U', '\n'}, 1};
enum class FileKind : uint32_t { kModel = 1, kData = 2 };
// Preference and priority, then the data payload's digest, open the model payload.
constexpr size_t kModelPayloadPrefix = 4 + 4 + sizeof(nn::Sha256Digest);

uint64_t readLittleEndian(const uint8_t* p, int size) {
  uint64_t v = 0;
  for (int i = 0; i < size; ++i) v |= uint64_t{p[i]} << (8 * i);
  return v;
}

std::vector<uint8_t> makeFile(FileKind kind, const hal::CacheToken& token, const std::vector<uint8_t>& payload) {
  return hal::frameCacheFile(kFormat, static_cast<uint32_t>(kind), token, payload);
}

nn::Result<std::vector<uint8_t>> payloadOf(const std::vector<uint8_t>& file, FileKind kind,
                                           const hal::CacheToken& token) {
  return hal::unframeCacheFile(kFormat, static_cast<uint32_t>(kind), token, file,
                               kind == FileKind::kModel ? "the model cache" : "the data cache");
}

}  // namespace

nn::Status saveToCache(const CachedModel& cached, const hal::CacheRequest& cache) {
  if (cache.modelCache.size() != kCpuCacheFiles.modelCache || cache.dataCache.size() != kCpuCacheFiles.dataCache) {
    return NN_ERROR(BAD_DATA) << "weft-cpu caches into 1 model file and 1 data file, got " << cache.modelCache.size()
                              << " and " << cache.dataCache.size();
  }
  nn::Result<nn::SerializedModel> serialized = nn::serializeModel(cached.model);
  if (!serialized.ok()) return serialized.error();
  const nn::Sha256Digest dataDigest = nn::sha256(serialized->constants);
  hal::PayloadWriter modelPayload;
  modelPayload.u32(static_cast<uint32_t>(cached.preference)).u32(static_cast<uint32_t>(cached.priority));
  modelPayload.bytes(dataDigest.data(), dataDigest.size());
  modelPayload.bytes(serialized->structure.data(), serialized->structure.size());
  // Data first: a model file is only ever next to the data file it names.
  NN_TRY(hal::writeCacheFile(*cache.dataCache[0], makeFile(FileKind::kData, cache.token, serialized->constants)));
  return hal::writeCacheFile(*cache.modelCache[0], makeFile(FileKind::kModel, cache.token, modelPayload.data()));
}

nn::Result<CachedModel> loadFromCache(const std::vector<hal::SharedCacheFile>& modelCache,
                                      const std::vector<hal::SharedCacheFile>& dataCache,
                                      const hal::CacheToken& token) {
  NN_RET_CHECK(modelCache.size() == kCpuCacheFiles.modelCache && dataCache.size() == kCpuCacheFiles.dataCache)
      << "weft-cpu caches into 1 model file and 1 data file, got " << modelCache.size() << " and " << dataCache.size();
  nn::Result<std::vector<uint8_t>> modelFile = hal::readCacheFile(*modelCache[0]);
  if (!modelFile.ok()) return modelFile.error();
  nn::Result<std::vector<uint8_t>> dataFile = hal::readCacheFile(*dataCache[0]);
  if (!dataFile.ok()) return dataFile.error();
  nn::Result<std::vector<uint8_t>> modelPayload = payloadOf(*modelFile, FileKind::kModel, token);
  if (!modelPayload.ok()) return modelPayload.error();
  nn::Result<std::vector<uint8_t>> dataPayload = payloadOf(*dataFile, FileKind::kData, token);
  if (!dataPayload.ok()) return dataPayload.error();
  NN_RET_CHECK_GE(modelPayload->size(), kModelPayloadPrefix) << "the model cache is too short";
  const nn::Sha256Digest dataDigest = nn::sha256(*dataPayload);
  NN_RET_CHECK(std::memcmp(modelPayload->data() + 8, dataDigest.data(), dataDigest.size()) == 0)
      << "the data cache is not the one the model cache was saved with";
  CachedModel cached;
  const auto preference = static_cast<int32_t>(readLittleEndian(modelPayload->data(), 4));
  const auto priority = static_cast<int32_t>(readLittleEndian(modelPayload->data() + 4, 4));
  NN_RET_CHECK(preference >= 0 && preference <= 2) << "the model cache names no preference";
  NN_RET_CHECK(priority == 90 || priority == 100 || priority == 110) << "the model cache names no priority";
  cached.preference = static_cast<nn::ExecutionPreference>(preference);
  cached.priority = static_cast<nn::Priority>(priority);
  const std::vector<uint8_t> structure(modelPayload->begin() + kModelPayloadPrefix, modelPayload->end());
  nn::Result<nn::Model> model = nn::deserializeModel(structure, *dataPayload);
  if (!model.ok()) return model.error();
  cached.model = std::move(model).value();
  return cached;
}

}  // namespace weft::cpu
