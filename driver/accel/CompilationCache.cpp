#include "CompilationCache.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "weft/common/files.h"
#include "weft/common/fnv1a.h"

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
  h_ = common::Fnv1a(h_).bytes(bytes).value();
  return *this;
}

Fnv64& Fnv64::add(uint64_t value) {
  h_ = common::Fnv1a(h_).littleEndianBytes(value).value();
  return *this;
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
  const std::optional<std::string> text = common::readFile(path);
  if (!text) return reject("no cache file");
  const nlohmann::json j = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
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
  // A temporary unique to the call: two compilations of one process may write one key at once.
  return common::tryWriteFileAtomically(path, j.dump() + "\n").empty();
}

}  // namespace weft::accel
