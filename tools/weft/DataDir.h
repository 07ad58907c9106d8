// Where weft's own data is: the bundled networks and validation layers (traces/), the baselines
// and the report script (scripts/weft_report.py). Found from the running program, never from a
// path compiled in (weft/common/locations.h): an installed weft reads <prefix>/share/weft beside
// its bin/, a weft in its build tree reads the source tree its build marker names.
#pragma once

#include <string>

namespace weft::tool {

// The tree holding traces/ and scripts/, without a trailing slash. In an installed weft whose
// share directory is missing it is still the path that should exist (requireData names it).
const std::string& dataDir();

// Where SCALE-Sim's tables are by default: beside the source tree (../shared/workloads/scalesim)
// when weft runs from its build tree; empty for an installed weft (WEFT_SCALESIM_DIR names them).
std::string defaultScaleSimDir();

// The extension allowlist that names this tool (driver/runtime/ExtensionAllowlist.h): beside the
// build's weft, or <prefix>/share/weft's; empty when it does not exist.
std::string ownExtensionAllowlist();

// Throws std::runtime_error naming `path` and what is missing when `path`, a file or directory of
// weft's data, does not exist: "weft's data directory /opt/weft/share/weft is missing (...)".
// Paths outside dataDir() (the user's own files) are left to their readers.
void requireData(const std::string& path);

}  // namespace weft::tool
