#include "AbiCheck.h"

#include <dlfcn.h>
#include <fmt/format.h>

#include <cstring>

#include "android/NeuralNetworks.h"
#include "weft/AbiStamp.h"

// Weak: a library from before the stamps has no such symbol, and this says so rather than the
// dynamic loader failing with "undefined symbol". (Not through Profile.h, which declares it strong.)
extern "C" const char* weft_abi_stamp(void) __attribute__((weak));

namespace weft::tool {

std::string runtimeAbiMismatch() {
  const char* library = weft_abi_stamp != nullptr ? weft_abi_stamp() : nullptr;
  if (library != nullptr && std::strcmp(library, WEFT_ABI_STAMP) == 0) return {};
  Dl_info info{};
  const bool found = dladdr(reinterpret_cast<const void*>(&ANeuralNetworksModel_create), &info) != 0 && info.dli_fname;
  return fmt::format("{} is from another build of weft (ABI {}; this weft is {}): install or build weft and "
                     "libneuralnetworks.so together, or put the matching library first on the loader's path",
                     found ? info.dli_fname : "libneuralnetworks.so", library != nullptr ? library : "none, an older build",
                     WEFT_ABI_STAMP);
}

}  // namespace weft::tool
