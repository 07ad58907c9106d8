// Where weft's files are, found from where the running code is, never from paths compiled in: a
// binary copied, installed or packaged finds its data beside itself, and no object carries the
// path of the tree it was built from (the compiler cache shares objects between clones).
//
// Two layouts:
//   installed   <prefix>/bin/weft, <prefix>/lib/libneuralnetworks.so,
//               <prefix>/lib/weft/libweft-accel.so, <prefix>/lib/weft/rtl/*.so (RTL models),
//               <prefix>/share/weft/ (networks, baselines, scripts, the RTL sources);
//   build tree  a marker file, kBuildTreeMarker, written by CMake at the top of the build
//               directory and next to the runtime library, names the source tree, the build's
//               RTL model directory, its generated RTL package and its cmake.
#pragma once

#include <optional>
#include <string>

namespace weft::common {

inline constexpr const char* kBuildTreeMarker = "weft-build-tree.json";

// What a build tree's marker says (absolute paths).
struct BuildTree {
  std::string markerPath;
  std::string sourceDir;     // the source tree: traces/, scripts/, rtl/, sim/rtl_plugin/
  std::string rtlModelDir;   // where the build puts the verilated models (and on-demand ones)
  std::string rtlPackage;    // the generated weft_pkg.sv
  std::string cmakeCommand;  // the cmake that configured the build
  std::string areaCacheDir;  // where synthesized logic areas are cached
};

// The tree the code in `codeDirectory` belongs to.
struct WeftTree {
  bool installed = false;
  std::string shareDir;               // installed: <prefix>/share/weft (which may be missing)
  std::optional<BuildTree> buildTree; // not installed: what the build's marker says
  // The RTL sources: <root>/rtl/*.sv and the generated package (installed: share/weft/rtl-project).
  std::string rtlProjectRoot() const;
  std::string rtlPackage() const;
};

// An installed tree is recognised first (code in <prefix>/bin or <prefix>/lib/weft, and
// <prefix>/lib/libneuralnetworks.so), so that a prefix inside a build directory is still an
// installed tree, its share directory present or not; else the nearest build marker at or above
// the directory; else an installed tree as above (errors then name the directories it lacks).
WeftTree findWeftTree(const std::string& codeDirectory);

// The directory of the shared object or program that holds `address` (dladdr), without a trailing
// slash; empty when it cannot be told.
std::string directoryOfCode(const void* address);

// The directory of the running program (/proc/self/exe); empty when it cannot be told.
std::string executableDirectory();

// The build tree whose marker is in `directory` (searchParents: or in one of its parents, nearest
// first), if any. A marker that cannot be read or lacks a field is std::runtime_error naming it.
std::optional<BuildTree> findBuildTree(const std::string& directory, bool searchParents);

// `path` with "." and ".." folded away, lexically (no symbolic link is followed).
std::string normalPath(const std::string& path);

// Whether `path` is an existing directory.
bool isDirectory(const std::string& path);

// The per-user cache directory for weft: $XDG_CACHE_HOME/weft, else $HOME/.cache/weft; empty
// when neither variable is set.
std::string userCacheDirectory();

// Creates `path` and its missing parents (mode 0755). Throws std::runtime_error naming the first
// directory that could not be created and why ("Permission denied").
void createDirectories(const std::string& path);

}  // namespace weft::common
