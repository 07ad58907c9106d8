// The compilation cache files devices keep through the runtime (IDevice::prepareModel with a
// CacheRequest, prepareModelFromCache): one framing and one integrity check for every device, so
// that what VTS's CompilationCachingSecurityTest demands holds for each of them the same way.
//
// A file is
//   magic (8 bytes, the device's format) | format version | kind | token | payload size |
//   payload | SHA-256 of everything before it
// (integers little-endian, 4 bytes, the size 8). It is trusted only when all of that holds: a
// flipped bit, a truncated or extended file, a file of the other kind (swapped), or one made for
// another token is refused with BAD_DATA saying why. Payloads are written and read with
// PayloadWriter / PayloadReader, whose reads are bounds-checked.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "weft/hal/IDevice.h"

namespace weft::hal {

struct CacheFileFormat {
  std::array<char, 8> magic;  // names the device and its format, e.g. "WEFTCPU\n"
  uint32_t version = 0;       // changes whenever the layout of the payloads changes
};

// The file holding `payload` of `kind` (the device's own numbering: model file, data file, ...).
std::vector<uint8_t> frameCacheFile(const CacheFileFormat& format, uint32_t kind, const CacheToken& token,
                                    const std::vector<uint8_t>& payload);

// The payload of `file` when it is exactly what frameCacheFile(format, kind, token, payload)
// gives; BAD_DATA naming `what` (e.g. "the model cache") and the fault otherwise.
nn::Result<std::vector<uint8_t>> unframeCacheFile(const CacheFileFormat& format, uint32_t kind,
                                                  const CacheToken& token, const std::vector<uint8_t>& file,
                                                  const char* what);

// The whole file replaced by `bytes` (OP_FAILED with the reason when it cannot be).
nn::Status writeCacheFile(const CacheFile& file, const std::vector<uint8_t>& bytes);
// The whole file, read once (what is checked is what is used).
nn::Result<std::vector<uint8_t>> readCacheFile(const CacheFile& file);

// Little-endian fields of a payload.
class PayloadWriter {
 public:
  PayloadWriter& u8(uint8_t v);
  PayloadWriter& u32(uint32_t v);
  PayloadWriter& u64(uint64_t v);
  PayloadWriter& f64(double v);
  PayloadWriter& bytes(const void* data, size_t size);  // raw, no length
  PayloadWriter& string(const std::string& s);          // u64 length, then the bytes
  std::vector<uint8_t>& data() { return out_; }

 private:
  std::vector<uint8_t> out_;
};

// Reads what PayloadWriter wrote. A read past the end returns 0 (or empty) and marks the reader
// failed, so a parser reads on and checks ok() once, before using anything it read.
class PayloadReader {
 public:
  explicit PayloadReader(const std::vector<uint8_t>& payload) : p_(payload) {}
  uint8_t u8();
  uint32_t u32();
  uint64_t u64();
  double f64();
  const uint8_t* bytes(size_t size);  // nullptr when fewer remain
  std::string string();
  // A count of items of at least `minItemBytes` each that the rest of the payload can hold
  // (0 and failed otherwise): a corrupt count never makes a parser allocate without bound.
  uint64_t count(size_t minItemBytes);
  bool ok() const { return ok_; }
  bool atEnd() const { return at_ == p_.size(); }

 private:
  const std::vector<uint8_t>& p_;
  size_t at_ = 0;
  bool ok_ = true;
};

}  // namespace weft::hal
