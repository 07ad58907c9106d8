// The runtime side of weft::runtime::setProgressListener (weft/runtime/Profile.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "weft/runtime/Profile.h"

namespace weft::runtime {

// Called by the plan runner as it starts a step on the calling thread.
void reportStepStart(const std::string& device, const std::vector<uint32_t>& operations);

}  // namespace weft::runtime
