#include "ReportNames.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <filesystem>

#include "weft/hw/config.h"

namespace weft::tool {
namespace {

// One file-name component: path separators and other characters a shell or a file system would
// trip over become '_'; nothing is left empty or a relative-directory name.
std::string fileComponent(const std::string& text) {
  std::string out = text;
  std::replace_if(
      out.begin(), out.end(),
      [](char c) { return !(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-' || c == '+'); },
      '_');
  if (out.empty() || out == "." || out == "..") out = "_" + out;
  return out;
}

bool isNamedConfiguration(const std::string& name) {
  const auto names = hw::HwConfig::namedConfigs();
  return std::find(names.begin(), names.end(), name) != names.end();
}

// A network or table named after its file (no "name" in it) is named by the file's stem.
std::string stemIfPath(const std::string& name) {
  if (name.find('/') == std::string::npos) return name;
  const std::string stem = std::filesystem::path(name).stem().string();
  return stem.empty() ? name : stem;
}

}  // namespace

std::string configurationTag(const std::string& hwArgument) {
  if (isNamedConfiguration(hwArgument)) return hwArgument;
  const std::string stem = std::filesystem::path(hwArgument).stem().string();
  return fileComponent(stem.empty() ? hwArgument : stem);
}

std::string defaultReportStem(const std::string& workload, const std::string& backend, const std::string& hwArgument) {
  return fmt::format("out/{}-{}-{}", fileComponent(stemIfPath(workload)), fileComponent(backend),
                     configurationTag(hwArgument));
}

}  // namespace weft::tool
