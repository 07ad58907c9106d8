#include "weft/sim/dram/address_mapping.h"

#include <fmt/format.h>

#include <cctype>
#include <vector>

#include "weft/sim/dram/device.h"
#include "weft/sim/dram/errors.h"

namespace weft::sim::dram {

int log2Exact(uint64_t v) {
  if (v == 0 || (v & (v - 1)) != 0) return -1;
  int b = 0;
  while ((uint64_t{1} << b) != v) ++b;
  return b;
}

namespace {

constexpr const char* kCodes[AddressMapping::kFields] = {"ch", "ra", "bg", "ba", "ro", "co"};

int fieldOfWord(const std::string& w) {
  static const std::pair<const char*, int> words[] = {
      {"ch", AddressMapping::kChannel},   {"channel", AddressMapping::kChannel},
      {"ra", AddressMapping::kRank},      {"rank", AddressMapping::kRank},
      {"bg", AddressMapping::kBankGroup}, {"bankgroup", AddressMapping::kBankGroup},
      {"ba", AddressMapping::kBank},      {"bank", AddressMapping::kBank},
      {"ro", AddressMapping::kRow},       {"row", AddressMapping::kRow},
      {"co", AddressMapping::kColumn},    {"col", AddressMapping::kColumn},
      {"column", AddressMapping::kColumn}};
  for (const auto& [name, f] : words) {
    if (w == name) return f;
  }
  return -1;
}

// The fields, most significant first.
std::vector<int> parseScheme(const std::string& scheme) {
  std::string lower;
  for (const char c : scheme) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::vector<std::string> words;
  if (lower.find('-') != std::string::npos) {
    size_t start = 0;
    while (start <= lower.size()) {
      const size_t dash = lower.find('-', start);
      words.push_back(lower.substr(start, dash == std::string::npos ? std::string::npos : dash - start));
      if (dash == std::string::npos) break;
      start = dash + 1;
    }
  } else {
    if (lower.size() % 2 != 0) {
      throw DramInputError(fmt::format("address mapping '{}': fields are two letters each (ro ch ra bg ba co)", scheme));
    }
    for (size_t i = 0; i < lower.size(); i += 2) words.push_back(lower.substr(i, 2));
  }
  std::vector<int> fields;
  bool seen[AddressMapping::kFields] = {};
  for (const auto& w : words) {
    const int f = fieldOfWord(w);
    if (f < 0) {
      throw DramInputError(fmt::format("address mapping '{}': '{}' is not a field (ro ch ra bg ba co)", scheme, w));
    }
    if (seen[f]) throw DramInputError(fmt::format("address mapping '{}': '{}' appears twice", scheme, w));
    seen[f] = true;
    fields.push_back(f);
  }
  if (!seen[AddressMapping::kBankGroup] && seen[AddressMapping::kBank]) {
    for (size_t i = 0; i < fields.size(); ++i) {
      if (fields[i] == AddressMapping::kBank) {
        fields.insert(fields.begin() + static_cast<long>(i) + 1, AddressMapping::kBankGroup);
        seen[AddressMapping::kBankGroup] = true;
        break;
      }
    }
  }
  for (int f = 0; f < AddressMapping::kFields; ++f) {
    if (!seen[f]) {
      throw DramInputError(fmt::format("address mapping '{}': field '{}' is missing (each of ro ch ra bg ba co once)",
                                       scheme, kCodes[f]));
    }
  }
  return fields;
}

}  // namespace

AddressMapping::AddressMapping(const std::string& scheme, const Organization& org) {
  const std::vector<int> order = parseScheme(scheme);
  const uint64_t counts[kFields] = {org.channels, org.ranks, org.bankGroups, org.banksPerGroup, org.rows,
                                    org.burstLength == 0 ? 0 : org.columns / org.burstLength};
  constexpr const char* names[kFields] = {"channels", "ranks", "bank groups", "banks per group", "rows",
                                          "columns / BL"};
  int widths[kFields];
  for (int f = 0; f < kFields; ++f) {
    widths[f] = log2Exact(counts[f]);
    if (widths[f] < 0) {
      throw DramInputError(fmt::format("address mapping '{}': {} = {} is not a power of two (each field is whole bits)",
                                       scheme, names[f], counts[f]));
    }
  }
  const int offset = log2Exact(org.requestBytes());
  if (offset < 0) {
    throw DramInputError(fmt::format("bus_width / 8 * BL = {} bytes a transaction is not a power of two",
                                     org.requestBytes()));
  }
  offsetBits_ = static_cast<uint32_t>(offset);
  uint32_t pos = 0;
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    pos_[*it] = pos;
    mask_[*it] = (uint64_t{1} << widths[*it]) - 1;
    pos += static_cast<uint32_t>(widths[*it]);
  }
  totalBits_ = pos + offsetBits_;
  if (totalBits_ > 63) throw DramInputError(fmt::format("address mapping '{}': the device needs {} address bits", scheme, totalBits_));
  for (const int f : order) canonical_ += kCodes[f];
}

}  // namespace weft::sim::dram
