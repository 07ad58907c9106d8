// The ANeuralNetworks_* and ANeuralNetworksDevice_* entry points.
#include "DeviceManager.h"
#include "Errors.h"
#include "Handles.h"

using namespace weft::runtime;
using weft::nn::Status;

namespace {

// The device behind a handle the client got from ANeuralNetworks_getDevice, or nullptr (after
// reporting BAD_DATA) for anything else.
const Device* knownDevice(const char* function, const ANeuralNetworksDevice* handle) {
  const Device* device = fromHandle(handle);
  if (!DeviceManager::get().isKnown(device)) {
    reportError(function, NN_ERROR(BAD_DATA) << "not a device returned by ANeuralNetworks_getDevice");
    return nullptr;
  }
  return device;
}

}  // namespace

extern "C" {

int ANeuralNetworks_getDeviceCount(uint32_t* numDevices) {
  if (numDevices == nullptr) return reportNull(__func__, "numDevices");
  return guarded(__func__, [&, function = __func__]() -> int {
    DeviceManager& manager = DeviceManager::get();
    if (Status status = manager.checkConfiguration(); !status.ok()) return reportError(function, status.error());
    *numDevices = static_cast<uint32_t>(manager.devices().size());
    return ANEURALNETWORKS_NO_ERROR;
  });
}

int ANeuralNetworks_getDevice(uint32_t devIndex, ANeuralNetworksDevice** device) {
  if (device == nullptr) return reportNull(__func__, "device");
  return guarded(__func__, [&, function = __func__]() -> int {
    DeviceManager& manager = DeviceManager::get();
    if (Status status = manager.checkConfiguration(); !status.ok()) return reportError(function, status.error());
    if (devIndex >= manager.devices().size()) {
      return reportError(function, NN_ERROR(BAD_DATA) << "device index " << devIndex << " is out of range ("
                                                      << manager.devices().size() << " devices)");
    }
    *device = toHandle(manager.devices()[devIndex]);
    return ANEURALNETWORKS_NO_ERROR;
  });
}

int ANeuralNetworksDevice_getName(const ANeuralNetworksDevice* device, const char** name) {
  if (device == nullptr) return reportNull(__func__, "device");
  if (name == nullptr) return reportNull(__func__, "name");
  const Device* d = knownDevice(__func__, device);
  if (d == nullptr) return ANEURALNETWORKS_BAD_DATA;
  *name = d->hal()->getName().c_str();
  return ANEURALNETWORKS_NO_ERROR;
}

int ANeuralNetworksDevice_getType(const ANeuralNetworksDevice* device, int32_t* type) {
  if (device == nullptr) return reportNull(__func__, "device");
  if (type == nullptr) return reportNull(__func__, "type");
  const Device* d = knownDevice(__func__, device);
  if (d == nullptr) return ANEURALNETWORKS_BAD_DATA;
  *type = static_cast<int32_t>(d->hal()->getType());
  return ANEURALNETWORKS_NO_ERROR;
}

int ANeuralNetworksDevice_getVersion(const ANeuralNetworksDevice* device, const char** version) {
  if (device == nullptr) return reportNull(__func__, "device");
  if (version == nullptr) return reportNull(__func__, "version");
  const Device* d = knownDevice(__func__, device);
  if (d == nullptr) return ANEURALNETWORKS_BAD_DATA;
  *version = d->hal()->getVersionString().c_str();
  return ANEURALNETWORKS_NO_ERROR;
}

int ANeuralNetworksDevice_getFeatureLevel(const ANeuralNetworksDevice* device, int64_t* featureLevel) {
  if (device == nullptr) return reportNull(__func__, "device");
  if (featureLevel == nullptr) return reportNull(__func__, "featureLevel");
  const Device* d = knownDevice(__func__, device);
  if (d == nullptr) return ANEURALNETWORKS_BAD_DATA;
  *featureLevel = d->hal()->getFeatureLevel();
  return ANEURALNETWORKS_NO_ERROR;
}

int ANeuralNetworksDevice_wait(const ANeuralNetworksDevice* device) {
  if (device == nullptr) return reportNull(__func__, "device");
  // weft's devices are in-process: once created they are live.
  return knownDevice(__func__, device) == nullptr ? ANEURALNETWORKS_BAD_DATA : ANEURALNETWORKS_NO_ERROR;
}

int ANeuralNetworksDevice_getExtensionSupport(const ANeuralNetworksDevice* device, const char* extensionName,
                                              bool* isExtensionSupported) {
  if (device == nullptr) return reportNull(__func__, "device");
  if (extensionName == nullptr) return reportNull(__func__, "extensionName");
  if (isExtensionSupported == nullptr) return reportNull(__func__, "isExtensionSupported");
  const Device* d = knownDevice(__func__, device);
  if (d == nullptr) return ANEURALNETWORKS_BAD_DATA;
  *isExtensionSupported = false;
  for (const weft::nn::Extension& extension : d->hal()->getSupportedExtensions()) {
    if (extension.name == extensionName) *isExtensionSupported = true;
  }
  return ANEURALNETWORKS_NO_ERROR;
}

int64_t ANeuralNetworks_getRuntimeFeatureLevel(void) { return ANEURALNETWORKS_FEATURE_LEVEL_8; }

}  // extern "C"
