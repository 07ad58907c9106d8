// libFuzzer target: hardware configuration files (hw/src/config.cpp through HwConfig::fromJson).
// Any input must give a configuration or a ConfigError-like exception, never a crash, a leak or
// undefined behaviour (the fuzz preset builds with AddressSanitizer and UBSan).
#include <cstddef>
#include <cstdint>
#include <exception>
#include <string_view>

#include "weft/hw/config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const weft::hw::HwConfig config = weft::hw::HwConfig::fromJson(text, "fuzz input");
    (void)config.rtlKey();
    (void)config.toJson();
  } catch (const std::exception&) {
    // A refused configuration: what a bad file must give.
  }
  return 0;
}
