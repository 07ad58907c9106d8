#include "rtl/plugin_builder.h"

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


#ifndef WEFT_SOURCE_DIR
#define WEFT_SOURCE_DIR ""
#endif
#ifndef WEFT_PKG_SV
#define WEFT_PKG_SV ""
#endif
#ifndef WEFT_CMAKE_COMMAND
#define WEFT_CMAKE_COMMAND "cmake"
#endif

namespace weft::sim {
namespace {

// The last lines of a build log, each on a line of its own, indented.
std::string tail(const std::string& path, size_t lines) {
  std::string out;
  for (const auto& l : common::tailLines(path, lines)) out += "\n  " + l;
  return out;
}

// Where built plugins go: the first WEFT_RTL_DIR entry, or the build's RTL directory.
std::string outputDir() {
  if (const char* env = std::getenv("WEFT_RTL_DIR"); env != nullptr && *env != '\0') {
    const std::string list(env);
    return list.substr(0, list.find(':'));
  }
  const auto dirs = RtlPlugin::searchDirs();
  return dirs.empty() ? std::string() : dirs.front();
}

}  // namespace

const RtlPlugin& loadOrBuildRtlPlugin(const hw::HwConfig& config, bool trace) {
  try {
    return RtlPlugin::load(config, trace);
  } catch (const RtlPluginError& missing) {
    const char* autobuild = std::getenv("WEFT_RTL_AUTOBUILD");
    const std::string dir = outputDir();
    if ((autobuild != nullptr && std::string(autobuild) == "0") || dir.empty() ||
        std::strlen(WEFT_SOURCE_DIR) == 0) {
      throw;
    }
    ::mkdir(dir.c_str(), 0755);
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
        WEFT_CMAKE_COMMAND, "-S", std::string(WEFT_SOURCE_DIR) + "/sim/rtl_plugin", "-B", buildDir,
        "-DCMAKE_BUILD_TYPE=Release", std::string("-DWEFT_SOURCE_DIR=") + WEFT_SOURCE_DIR,
        std::string("-DWEFT_PKG_SV=") + WEFT_PKG_SV, "-DWEFT_RTL_KEY=" + config.rtlKey(),
        "-DWEFT_RTL_PARAMS=" + params, "-DWEFT_RTL_BUS_BYTES=" + std::to_string(config.busBytes()),
        "-DWEFT_RTL_OUTPUT_DIR=" + staging, std::string("-DWEFT_RTL_TRACE=") + (trace ? "ON" : "OFF")};
    if (common::onPath("ninja")) configure.insert(configure.begin() + 1, {"-G", "Ninja"});
    if (common::runLogged(configure, log) != 0 ||
        common::runLogged({WEFT_CMAKE_COMMAND, "--build", buildDir, "-j", "2"}, log) != 0) {
      throw RtlPluginError(fmt::format("building the RTL model for configuration '{}' failed ({}); the end of {}:{}",
                                       config.name(), missing.what(), log, tail(log, 15)));
    }
    // Linked in the build directory, then renamed into place (the same file system): a process
    // that looks for the plugin meanwhile finds none or the whole file, never a half-written one
    // (dlopen: "file too short").
    const std::string built = staging + "/" + name, placed = dir + "/" + name;
    if (std::rename(built.c_str(), placed.c_str()) != 0) {
      throw RtlPluginError(fmt::format("the RTL model for configuration '{}' was built as {} but cannot be moved to {}: {}",
                                       config.name(), built, placed, std::strerror(errno)));
    }
    return RtlPlugin::load(config, trace);
  }
}

}  // namespace weft::sim
