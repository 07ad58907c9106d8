// Compilation caching (ANeuralNetworksCompilation_setCaching) on the accelerator.
//
// What is kept is what costs time to find, not what is cheap to redo: the tiling chosen for
// each layer, as an index into rankTilings()'s candidates (the search schedules every
// candidate; replaying a choice schedules one). Weights, memory plan and program are built from
// the model at hand every time. So whatever a cache file says, only a tiling the compiler itself
// would consider can come out of it: a stale or forged file can cost speed, never correctness.
//
// A file (<dir>/weft-accel-<key>.json) holds the format and its version, the fingerprint of
// the layers and the configuration it was made for, the indices, and a checksum over the rest.
// A missing, unreadable, malformed or tampered file, or one made for other layers or another
// configuration, is rejected and the model is compiled afresh; the file is then rewritten.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "weft/hal/IDevice.h"

namespace weft::accel {

struct TilingChoices {
  std::string fingerprint;        // of the layers' geometry and the configuration
  std::vector<uint32_t> tilings;  // per layer in program order: an index into rankTilings()
};

// A 64-bit FNV-1a hash, printed as 16 hex digits: a fingerprint and a checksum, not a seal.
class Fnv64 {
 public:
  Fnv64& add(std::string_view bytes);
  Fnv64& add(uint64_t value);
  std::string hex() const;

 private:
  uint64_t h_ = 0xcbf29ce484222325ull;  // common::kFnv1aOffsetBasis (the header stays free of common/)
};

std::string cacheFilePath(const hal::CacheRequest& request);

// The choices in `path`, or nullopt with the reason in *why when the file cannot be trusted.
std::optional<TilingChoices> readTilingCache(const std::string& path, std::string* why);

// Writes atomically (a temporary file renamed over the old one). False, changing nothing, when
// it cannot: a cache that cannot be written costs the next compilation time, nothing else.
bool writeTilingCache(const std::string& path, const TilingChoices& choices);

}  // namespace weft::accel
