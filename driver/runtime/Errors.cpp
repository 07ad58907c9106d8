#include "Errors.h"

#include <fmt/core.h>

#include <cstdio>

namespace weft::runtime {

int reportError(std::string_view function, const nn::Error& error) {
  fmt::print(stderr, "weft: {}: {} ({})\n", function, error.message, nn::toString(error.code));
  return resultCode(error.code);
}

int reportNull(std::string_view function, std::string_view argument) {
  fmt::print(stderr, "weft: {}: {} is NULL (UNEXPECTED_NULL)\n", function, argument);
  return resultCode(nn::ErrorStatus::UNEXPECTED_NULL);
}

void logWarning(std::string_view message) { fmt::print(stderr, "weft: {}\n", message); }

}  // namespace weft::runtime
