// Reading the tool's JSON descriptions (networks, layer sets) field by field, so that every
// problem becomes a NetworkError naming where it is and which field.
#pragma once

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "Network.h"
#include "weft/common/json_fields.h"

namespace weft::tool::json_fields {

using nlohmann::json;

// The generic readers (weft/common/json_fields.h) with NetworkError as their error.
inline const json& field(const json& obj, const char* key, const std::string& where) {
  return common::json_fields::field<NetworkError>(obj, key, where);
}

// A field of type T: numbers must fit T (common::json_fields::value).
template <typename T>
T get(const json& obj, const char* key, const std::string& where) {
  return common::json_fields::get<T, NetworkError>(obj, key, where);
}

// An integer field within [lo, hi] (nlohmann would wrap a negative number into an unsigned type).
inline int64_t integerIn(const json& obj, const char* key, int64_t lo, int64_t hi, const std::string& where) {
  return common::json_fields::integerFieldIn<NetworkError>(obj, key, lo, hi, where);
}

// A list of tensor dimensions, each at least 1, at most 2^31 elements in all: a negative entry
// would otherwise wrap into a huge unsigned one and the data drawn for it exhaust memory.
inline std::vector<uint32_t> dimensions(const json& obj, const char* key, const std::string& where) {
  const json& v = field(obj, key, where);
  std::vector<uint32_t> dims;
  uint64_t elements = 1;
  for (const json& d : v.is_array() ? v : json::array({nullptr})) {
    if (!d.is_number_integer() || d.get<int64_t>() < 1 || d.get<int64_t>() > (int64_t{1} << 31)) {
      throw NetworkError(fmt::format("{}: \"{}\" must be a list of dimensions, each at least 1", where, key));
    }
    dims.push_back(d.get<uint32_t>());
    elements *= dims.back();
    if (elements > (uint64_t{1} << 31)) {
      throw NetworkError(fmt::format("{}: \"{}\" has more than 2^31 elements", where, key));
    }
  }
  return dims;
}

// {"scale", "zeroPoint"} of a quant8 asymmetric tensor: zero points in [0, 255], or in
// [-128, 127] for TENSOR_QUANT8_ASYMM_SIGNED.
inline QuantParams quantParams(const json& obj, const std::string& where, bool isSigned = false) {
  QuantParams q{get<float>(obj, "scale", where), get<int32_t>(obj, "zeroPoint", where)};
  const int32_t lo = isSigned ? -128 : 0;
  if (!(q.scale > 0) || q.zeroPoint < lo || q.zeroPoint > lo + 255) {
    throw NetworkError(fmt::format("{}: scale must be > 0 and zeroPoint in [{}, {}]", where, lo, lo + 255));
  }
  return q;
}

// A network description's tensor "type": false for TENSOR_QUANT8_ASYMM, true for
// TENSOR_QUANT8_ASYMM_SIGNED.
inline bool quant8Type(const json& obj, const std::string& where) {
  const auto type = get<std::string>(obj, "type", where);
  if (type != "TENSOR_QUANT8_ASYMM" && type != "TENSOR_QUANT8_ASYMM_SIGNED") {
    throw NetworkError(fmt::format("{}: \"type\" \"{}\" is not TENSOR_QUANT8_ASYMM or TENSOR_QUANT8_ASYMM_SIGNED",
                                   where, type));
  }
  return type == "TENSOR_QUANT8_ASYMM_SIGNED";
}

// NONE, RELU, RELU1, RELU6 as ANEURALNETWORKS_FUSED_* (0 to 3).
inline int activationCode(const std::string& name, const std::string& where) {
  static const char* const kNames[] = {"NONE", "RELU", "RELU1", "RELU6"};
  for (int code = 0; code < 4; ++code) {
    if (name == kNames[code]) return code;
  }
  throw NetworkError(fmt::format("{}: activation \"{}\" is not NONE, RELU, RELU1 or RELU6", where, name));
}

// NetworkError naming the first field of `obj` not in `known` (a misspelt optional field would
// otherwise be a silent default).
inline void rejectUnknownFields(const json& obj, const std::set<std::string>& known, const std::string& where) {
  for (const auto& [key, value] : obj.items()) {
    if (known.count(key) == 0) {
      std::string list;
      for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
      throw NetworkError(fmt::format("{}: unknown field \"{}\" (this op takes {})", where, key, list));
    }
  }
}

// A layer set entry's optional "type": false for TENSOR_QUANT8_ASYMM (the default), true for
// TENSOR_QUANT8_ASYMM_SIGNED.
inline bool signedType(const json& obj, const std::string& where) {
  return obj.contains("type") && quant8Type(obj, where);
}

}  // namespace weft::tool::json_fields
