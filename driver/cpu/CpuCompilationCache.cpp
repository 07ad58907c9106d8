#include "CpuCompilationCache.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "weft/nn/ModelSerialization.h"
#include "weft/nn/Sha256.h"

namespace weft::cpu {
namespace {

constexpr char kMagic[8] = {'W', 'E', 'F', 'T', 'C', 'P', 'U', '\n'};
// Changes whenever the layout of the files or of the serialized model changes.
constexpr uint32_t kFormatVersion = 1;
enum class FileKind : uint32_t { kModel = 1, kData = 2 };
constexpr size_t kHeaderSize = sizeof(kMagic) + 4 + 4 + sizeof(hal::CacheToken) + 8;
// Preference and priority, then the data payload's digest, open the model payload.
constexpr size_t kModelPayloadPrefix = 4 + 4 + sizeof(nn::Sha256Digest);

void appendU32(std::vector<uint8_t>& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
}
void appendU64(std::vector<uint8_t>& out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
}
uint64_t readLittleEndian(const uint8_t* p, int size) {
  uint64_t v = 0;
  for (int i = 0; i < size; ++i) v |= uint64_t{p[i]} << (8 * i);
  return v;
}

std::vector<uint8_t> makeFile(FileKind kind, const hal::CacheToken& token, const std::vector<uint8_t>& payload) {
  std::vector<uint8_t> file(kMagic, kMagic + sizeof(kMagic));
  appendU32(file, kFormatVersion);
  appendU32(file, static_cast<uint32_t>(kind));
  file.insert(file.end(), token.begin(), token.end());
  appendU64(file, payload.size());
  file.insert(file.end(), payload.begin(), payload.end());
  const nn::Sha256Digest digest = nn::sha256(file);
  file.insert(file.end(), digest.begin(), digest.end());
  return file;
}

// The payload of a file that is exactly what makeFile(kind, token, payload) gives.
nn::Result<std::vector<uint8_t>> payloadOf(const std::vector<uint8_t>& file, FileKind kind,
                                           const hal::CacheToken& token) {
  const char* what = kind == FileKind::kModel ? "the model cache" : "the data cache";
  NN_RET_CHECK_GE(file.size(), kHeaderSize + sizeof(nn::Sha256Digest)) << what << " is too short";
  const size_t covered = file.size() - sizeof(nn::Sha256Digest);
  const nn::Sha256Digest digest = nn::sha256(file.data(), covered);
  NN_RET_CHECK(std::memcmp(digest.data(), file.data() + covered, digest.size()) == 0)
      << what << " fails its integrity check";
  NN_RET_CHECK(std::memcmp(file.data(), kMagic, sizeof(kMagic)) == 0) << what << " is not a weft-cpu cache";
  const uint8_t* p = file.data() + sizeof(kMagic);
  NN_RET_CHECK_EQ(readLittleEndian(p, 4), kFormatVersion) << what << " has another format version";
  NN_RET_CHECK_EQ(readLittleEndian(p + 4, 4), static_cast<uint32_t>(kind)) << what << " holds the other kind of file";
  NN_RET_CHECK(std::memcmp(p + 8, token.data(), token.size()) == 0) << what << " was made for another model";
  const uint64_t size = readLittleEndian(p + 8 + token.size(), 8);
  NN_RET_CHECK_EQ(size, covered - kHeaderSize) << what << " has the wrong length";
  return std::vector<uint8_t>(file.begin() + kHeaderSize, file.begin() + static_cast<std::ptrdiff_t>(covered));
}

nn::Status writeWhole(const hal::CacheFile& file, const std::vector<uint8_t>& bytes) {
  if (ftruncate(file.fd(), 0) != 0) return NN_ERROR(OP_FAILED) << "cannot truncate a cache file: " << strerror(errno);
  size_t written = 0;
  while (written < bytes.size()) {
    const ssize_t n = pwrite(file.fd(), bytes.data() + written, bytes.size() - written, static_cast<off_t>(written));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return NN_ERROR(OP_FAILED) << "cannot write a cache file: " << strerror(errno);
    written += static_cast<size_t>(n);
  }
  return {};
}

// The whole file, read once (what is checked is what is used).
nn::Result<std::vector<uint8_t>> readWhole(const hal::CacheFile& file) {
  struct stat info {};
  if (fstat(file.fd(), &info) != 0) return NN_ERROR(BAD_DATA) << "cannot stat a cache file: " << strerror(errno);
  std::vector<uint8_t> bytes;
  bytes.reserve(static_cast<size_t>(info.st_size));
  uint8_t chunk[1 << 16];
  for (off_t offset = 0;;) {
    const ssize_t n = pread(file.fd(), chunk, sizeof(chunk), offset);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return NN_ERROR(BAD_DATA) << "cannot read a cache file: " << strerror(errno);
    if (n == 0) break;
    bytes.insert(bytes.end(), chunk, chunk + n);
    offset += n;
  }
  return bytes;
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
  std::vector<uint8_t> modelPayload;
  appendU32(modelPayload, static_cast<uint32_t>(cached.preference));
  appendU32(modelPayload, static_cast<uint32_t>(cached.priority));
  modelPayload.insert(modelPayload.end(), dataDigest.begin(), dataDigest.end());
  modelPayload.insert(modelPayload.end(), serialized->structure.begin(), serialized->structure.end());
  // Data first: a model file is only ever next to the data file it names.
  NN_TRY(writeWhole(*cache.dataCache[0], makeFile(FileKind::kData, cache.token, serialized->constants)));
  return writeWhole(*cache.modelCache[0], makeFile(FileKind::kModel, cache.token, modelPayload));
}

nn::Result<CachedModel> loadFromCache(const std::vector<hal::SharedCacheFile>& modelCache,
                                      const std::vector<hal::SharedCacheFile>& dataCache,
                                      const hal::CacheToken& token) {
  NN_RET_CHECK(modelCache.size() == kCpuCacheFiles.modelCache && dataCache.size() == kCpuCacheFiles.dataCache)
      << "weft-cpu caches into 1 model file and 1 data file, got " << modelCache.size() << " and " << dataCache.size();
  nn::Result<std::vector<uint8_t>> modelFile = readWhole(*modelCache[0]);
  if (!modelFile.ok()) return modelFile.error();
  nn::Result<std::vector<uint8_t>> dataFile = readWhole(*dataCache[0]);
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
