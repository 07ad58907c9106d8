#include "ExtensionAllowlist.h"

#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "Errors.h"
#include "weft/common/files.h"

namespace weft::runtime {
namespace {

// Read when the library loads, like the other WEFT_* variables.
const char* const kAllowlistVariableAtLoad = std::getenv("WEFT_EXTENSIONS_ALLOWLIST");

std::string trimmed(std::string_view text) {
  const size_t begin = text.find_first_not_of(" \t\r");
  if (begin == std::string_view::npos) return {};
  const size_t end = text.find_last_not_of(" \t\r");
  return std::string(text.substr(begin, end - begin + 1));
}

std::string resolved(const std::string& path) {
  char buffer[PATH_MAX];
  return realpath(path.c_str(), buffer) != nullptr ? std::string(buffer) : path;
}

std::string executablePath() {
  char buffer[PATH_MAX];
  const ssize_t length = readlink("/proc/self/exe", buffer, sizeof(buffer) - 1);
  if (length <= 0) return {};
  return std::string(buffer, static_cast<size_t>(length));
}

ExtensionPermission decide() {
  ExtensionPermission permission;
  permission.executable = executablePath();
  permission.allowlist = kAllowlistVariableAtLoad != nullptr && *kAllowlistVariableAtLoad != '\0'
                             ? kAllowlistVariableAtLoad
                             : kDefaultExtensionAllowlist;
  const auto text = common::readFile(permission.allowlist);
  if (!text) return permission;  // no allowlist: no program may use extensions
  const size_t slash = permission.allowlist.rfind('/');
  const std::string directory = slash == std::string::npos ? "." : permission.allowlist.substr(0, slash);
  permission.allowed =
      !permission.executable.empty() && isListedInAllowlist(*text, permission.executable, directory);
  return permission;
}

}  // namespace

bool isListedInAllowlist(std::string_view allowlistText, const std::string& executable,
                         const std::string& allowlistDirectory) {
  std::istringstream lines{std::string(allowlistText)};
  std::string line;
  bool listed = false;
  while (std::getline(lines, line)) {
    std::string entry = trimmed(line);
    if (entry.empty() || entry[0] == '#') continue;
    if (entry.rfind("./", 0) == 0 || entry.rfind("../", 0) == 0) {
      entry = allowlistDirectory + "/" + entry;
    } else if (entry[0] != '/') {
      logWarning("extension allowlist: ignored \"" + entry +
                 "\" (entries are absolute paths of programs, or paths from the allowlist's directory starting "
                 "with ./ or ../)");
      continue;
    }
    listed = listed || entry == executable || resolved(entry) == executable;
  }
  return listed;
}

const ExtensionPermission& extensionPermission() {
  static const ExtensionPermission permission = decide();
  return permission;
}

}  // namespace weft::runtime
