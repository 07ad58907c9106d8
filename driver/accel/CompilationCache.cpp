#include "CompilationCache.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace weft::accel {
namespace {

constexpr const char* kFormat = "weft-accel-tilings";
// 2: the fingerprint is SearchKey's, which also holds the zero points, the operands given at
// execution and the tiling policy (version 1's missed them).
constexpr int kVersion = 2;

// The checksum covers the canonical dump of everything but itself.
std::string checksumOf(const nlohmann::json& body) { return Fnv64().add(body.dump()).hex(); }

nlohmann::json bodyOf(const TilingChoices& c) {
  return {{"format", kFormat}, {"version", kVersion}, {"fingerprint", c.fingerprint}, {"tilings", c.tilings}};
}

}  // namespace

Fnv64& Fnv64::add(std::string_view bytes) {
  for (unsigned char b : bytes) {
    h_ ^= b;
    h_ *= 0x100000001b3ull;
  }
  return *this;
}

Fnv64& Fnv64::add(uint64_t value) {
  char bytes[8];
  for (int i = 0; i < 8; ++i) bytes[i] = static_cast<char>(value >> (8 * i));
  return add(std::string_view(bytes, 8));
}

std::string Fnv64::hex() const { return fmt::format("{:016x}", h_); }

std::string cacheFilePath(const hal::CacheRequest& request) {
  return fmt::format("{}/weft-accel-{}.json", request.dir, request.key);
}

std::optional<TilingChoices> readTilingCache(const std::string& path, std::string* why) {
  auto reject = [&](std::string reason) -> std::optional<TilingChoices> {
    if (why != nullptr) *why = std::move(reason);
    return std::nullopt;
  };
  std::ifstream in(path, std::ios::binary);
  if (!in) return reject("no cache file");
  std::stringstream text;
  text << in.rdbuf();
  const nlohmann::json j = nlohmann::json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return reject("not a JSON object");
  auto field = [&](const char* name, nlohmann::json::value_t type) {
    auto it = j.find(name);
    return it != j.end() && it->type() == type;
  };
  using T = nlohmann::json::value_t;
  if (!field("format", T::string) || j["format"] != kFormat) return reject("not a weft-accel tiling cache");
  if (!field("version", T::number_unsigned) || j["version"] != kVersion) return reject("another format version");
  if (!field("fingerprint", T::string) || !field("tilings", T::array) || !field("checksum", T::string)) {
    return reject("fields missing or of the wrong type");
  }
  TilingChoices c;
  c.fingerprint = j["fingerprint"].get<std::string>();
  for (const auto& t : j["tilings"]) {
    if (!t.is_number_unsigned() || t.get<uint64_t>() > UINT32_MAX) return reject("a tiling index is not an index");
    c.tilings.push_back(t.get<uint32_t>());
  }
  if (checksumOf(bodyOf(c)) != j["checksum"].get<std::string>()) return reject("checksum mismatch (tampered)");
  return c;
}

bool writeTilingCache(const std::string& path, const TilingChoices& choices) {
  nlohmann::json j = bodyOf(choices);
  j["checksum"] = checksumOf(j);
  const std::string temporary = fmt::format("{}.{}.tmp", path, ::getpid());
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out << j.dump() << '\n';
    if (!out) {
      std::remove(temporary.c_str());
      return false;
    }
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    std::remove(temporary.c_str());
    return false;
  }
  return true;
}

}  // namespace weft::accel
