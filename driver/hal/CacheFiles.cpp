#include "weft/hal/CacheFiles.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "weft/nn/Sha256.h"

namespace weft::hal {
namespace {

constexpr size_t kHeaderSize = 8 + 4 + 4 + sizeof(CacheToken) + 8;

uint64_t readLittleEndian(const uint8_t* p, int size) {
  uint64_t v = 0;
  for (int i = 0; i < size; ++i) v |= uint64_t{p[i]} << (8 * i);
  return v;
}

}  // namespace

std::vector<uint8_t> frameCacheFile(const CacheFileFormat& format, uint32_t kind, const CacheToken& token,
                                    const std::vector<uint8_t>& payload) {
  PayloadWriter w;
  w.bytes(format.magic.data(), format.magic.size()).u32(format.version).u32(kind);
  w.bytes(token.data(), token.size()).u64(payload.size()).bytes(payload.data(), payload.size());
  std::vector<uint8_t> file = std::move(w.data());
  const nn::Sha256Digest digest = nn::sha256(file);
  file.insert(file.end(), digest.begin(), digest.end());
  return file;
}

nn::Result<std::vector<uint8_t>> unframeCacheFile(const CacheFileFormat& format, uint32_t kind,
                                                  const CacheToken& token, const std::vector<uint8_t>& file,
                                                  const char* what) {
  NN_RET_CHECK_GE(file.size(), kHeaderSize + sizeof(nn::Sha256Digest)) << what << " is too short";
  const size_t covered = file.size() - sizeof(nn::Sha256Digest);
  const nn::Sha256Digest digest = nn::sha256(file.data(), covered);
  NN_RET_CHECK(std::memcmp(digest.data(), file.data() + covered, digest.size()) == 0)
      << what << " fails its integrity check";
  NN_RET_CHECK(std::memcmp(file.data(), format.magic.data(), format.magic.size()) == 0)
      << what << " is not in this device's format";
  const uint8_t* p = file.data() + format.magic.size();
  NN_RET_CHECK_EQ(readLittleEndian(p, 4), format.version) << what << " has another format version";
  NN_RET_CHECK_EQ(readLittleEndian(p + 4, 4), kind) << what << " holds the other kind of file";
  NN_RET_CHECK(std::memcmp(p + 8, token.data(), token.size()) == 0) << what << " was made for another model";
  const uint64_t size = readLittleEndian(p + 8 + token.size(), 8);
  NN_RET_CHECK_EQ(size, covered - kHeaderSize) << what << " has the wrong length";
  return std::vector<uint8_t>(file.begin() + kHeaderSize, file.begin() + static_cast<std::ptrdiff_t>(covered));
}

nn::Status writeCacheFile(const CacheFile& file, const std::vector<uint8_t>& bytes) {
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

nn::Result<std::vector<uint8_t>> readCacheFile(const CacheFile& file) {
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

PayloadWriter& PayloadWriter::u8(uint8_t v) {
  out_.push_back(v);
  return *this;
}
PayloadWriter& PayloadWriter::u32(uint32_t v) {
  for (int i = 0; i < 4; ++i) out_.push_back(static_cast<uint8_t>(v >> (8 * i)));
  return *this;
}
PayloadWriter& PayloadWriter::u64(uint64_t v) {
  for (int i = 0; i < 8; ++i) out_.push_back(static_cast<uint8_t>(v >> (8 * i)));
  return *this;
}
PayloadWriter& PayloadWriter::f64(double v) {
  uint64_t bits = 0;
  std::memcpy(&bits, &v, sizeof(bits));
  return u64(bits);
}
PayloadWriter& PayloadWriter::bytes(const void* data, size_t size) {
  const auto* p = static_cast<const uint8_t*>(data);
  out_.insert(out_.end(), p, p + size);
  return *this;
}
PayloadWriter& PayloadWriter::string(const std::string& s) { return u64(s.size()).bytes(s.data(), s.size()); }

const uint8_t* PayloadReader::bytes(size_t size) {
  if (!ok_ || size > p_.size() - at_) {
    ok_ = false;
    return nullptr;
  }
  const uint8_t* p = p_.data() + at_;
  at_ += size;
  return p;
}
uint8_t PayloadReader::u8() {
  const uint8_t* p = bytes(1);
  return p ? *p : 0;
}
uint32_t PayloadReader::u32() {
  const uint8_t* p = bytes(4);
  return p ? static_cast<uint32_t>(readLittleEndian(p, 4)) : 0;
}
uint64_t PayloadReader::u64() {
  const uint8_t* p = bytes(8);
  return p ? readLittleEndian(p, 8) : 0;
}
double PayloadReader::f64() {
  const uint64_t bits = u64();
  double v = 0;
  std::memcpy(&v, &bits, sizeof(v));
  return v;
}
std::string PayloadReader::string() {
  const uint64_t size = count(1);
  const uint8_t* p = bytes(size);
  return p ? std::string(reinterpret_cast<const char*>(p), size) : std::string();
}
uint64_t PayloadReader::count(size_t minItemBytes) {
  const uint64_t n = u64();
  if (!ok_ || (minItemBytes > 0 && n > (p_.size() - at_) / minItemBytes)) {
    ok_ = false;
    return 0;
  }
  return n;
}

}  // namespace weft::hal
