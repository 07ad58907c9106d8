#include "DataDir.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <stdexcept>

#include "weft/common/locations.h"

namespace weft::tool {
namespace {

constexpr const char* kAllowlistName = "nnapi_extensions_app_allowlist";

struct DataLocation {
  std::string dir;
  bool buildTree = false;
  std::string allowlist;  // the tool's own extension allowlist
};

const DataLocation& location() {
  static const DataLocation where = [] {
    const common::WeftTree tree = common::findWeftTree(common::executableDirectory());
    if (tree.buildTree) {
      const std::string& marker = tree.buildTree->markerPath;
      return DataLocation{tree.buildTree->sourceDir, true, marker.substr(0, marker.rfind('/') + 1) + kAllowlistName};
    }
    return DataLocation{tree.shareDir, false, tree.shareDir + "/" + kAllowlistName};
  }();
  return where;
}

bool exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

}  // namespace

const std::string& dataDir() { return location().dir; }

std::string ownExtensionAllowlist() { return exists(location().allowlist) ? location().allowlist : std::string(); }

std::string defaultScaleSimDir() {
  return location().buildTree ? common::normalPath(location().dir + "/../shared/workloads/scalesim") : std::string();
}

void requireData(const std::string& path) {
  const std::string& dir = dataDir();
  if (path.rfind(dir + "/", 0) != 0 || exists(path)) return;
  if (!common::isDirectory(dir)) {
    throw std::runtime_error(
        location().buildTree
            ? fmt::format("weft's source tree {} is missing (the build tree's marker names it); rebuild weft", dir)
            : fmt::format("weft's data directory {} is missing: an installed weft keeps its networks, baselines and "
                          "scripts in <prefix>/share/weft beside <prefix>/bin; reinstall weft",
                          dir));
  }
  throw std::runtime_error(fmt::format("weft's data file {} is missing from {}; reinstall weft", path, dir));
}

}  // namespace weft::tool
