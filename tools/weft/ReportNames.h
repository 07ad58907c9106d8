// The default names of the reports `weft run` and `weft layers` write when no path is given:
// out/<workload>-<backend>-<configuration>. Each part is one file-name component, whatever the
// user passed: a configuration given as a file (--hw my/configs/big.json) is named by the file's
// stem ("big"), not by its path, so reports land in out/ and never in a tree built from the path.
#pragma once

#include <string>

namespace weft::tool {

// The configuration part of a report name for the value of --hw / WEFT_HW: a named
// configuration as it is, a configuration file by its stem.
std::string configurationTag(const std::string& hwArgument);

// "out/<workload>-<backend>-<configurationTag(hwArgument)>", each part safe as a file name.
std::string defaultReportStem(const std::string& workload, const std::string& backend, const std::string& hwArgument);

}  // namespace weft::tool
