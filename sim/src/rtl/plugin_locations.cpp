#include "rtl/plugin_locations.h"

#include <algorithm>
#include <cstdlib>

#include "weft/common/locations.h"

namespace weft::sim {
namespace {

std::vector<std::string> splitDirectoryList(const char* list) {
  std::vector<std::string> dirs;
  if (list == nullptr) return dirs;
  const std::string s(list);
  size_t start = 0;
  while (start <= s.size()) {
    const size_t end = std::min(s.find(':', start), s.size());
    if (end > start) dirs.push_back(s.substr(start, end - start));
    start = end + 1;
  }
  return dirs;
}

// Where this code is does not change while the process runs.
const common::WeftTree& pluginTree() {
  static const common::WeftTree t =
      common::findWeftTree(common::directoryOfCode(reinterpret_cast<const void*>(&rtlPluginLocations)));
  return t;
}

}  // namespace

RtlPluginLocations rtlPluginLocations() {
  const common::WeftTree& t = pluginTree();
  const std::vector<std::string> userDirs = splitDirectoryList(std::getenv("WEFT_RTL_DIR"));
  RtlPluginLocations where;
  where.installed = t.installed;
  where.projectRoot = t.rtlProjectRoot();
  where.rtlPackage = t.rtlPackage();
  if (t.buildTree) {
    where.searchDirs.push_back(t.buildTree->rtlModelDir);
    where.searchDirs.insert(where.searchDirs.end(), userDirs.begin(), userDirs.end());
    where.buildDir = userDirs.empty() ? t.buildTree->rtlModelDir : userDirs.front();
    where.cmake = t.buildTree->cmakeCommand;
    return where;
  }
  // <prefix>/lib/weft/rtl: beside libweft-accel.so, below share/weft's parent's lib/.
  where.searchDirs.push_back(common::normalPath(t.shareDir + "/../../lib/weft/rtl"));
  where.searchDirs.insert(where.searchDirs.end(), userDirs.begin(), userDirs.end());
  const std::string cache = common::userCacheDirectory();
  if (!cache.empty()) where.searchDirs.push_back(cache + "/rtl");
  where.buildDir = !userDirs.empty() ? userDirs.front() : cache.empty() ? std::string() : cache + "/rtl";
  where.cmake = "cmake";
  return where;
}

}  // namespace weft::sim
