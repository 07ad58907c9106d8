#include "DeviceManager.h"

#include <algorithm>
#include <cstdlib>
#include <exception>
#include <set>

#include "AcceleratorLoader.h"
#include "Errors.h"
#include "weft/cpu/CpuDevice.h"
#include "weft/hw/config.h"

namespace weft::runtime {
namespace {

std::optional<std::string> readVariable(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr || *value == '\0') return std::nullopt;
  return std::string(value);
}

// Read when the library loads, as the user contract says; validated when devices are first needed.
const EnvironmentSettings kEnvironmentAtLoad{readVariable("WEFT_BACKEND"), readVariable("WEFT_HW")};

std::string joined(const std::vector<std::string>& names) {
  std::string result;
  for (const std::string& name : names) result += (result.empty() ? "" : ", ") + name;
  return result;
}

nn::Extension sortedByType(nn::Extension extension) {
  std::sort(extension.operandTypes.begin(), extension.operandTypes.end(),
            [](const auto& a, const auto& b) { return a.type < b.type; });
  return extension;
}

bool sameDescription(const nn::Extension& a, const nn::Extension& b) {
  if (a.operandTypes.size() != b.operandTypes.size()) return false;
  for (size_t i = 0; i < a.operandTypes.size(); ++i) {
    const auto& x = a.operandTypes[i];
    const auto& y = b.operandTypes[i];
    if (x.type != y.type || x.isTensor != y.isTensor || x.byteSize != y.byteSize) return false;
  }
  return true;
}

// As Android's TypeManager::registerExtension: the first device declaring an extension describes
// it; one that describes it differently disables it.
std::vector<nn::Extension> collectExtensions(const std::vector<const Device*>& devices) {
  std::vector<nn::Extension> extensions;
  std::set<std::string> disabled;
  for (const Device* device : devices) {
    for (const nn::Extension& declared : device->hal()->getSupportedExtensions()) {
      const nn::Extension extension = sortedByType(declared);
      if (disabled.count(extension.name) != 0) continue;
      auto known = std::find_if(extensions.begin(), extensions.end(),
                                [&](const nn::Extension& e) { return e.name == extension.name; });
      if (known == extensions.end()) {
        extensions.push_back(extension);
      } else if (!sameDescription(*known, extension)) {
        logWarning("devices describe the extension " + extension.name + " differently; it is disabled");
        disabled.insert(extension.name);
        extensions.erase(known);
      }
    }
  }
  return extensions;
}

}  // namespace

nn::Result<accel::AcceleratorOptions> acceleratorOptionsFrom(const EnvironmentSettings& settings) {
  accel::AcceleratorOptions options;
  if (settings.backend.has_value()) {
    if (*settings.backend != "rtl" && *settings.backend != "approx" && *settings.backend != "timing") {
      return NN_ERROR(BAD_DATA) << "WEFT_BACKEND=\"" << *settings.backend
                                << "\" is not valid; accepted values: rtl, approx, timing";
    }
    options.backend = *settings.backend;
  }
  if (settings.hw.has_value()) {
    try {
      (void)hw::HwConfig::load(*settings.hw);
    } catch (const std::exception& e) {
      return NN_ERROR(BAD_DATA) << "WEFT_HW=\"" << *settings.hw << "\" is not valid: " << e.what()
                                << " (accepted: a named configuration (" << joined(hw::HwConfig::namedConfigs())
                                << ") or the path of a configuration file)";
    }
    options.hwConfig = *settings.hw;
  }
  return options;
}

DeviceManager& DeviceManager::get() {
  static DeviceManager manager;
  return manager;
}

DeviceManager::DeviceManager() {
  realDevices_ = createDevices();
  setDevices(realDevices_);
}

std::vector<hal::SharedDevice> DeviceManager::createDevices() {
  nn::Result<accel::AcceleratorOptions> options = acceleratorOptionsFrom(kEnvironmentAtLoad);
  if (!options.ok()) {
    configurationError_ = options.error();
    reportError("configuration", options.error());
    return {};
  }
  std::vector<hal::SharedDevice> devices;
  // The accelerator driver is a module loaded now (AcceleratorLoader.h); without it the runtime
  // still offers the CPU device.
  nn::Result<const accel::AcceleratorModule*> module = loadAcceleratorModule();
  nn::Result<hal::SharedDevice> accelerator =
      module.ok() ? (*module)->createDevice(*options) : nn::Result<hal::SharedDevice>(module.error());
  if (accelerator.ok()) {
    devices.push_back(std::move(accelerator).value());
  } else if (accelerator.error().code == nn::ErrorStatus::BAD_DATA) {
    // The factory judged the configuration itself (e.g. a file that does not fit the RTL builds).
    configurationError_ = accelerator.error();
    reportError("configuration", accelerator.error());
    return {};
  } else {
    logWarning("the accelerator is not available (" + accelerator.error().message +
               "); models run on the CPU reference device");
  }
  devices.push_back(cpu::createCpuDevice());
  return devices;
}

void DeviceManager::setDevices(std::vector<hal::SharedDevice> devices) {
  owned_.clear();
  devices_.clear();
  for (hal::SharedDevice& device : devices) {
    owned_.push_back(std::make_unique<Device>(std::move(device)));
    devices_.push_back(owned_.back().get());
  }
  extensions_ = collectExtensions(devices_);
}

const nn::Extension* DeviceManager::findExtension(std::string_view name) const {
  for (const nn::Extension& extension : extensions_) {
    if (extension.name == name) return &extension;
  }
  return nullptr;
}

nn::Status DeviceManager::checkConfiguration() const {
  if (configurationError_.has_value()) {
    return NN_ERROR(BAD_STATE) << "no devices: " << configurationError_->message;
  }
  return {};
}

bool DeviceManager::isKnown(const Device* device) const {
  for (const Device* known : devices_) {
    if (known == device) return true;
  }
  return false;
}

void DeviceManager::replaceDevicesForTesting(std::vector<hal::SharedDevice> devices) { setDevices(std::move(devices)); }

void DeviceManager::restoreDevicesForTesting() { setDevices(realDevices_); }

}  // namespace weft::runtime
