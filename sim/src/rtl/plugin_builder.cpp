#include "rtl/plugin_builder.h"

#include "rtl/plugin_locations.h"
#include "weft/common/locations.h"

#include "weft/common/file_lock.h"
#include "weft/common/log_tail.h"
#include "weft/common/process.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>



namespace weft::sim {
namespace {

// The last lines of a build log, each on a line of its own, indented.
std::string tail(const std::string& path, size_t lines) {
  std::string out;
  for (const auto& l : common::tailLines(path, lines)) out += "\n  " + l;
  return out;
}

// Why an on-demand build cannot start here, or empty: the plugin project, the RTL package and
// cmake must be there (an installed weft ships the first two in share/weft/rtl-project).
std::string missingBuildInput(const RtlPluginLocations& where) {
  struct stat st {};
  const std::string project = where.projectRoot + "/sim/rtl_plugin/CMakeLists.txt";
  if (::stat(project.c_str(), &st) != 0) return fmt::format("its CMake project {} is missing", project);
  if (::stat(where.rtlPackage.c_str(), &st) != 0) return fmt::format("the RTL package {} is missing", where.rtlPackage);
  if (where.cmake.find('/') == std::string::npos && !common::onPath(where.cmake)) {
    return "cmake is not on PATH (building RTL models needs cmake, verilator and a C++ compiler)";
  }
  return {};
}

}  // namespace

const RtlPlugin& loadOrBuildRtlPlugin(const hw::HwConfig& config, bool trace) {
  try {
    return RtlPlugin::load(config, trace);
  } catch (const RtlPluginError& missing) {
    const char* autobuild = std::getenv("WEFT_RTL_AUTOBUILD");
    if (autobuild != nullptr && std::string(autobuild) == "0") throw;
    const RtlPluginLocations where = rtlPluginLocations();
    const std::string dir = where.buildDir;
    if (dir.empty()) {
      throw RtlPluginError(fmt::format("{}\nIt cannot be built here: no directory to build it in (set WEFT_RTL_DIR, "
                                       "XDG_CACHE_HOME or HOME)", missing.what()));
    }
    if (const std::string why = missingBuildInput(where); !why.empty()) {
      throw RtlPluginError(fmt::format("{}\nIt cannot be built here: {}", missing.what(), why));
    }
    try {
      common::createDirectories(dir);
    } catch (const std::exception& e) {
      throw RtlPluginError(fmt::format("{}\nIt cannot be built here: {} (WEFT_RTL_DIR names another directory)",
                                       missing.what(), e.what()));
    }
    if (::access(dir.c_str(), W_OK) != 0) {
      throw RtlPluginError(fmt::format("{}\nIt cannot be built here: the directory {} is not writable (WEFT_RTL_DIR "
                                       "names another directory)", missing.what(), dir));
    }
    const std::string name = RtlPlugin::fileName(config, trace);
    const std::string stem = name.substr(0, name.size() - 3);  // without ".so"
    common::FileLock lock(dir + "/." + stem + ".lock");
    try {
      return RtlPlugin::load(config, trace);  // another process built it meanwhile
    } catch (const RtlPluginError&) {
    }
    const std::string buildDir = dir + "/on-demand/" + stem, staging = buildDir + "/plugin";
    const std::string log = dir + "/" + stem + ".log";
    std::remove(log.c_str());
    std::string params;
    for (const auto& p : config.verilatorParams()) params += (params.empty() ? "" : ";") + p;
    std::fprintf(stderr,
                 "weft: no RTL model of configuration '%s' yet; building %s (a minute or two, once; log: %s)\n",
                 config.name().c_str(), name.c_str(), log.c_str());
    std::vector<std::string> configure = {
        where.cmake, "-S", where.projectRoot + "/sim/rtl_plugin", "-B", buildDir,
        "-DCMAKE_BUILD_TYPE=Release", "-DWEFT_SOURCE_DIR=" + where.projectRoot,
        "-DWEFT_PKG_SV=" + where.rtlPackage, "-DWEFT_RTL_KEY=" + config.rtlKey(),
        "-DWEFT_RTL_PARAMS=" + params, "-DWEFT_RTL_BUS_BYTES=" + std::to_string(config.busBytes()),
        "-DWEFT_RTL_OUTPUT_DIR=" + staging, std::string("-DWEFT_RTL_TRACE=") + (trace ? "ON" : "OFF")};
    if (common::onPath("ninja")) configure.insert(configure.begin() + 1, {"-G", "Ninja"});
    if (common::runLogged(configure, log) != 0 ||
        common::runLogged({where.cmake, "--build", buildDir, "-j", "2"}, log) != 0) {
      throw RtlPluginError(fmt::format("building the RTL model for configuration '{}' failed ({}); the end of {}:{}",
                                       config.name(), missing.what(), log, tail(log, 15)));
    }
    // Linked in the build directory, then renamed into place (the same file system): a process
    // that looks for the plugin meanwhile finds none or the whole file, never a half-written one
    // (dlopen: "file too short").
    const std::string built = staging + "/" + name, placed = dir + "/" + name;
    struct stat st {};
    if (::stat(built.c_str(), &st) != 0) {
      // The plugin's name carries the digest of the RTL sources this program was built with; a
      // build from changed sources names its file after theirs.
      throw RtlPluginError(fmt::format(
          "the RTL model for configuration '{}' was built, but not as {}: the RTL sources under {} changed since "
          "this program was built (the file name carries their digest). Rebuild weft (cmake --build), or restore "
          "the sources; what was built is in {}",
          config.name(), name, where.projectRoot + "/rtl", staging));
    }
    if (std::rename(built.c_str(), placed.c_str()) != 0) {
      throw RtlPluginError(fmt::format("the RTL model for configuration '{}' was built as {} but cannot be moved to {}: {}",
                                       config.name(), built, placed, std::strerror(errno)));
    }
    return RtlPlugin::load(config, trace);
  }
}

}  // namespace weft::sim
