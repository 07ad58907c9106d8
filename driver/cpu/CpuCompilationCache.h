// The CPU device's compilation cache. Its prepared model is the model itself, so the cache is the
// model serialized (weft/nn/ModelSerialization.h): the structure in the one model-cache file, the
// constants in the one data-cache file. Each file has the framing every device shares
// (weft/hal/CacheFiles.h: magic "WEFTCPU\n", format version, kind, token, payload, SHA-256)
// and the model payload starts with the SHA-256 of the data payload, which binds the two files.
// A file is trusted only when all of that holds: a flipped bit, a truncated or extended file, the
// two files swapped, or files of another model (another token) are refused.
#pragma once

#include <vector>

#include "weft/hal/IDevice.h"

namespace weft::cpu {

inline constexpr hal::NumberOfCacheFiles kCpuCacheFiles{1, 1};

// What a cache holds: the model and the settings it was prepared with.
struct CachedModel {
  nn::Model model;
  nn::ExecutionPreference preference = nn::ExecutionPreference::FAST_SINGLE_ANSWER;
  nn::Priority priority = nn::Priority::MEDIUM;
};

// Writes the cache files of `cache` (one of each kind); an error says why nothing usable was
// written (the compilation does not fail for it).
nn::Status saveToCache(const CachedModel& cached, const hal::CacheRequest& cache);

// BAD_DATA, saying what is wrong, unless the files hold a cache for `token` exactly as saveToCache
// wrote it.
nn::Result<CachedModel> loadFromCache(const std::vector<hal::SharedCacheFile>& modelCache,
                                      const std::vector<hal::SharedCacheFile>& dataCache, const hal::CacheToken& token);

}  // namespace weft::cpu
