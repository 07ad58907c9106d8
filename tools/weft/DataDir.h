// Where weft's own data is: the bundled networks and validation layers (traces/), the baselines,
// the report script (scripts/weft_report.py) and, beside the project, the shared workloads.
// Today that is the source tree this binary was built from; one function says so, so that only
// DataDir.cpp carries the path (the compiler cache shares every other object between clones).
#pragma once

#include <string>

namespace weft::tool {

// The tree holding traces/ and scripts/, without a trailing slash.
const std::string& dataDir();

}  // namespace weft::tool
