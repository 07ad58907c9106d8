// Where the rtl backend finds verilated models (plugins) and, for a configuration none is built
// for, what it builds one from and where it puts it. Found from where this code is
// (weft/common/locations.h), never from paths compiled in:
//
//   installed (libweft-accel.so in <prefix>/lib/weft)
//     models       <prefix>/lib/weft/rtl, then WEFT_RTL_DIR, then the user's cache
//     builds into  the first WEFT_RTL_DIR directory, else ${XDG_CACHE_HOME:-~/.cache}/weft/rtl
//                  (never the prefix, which is usually not the user's to write)
//     from         <prefix>/share/weft/rtl-project (the RTL sources and sim/rtl_plugin)
//   build tree (a marker beside the module, or above a test program linking the simulator)
//     models       the build's RTL directory, then WEFT_RTL_DIR
//     builds into  the first WEFT_RTL_DIR directory, else the build's RTL directory
//     from         the source tree, with the build's generated RTL package and cmake
#pragma once

#include <string>
#include <vector>

namespace weft::sim {

struct RtlPluginLocations {
  std::vector<std::string> searchDirs;  // in order
  std::string buildDir;                 // where on-demand builds go
  std::string projectRoot;              // holds sim/rtl_plugin/, rtl/ and cmake/
  std::string rtlPackage;               // the generated weft_pkg.sv
  std::string cmake;                    // the cmake program (a path, or a name on PATH)
  bool installed = false;
};

// Where this code is is found once per process; WEFT_RTL_DIR and the cache variables are read
// at each call.
RtlPluginLocations rtlPluginLocations();

}  // namespace weft::sim
