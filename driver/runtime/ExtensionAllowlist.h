// Which programs may use vendor extensions. Android lets only allowlisted native binaries add
// extension operands and operations (TypeManager::isExtensionsUseAllowed); weft does the same:
// the program's executable (/proc/self/exe) must be listed in the allowlist file, one absolute path
// a line, or a path from the allowlist's own directory starting with ./ or ../ (so that a
// package's allowlist for its own programs moves with it: weft's tool runs under
// share/weft/nnapi_extensions_app_allowlist, which names ../../bin/weft); '#' starts a comment;
// other lines are ignored with a warning. The file is the one
// WEFT_EXTENSIONS_ALLOWLIST names (read when the library loads), else
// /etc/weft/nnapi_extensions_app_allowlist. A program not listed gets BAD_DATA from
// ANeuralNetworksModel_addOperand / _addOperation with an extension type, as on Android.
#pragma once

#include <string>
#include <string_view>

namespace weft::runtime {

inline constexpr const char* kDefaultExtensionAllowlist = "/etc/weft/nnapi_extensions_app_allowlist";

struct ExtensionPermission {
  bool allowed = false;
  std::string executable;  // the program's path, as /proc/self/exe resolves
  std::string allowlist;   // the file that was read
};

// Decided once per process.
const ExtensionPermission& extensionPermission();

// Whether `executable` is listed in `allowlistText`, the text of a file in `allowlistDirectory` (an
// entry matches when it is the path itself or resolves to it through symbolic links).
bool isListedInAllowlist(std::string_view allowlistText, const std::string& executable,
                         const std::string& allowlistDirectory);

}  // namespace weft::runtime
