#include "AcceleratorLoader.h"

#include "weft/AbiStamp.h"

#include <dlfcn.h>

#include <atomic>
#include <cstring>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace weft::runtime {
namespace {

// Read when the library loads, as the other WEFT_* variables.
const char* const kDriverVariableAtLoad = std::getenv("WEFT_ACCEL_DRIVER");

// The directory of the shared object (or program) this function is part of.
std::string directoryOfThisCode() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<const void*>(&directoryOfThisCode), &info) == 0 || info.dli_fname == nullptr) {
    return {};
  }
  const std::string path = info.dli_fname;
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? std::string() : path.substr(0, slash);
}

std::vector<std::string> candidates() {
  if (kDriverVariableAtLoad != nullptr && *kDriverVariableAtLoad != '\0') return {kDriverVariableAtLoad};
  std::vector<std::string> paths;
  if (const std::string directory = directoryOfThisCode(); !directory.empty()) {
    paths.push_back(directory + "/" + accel::kAcceleratorModuleFile);  // the build tree
    paths.push_back(directory + "/" + accel::kAcceleratorModuleInstalledDir + "/" + accel::kAcceleratorModuleFile);
  }
  paths.push_back(accel::kAcceleratorModuleFile);  // the dynamic loader's search path
  return paths;
}

nn::Result<const accel::AcceleratorModule*> load() {
  std::string tried;
  for (const std::string& path : candidates()) {
    // RTLD_LOCAL: the module's symbols (its own copies of the canonical types among them) stay
    // its own. RTLD_NOW: a module that cannot be linked fails here, not in the middle of a call.
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      const char* why = dlerror();
      tried += "\n  " + path + ": " + (why != nullptr ? why : "cannot be loaded");
      continue;
    }
    // The handle is never closed: the devices the module creates live until the process ends.
    auto entry = reinterpret_cast<accel::AcceleratorModuleEntry>(dlsym(handle, accel::kAcceleratorModuleEntry));
    const accel::AcceleratorModule* module = entry != nullptr ? entry() : nullptr;
    if (module == nullptr) {
      return NN_ERROR(OP_FAILED) << path << " is not a weft accelerator driver (no " << accel::kAcceleratorModuleEntry
                                 << ")";
    }
    // The layout number and the build's stamp first: nothing else of a table from another build
    // can be trusted.
    if (module->abi != accel::kAcceleratorModuleAbi) {
      return NN_ERROR(OP_FAILED) << path << " was built for accelerator-module ABI " << module->abi
                                 << ", this runtime needs " << accel::kAcceleratorModuleAbi
                                 << " (use the module built with this libneuralnetworks.so)";
    }
    if (module->build == nullptr || std::strcmp(module->build, WEFT_ABI_STAMP) != 0) {
      return NN_ERROR(OP_FAILED) << path << " is from another build of weft (ABI " << (module->build ? module->build : "?")
                                 << ", this libneuralnetworks.so is " << WEFT_ABI_STAMP
                                 << "): a stale module left beside a rebuilt library; install or build both together";
    }
    if (module->createDevice == nullptr || module->setProgressListener == nullptr) {
      return NN_ERROR(OP_FAILED) << path << " is not a weft accelerator driver (its table is incomplete)";
    }
    return module;
  }
  return NN_ERROR(OP_FAILED) << "no accelerator driver module (" << accel::kAcceleratorModuleFile
                             << "; WEFT_ACCEL_DRIVER names another) could be loaded:" << tried;
}

std::atomic<const accel::AcceleratorModule*> loaded{nullptr};

}  // namespace

nn::Result<const accel::AcceleratorModule*> loadAcceleratorModule() {
  static std::once_flag once;
  static std::optional<nn::Result<const accel::AcceleratorModule*>> result;
  std::call_once(once, [] {
    result = load();
    if (result->ok()) loaded = result->value();
  });
  return *result;
}

const accel::AcceleratorModule* loadedAcceleratorModule() { return loaded.load(); }

}  // namespace weft::runtime
