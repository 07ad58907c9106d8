#include "weft/common/locations.h"

#include <dlfcn.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "weft/common/files.h"

namespace weft::common {
namespace {

std::string parentOf(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return {};
  return slash == 0 ? std::string("/") : path.substr(0, slash);
}

BuildTree readMarker(const std::string& path) {
  const auto text = readFile(path);
  const nlohmann::json j = nlohmann::json::parse(text.value_or(""), nullptr, /*allow_exceptions=*/false);
  BuildTree tree;
  tree.markerPath = path;
  auto field = [&](const char* name, std::string& out) {
    if (!j.is_object() || !j.contains(name) || !j[name].is_string()) {
      throw std::runtime_error(fmt::format("{}: the build tree's marker has no \"{}\" (re-run cmake on the build)", path, name));
    }
    out = j[name].get<std::string>();
  };
  field("source", tree.sourceDir);
  field("rtl_models", tree.rtlModelDir);
  field("rtl_package", tree.rtlPackage);
  field("cmake", tree.cmakeCommand);
  field("area_cache", tree.areaCacheDir);
  return tree;
}

}  // namespace

std::string directoryOfCode(const void* address) {
  Dl_info info{};
  if (dladdr(address, &info) == 0 || info.dli_fname == nullptr) return {};
  std::string path = info.dli_fname;
  // The main program may be reported by the name it was started with: /proc/self/exe is its file.
  if (path.find('/') == std::string::npos) return executableDirectory();
  std::error_code ec;
  const auto absolute = std::filesystem::canonical(path, ec);
  return parentOf(ec ? path : absolute.string());
}

std::string executableDirectory() {
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string() : parentOf(exe.string());
}

std::optional<BuildTree> findBuildTree(const std::string& directory, bool searchParents) {
  std::string dir = directory;
  while (!dir.empty()) {
    const std::string marker = dir + "/" + kBuildTreeMarker;
    struct stat st {};
    if (::stat(marker.c_str(), &st) == 0 && S_ISREG(st.st_mode)) return readMarker(marker);
    if (!searchParents || dir == "/") break;
    dir = parentOf(dir);
  }
  return std::nullopt;
}

WeftTree findWeftTree(const std::string& codeDirectory) {
  WeftTree tree;
  // <prefix>/bin or <prefix>/lib/weft, recognised by the runtime library in <prefix>/lib (so that
  // an install whose share/weft is missing is still an install, and errors name that directory).
  const std::string name = std::filesystem::path(codeDirectory).filename().string();
  const std::string prefix = normalPath(codeDirectory + (name == "weft" ? "/../.." : "/.."));
  struct stat st {};
  if ((name == "bin" || name == "weft") && ::stat((prefix + "/lib/libneuralnetworks.so").c_str(), &st) == 0) {
    tree.installed = true;
    tree.shareDir = prefix + "/share/weft";
    return tree;
  }
  tree.buildTree = findBuildTree(codeDirectory, /*searchParents=*/true);
  if (!tree.buildTree) {  // neither: a copied program; errors name what it looked for
    tree.installed = true;
    tree.shareDir = prefix + "/share/weft";
  }
  return tree;
}

std::string WeftTree::rtlProjectRoot() const { return buildTree ? buildTree->sourceDir : shareDir + "/rtl-project"; }

std::string WeftTree::rtlPackage() const {
  return buildTree ? buildTree->rtlPackage : shareDir + "/rtl-project/generated/weft_pkg.sv";
}

std::string normalPath(const std::string& path) {
  std::string out = std::filesystem::path(path).lexically_normal().string();
  while (out.size() > 1 && out.back() == '/') out.pop_back();
  return out;
}

bool isDirectory(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

std::string userCacheDirectory() {
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && xdg[0] == '/') {
    return normalPath(std::string(xdg) + "/weft");
  }
  if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') {
    return normalPath(std::string(home) + "/.cache/weft");
  }
  return {};
}

void createDirectories(const std::string& path) {
  if (path.empty() || isDirectory(path)) return;
  const std::string parent = parentOf(path);
  if (!parent.empty() && parent != path) createDirectories(parent);
  if (::mkdir(path.c_str(), 0755) != 0 && errno != EEXIST) {
    throw std::runtime_error(fmt::format("cannot create the directory {}: {}", path, std::strerror(errno)));
  }
  if (!isDirectory(path)) throw std::runtime_error(fmt::format("{} exists and is not a directory", path));
}

}  // namespace weft::common
