// The ANeuralNetworksCompilation_* entry points.
#include <set>

#include "CompilationBuilder.h"
#include "DeviceManager.h"
#include "Errors.h"
#include "Handles.h"
#include "Memory.h"
#include "ModelBuilder.h"

using namespace weft::runtime;
using weft::nn::Status;

namespace {

// The model must be finished and the devices usable (a bad WEFT_* setting makes them unusable).
Status checkCanCompile(const ModelBuilder& model) {
  NN_TRY(DeviceManager::get().checkConfiguration());
  if (!model.isFinished()) return NN_ERROR(BAD_STATE) << "the model is not finished";
  return {};
}

int preferredMemoryValue(const char* function, const ANeuralNetworksCompilation* compilation, uint32_t index,
                         uint32_t* value, IoType io) {
  if (compilation == nullptr) return reportNull(function, "compilation");
  if (value == nullptr) return reportNull(function, "the result pointer");
  const CompilationBuilder& c = *fromHandle(compilation);
  if (Status usable = c.checkUsable(function); !usable.ok()) return reportError(function, usable.error());
  const size_t count = io == IoType::kInput ? c.mainSubgraph().inputIndexes.size() : c.mainSubgraph().outputIndexes.size();
  if (index >= count) {
    return reportError(function, NN_ERROR(BAD_DATA) << "index " << index << " is out of range (" << count << ")");
  }
  // Buffers on 64-byte boundaries, padded to 64 bytes, suit every device's DMA and the kernels.
  *value = 64;
  return ANEURALNETWORKS_NO_ERROR;
}

}  // namespace

extern "C" {

int ANeuralNetworksCompilation_create(ANeuralNetworksModel* model, ANeuralNetworksCompilation** compilation) {
  if (compilation != nullptr) *compilation = nullptr;
  if (model == nullptr) return reportNull(__func__, "model");
  if (compilation == nullptr) return reportNull(__func__, "compilation");
  return guarded(__func__, [&, function = __func__]() -> int {
    const ModelBuilder& m = *fromHandle(model);
    if (Status status = checkCanCompile(m); !status.ok()) return reportError(function, status.error());
    *compilation = toHandle(new CompilationBuilder(m.finished(), DeviceManager::get().devices(), false));
    return ANEURALNETWORKS_NO_ERROR;
  });
}

int ANeuralNetworksCompilation_createForDevices(ANeuralNetworksModel* model, const ANeuralNetworksDevice* const* devices,
                                                uint32_t numDevices, ANeuralNetworksCompilation** compilation) {
  if (compilation != nullptr) *compilation = nullptr;
  if (model == nullptr) return reportNull(__func__, "model");
  if (devices == nullptr) return reportNull(__func__, "devices");
  if (compilation == nullptr) return reportNull(__func__, "compilation");
  return guarded(__func__, [&, function = __func__]() -> int {
    if (numDevices == 0) return reportError(function, NN_ERROR(BAD_DATA) << "numDevices is 0");
    DeviceManager& manager = DeviceManager::get();
    if (Status status = manager.checkConfiguration(); !status.ok()) return reportError(function, status.error());
    std::vector<const Device*> list;
    std::set<const Device*> seen;
    for (uint32_t i = 0; i < numDevices; ++i) {
      if (devices[i] == nullptr) return reportNull(function, "devices[i]");
      const Device* device = fromHandle(devices[i]);
      if (!manager.isKnown(device)) {
        return reportError(function, NN_ERROR(BAD_DATA) << "devices[" << i << "] is not a device");
      }
      if (!seen.insert(device).second) return reportError(function, NN_ERROR(BAD_DATA) << "devices has duplicates");
      list.push_back(device);
    }
    const ModelBuilder& m = *fromHandle(model);
    if (Status status = checkCanCompile(m); !status.ok()) return reportError(function, status.error());
    *compilation = toHandle(new CompilationBuilder(m.finished(), std::move(list), true));
    return ANEURALNETWORKS_NO_ERROR;
  });
}

void ANeuralNetworksCompilation_free(ANeuralNetworksCompilation* compilation) { delete fromHandle(compilation); }

int ANeuralNetworksCompilation_setPreference(ANeuralNetworksCompilation* compilation, int32_t preference) {
  if (compilation == nullptr) return reportNull(__func__, "compilation");
  return toResultCode(__func__, fromHandle(compilation)->setPreference(preference));
}

int ANeuralNetworksCompilation_setPriority(ANeuralNetworksCompilation* compilation, int priority) {
  if (compilation == nullptr) return reportNull(__func__, "compilation");
  return toResultCode(__func__, fromHandle(compilation)->setPriority(priority));
}

int ANeuralNetworksCompilation_setTimeout(ANeuralNetworksCompilation* compilation, uint64_t duration) {
  if (compilation == nullptr) return reportNull(__func__, "compilation");
  return toResultCode(__func__, fromHandle(compilation)->setTimeout(duration));
}

int ANeuralNetworksCompilation_setCaching(ANeuralNetworksCompilation* compilation, const char* cacheDir,
                                          const uint8_t* token) {
  if (compilation == nullptr) return reportNull(__func__, "compilation");
  if (cacheDir == nullptr) return reportNull(__func__, "cacheDir");
  if (token == nullptr) return reportNull(__func__, "token");
  return guarded(__func__, [&, function = __func__]() -> int { return toResultCode(function, fromHandle(compilation)->setCaching(cacheDir, token)); });
}

int ANeuralNetworksCompilation_finish(ANeuralNetworksCompilation* compilation) {
  if (compilation == nullptr) return reportNull(__func__, "compilation");
  return guarded(__func__, [&, function = __func__]() -> int { return toResultCode(function, fromHandle(compilation)->finish()); });
}

int ANeuralNetworksCompilation_getPreferredMemoryAlignmentForInput(const ANeuralNetworksCompilation* compilation,
                                                                   uint32_t index, uint32_t* alignment) {
  return preferredMemoryValue(__func__, compilation, index, alignment, IoType::kInput);
}

int ANeuralNetworksCompilation_getPreferredMemoryPaddingForInput(const ANeuralNetworksCompilation* compilation,
                                                                 uint32_t index, uint32_t* padding) {
  return preferredMemoryValue(__func__, compilation, index, padding, IoType::kInput);
}

int ANeuralNetworksCompilation_getPreferredMemoryAlignmentForOutput(const ANeuralNetworksCompilation* compilation,
                                                                    uint32_t index, uint32_t* alignment) {
  return preferredMemoryValue(__func__, compilation, index, alignment, IoType::kOutput);
}

int ANeuralNetworksCompilation_getPreferredMemoryPaddingForOutput(const ANeuralNetworksCompilation* compilation,
                                                                  uint32_t index, uint32_t* padding) {
  return preferredMemoryValue(__func__, compilation, index, padding, IoType::kOutput);
}

}  // extern "C"
