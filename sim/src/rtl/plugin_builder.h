// Verilator fixes parameters when it verilates, so every RTL configuration is its own plugin.
// The build makes the default configurations' plugins; any other configuration's plugin is
// built here, the first time a process asks for it, and cached for every later process.
#pragma once

#include "weft/hw/config.h"
#include "weft/sim/rtl_stepper.h"

namespace weft::sim {

// The configuration's plugin: loaded when a build of it exists (RtlPlugin::load's search
// path), otherwise built with the on-demand project (sim/rtl_plugin/; an install's
// share/weft/rtl-project) into the first directory of WEFT_RTL_DIR, else the build's RTL
// directory, else (installed) ${XDG_CACHE_HOME:-~/.cache}/weft/rtl, then loaded
// (rtl/plugin_locations.h). A directory it cannot create or write is an error naming it. Concurrent processes
// asking for the same configuration build it once (a lock file). WEFT_RTL_AUTOBUILD=0 turns
// building off. Throws RtlPluginError saying what failed and where the build log is.
const RtlPlugin& loadOrBuildRtlPlugin(const hw::HwConfig& config, bool trace);

}  // namespace weft::sim
