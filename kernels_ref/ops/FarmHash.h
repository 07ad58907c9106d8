// FarmHash's 64-bit fingerprint (Google's farmhash, farmhashna::Hash64, which Fingerprint64 is):
// a stable hash of a byte string, the same on every platform and release. LSH_PROJECTION hashes
// with it, and its expected outputs depend on these exact bits.
#pragma once

#include <cstddef>
#include <cstdint>

namespace weft::nn::farmhash {

uint64_t fingerprint64(const uint8_t* data, size_t length);

}  // namespace weft::nn::farmhash
