// weft reads C++ structures libneuralnetworks.so returns (weft/runtime/Profile.h), so the two
// must come from one build. Checked at start, so that a stale library on the loader's path (or
// beside a rebuilt weft) is an error naming it, not a misread structure.
#pragma once

#include <string>

namespace weft::tool {

// Empty when the loaded libneuralnetworks.so carries this weft's ABI stamp; else what is wrong,
// naming the library's file and both stamps.
std::string runtimeAbiMismatch();

}  // namespace weft::tool
