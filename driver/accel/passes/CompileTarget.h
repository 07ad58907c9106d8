// What every pass of a compilation is compiling for: the hardware, the options the compilation
// was asked for (read once, CompileOptions.h), the tiling search's policy, and whether the
// backend reads data at all.
#pragma once

#include "../CompileOptions.h"
#include "../TilingPolicy.h"
#include "weft/hw/config.h"

namespace weft::accel {

struct CompileTarget {
  const hw::HwConfig& config;
  CompileOptions options;
  TilingPolicy policy;
  // False on the timing backend, which reads no data: images are placed (the same sizes, so the
  // same timing) but neither built nor written, and array layers take no copy of their filter.
  bool computesData = true;
};

}  // namespace weft::accel
