// Reading JSON documents users write (networks, layer sets, sweep specs, configurations) field by
// field with range checks, so that every problem is an error of the caller's type that names
// where it is: `Error` is any exception type constructible from a std::string (NetworkError,
// SweepError, ConfigError, ...).
//
// The value-level functions take the `subject` their messages start with ("net.json: layer 3:
// \"stride\"", "spec.json: grid.Rows: ..."); the field-level ones make it "<where>: \"<key>\"".
#pragma once

#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <type_traits>

namespace weft::common::json_fields {

// An integer value: "<subject> must be an integer" otherwise.
template <typename Error, typename Json>
int64_t integer(const Json& v, const std::string& subject) {
  if (!v.is_number_integer()) throw Error(fmt::format("{} must be an integer", subject));
  return v.template get<int64_t>();
}

// An integer value within [lo, hi]: "<subject> is <n>, not in [lo, hi]" otherwise.
template <typename Error, typename Json>
int64_t integerIn(const Json& v, int64_t lo, int64_t hi, const std::string& subject) {
  const int64_t n = integer<Error>(v, subject);
  if (n < lo || n > hi) throw Error(fmt::format("{} is {}, not in [{}, {}]", subject, n, lo, hi));
  return n;
}

// A value of type T. Numbers must fit T: nlohmann converts with a plain cast, which wraps a
// negative number into an unsigned type and is undefined behaviour for a number out of an
// integer's or a float's range (2e20 for an int, 1e300 for a float). An integer takes an
// integral floating-point number too (128.0), as hand-written files have them.
template <typename T, typename Error, typename Json>
T value(const Json& v, const std::string& subject) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    auto outOfRange = [&] {
      return Error(fmt::format("{} must be an integer in [{}, {}]", subject, std::numeric_limits<T>::min(),
                               std::numeric_limits<T>::max()));
    };
    if (v.is_number_unsigned()) {
      const uint64_t u = v.template get<uint64_t>();
      if (u > static_cast<uint64_t>(std::numeric_limits<T>::max())) throw outOfRange();
      return static_cast<T>(u);
    }
    if (v.is_number_integer()) {
      const int64_t n = v.template get<int64_t>();
      if (n < 0 ? (!std::is_signed_v<T> || n < static_cast<int64_t>(std::numeric_limits<T>::min()))
                : static_cast<uint64_t>(n) > static_cast<uint64_t>(std::numeric_limits<T>::max())) {
        throw outOfRange();
      }
      return static_cast<T>(n);
    }
    if (v.is_number_float()) {
      const double d = v.template get<double>();
      // Compared as doubles: the bounds of a 64-bit T round to powers of two, so `<` is exact.
      if (!(d == std::floor(d) && d >= static_cast<double>(std::numeric_limits<T>::min()) &&
            d < std::ldexp(1.0, std::numeric_limits<T>::digits))) {
        throw outOfRange();
      }
      return static_cast<T>(d);
    }
    throw Error(fmt::format("{} must be an integer", subject));
  } else if constexpr (std::is_floating_point_v<T>) {
    if (!v.is_number()) throw Error(fmt::format("{} must be a number", subject));
    const double d = v.template get<double>();
    if (!std::isfinite(d) || std::fabs(d) > static_cast<double>(std::numeric_limits<T>::max())) {
      throw Error(fmt::format("{} is {}, out of the range of a {}-bit float", subject, d, 8 * sizeof(T)));
    }
    return static_cast<T>(d);
  } else {
    try {
      return v.template get<T>();
    } catch (const nlohmann::json::exception& e) {
      throw Error(fmt::format("{} has the wrong type ({})", subject, e.what()));
    }
  }
}

// The subject of a field's messages: <where>: "<key>".
inline std::string fieldSubject(const std::string& where, const char* key) {
  return fmt::format("{}: \"{}\"", where, key);
}

// A field of an object: "<where>: missing \"<key>\"" when absent (or `obj` is no object).
template <typename Error, typename Json>
const Json& field(const Json& obj, const char* key, const std::string& where) {
  if (!obj.is_object() || !obj.contains(key)) throw Error(fmt::format("{}: missing \"{}\"", where, key));
  return obj.at(key);
}

// A field of type T (value() above).
template <typename T, typename Error, typename Json>
T get(const Json& obj, const char* key, const std::string& where) {
  return value<T, Error>(field<Error>(obj, key, where), fieldSubject(where, key));
}

// An integer field within [lo, hi] (integerIn() above).
template <typename Error, typename Json>
int64_t integerFieldIn(const Json& obj, const char* key, int64_t lo, int64_t hi, const std::string& where) {
  return integerIn<Error>(field<Error>(obj, key, where), lo, hi, fieldSubject(where, key));
}

}  // namespace weft::common::json_fields
