// The devices the runtime offers (ANeuralNetworks_getDevice): the accelerator (type ACCELERATOR,
// when it can be brought up) and the CPU reference device (type CPU, always, last).
//
// The accelerator is configured by two environment variables, read when the library loads:
//   WEFT_BACKEND = rtl | approx          (default rtl)
//   WEFT_HW      = <named configuration of hw/configs> | <path to a configuration file>
//                                        (default weft16)
// An empty value counts as unset. A bad value is a configuration error, never a silent
// fallback: its message (naming the accepted values) is printed once to stderr and every entry
// point that needs devices fails with ANEURALNETWORKS_BAD_STATE. An accelerator that cannot be
// brought up for another reason (e.g. its driver or RTL is not built) is simply absent; that is
// logged once. The accelerator driver is not linked into the runtime: it is a module loaded
// when the devices are first needed (AcceleratorLoader.h).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "weft/accel/AcceleratorDevice.h"
#include "weft/hal/IDevice.h"

namespace weft::runtime {

// ANeuralNetworksDevice.
class Device {
 public:
  explicit Device(hal::SharedDevice device) : device_(std::move(device)) {}
  const hal::SharedDevice& hal() const { return device_; }
  const std::string& name() const { return device_->getName(); }
  bool isCpu() const { return device_->getType() == nn::DeviceType::CPU; }

 private:
  hal::SharedDevice device_;
};

struct EnvironmentSettings {
  std::optional<std::string> backend;  // WEFT_BACKEND
  std::optional<std::string> hw;       // WEFT_HW
};

// The accelerator options the settings ask for, or BAD_DATA naming the bad variable and the
// accepted values.
nn::Result<accel::AcceleratorOptions> acceleratorOptionsFrom(const EnvironmentSettings& settings);

class DeviceManager {
 public:
  static DeviceManager& get();

  // BAD_STATE with the configuration error, if any (the entry points that need devices call it).
  nn::Status checkConfiguration() const;
  const std::vector<const Device*>& devices() const { return devices_; }
  bool isKnown(const Device* device) const;
  // The extensions the devices declare, one entry per name (Android's TypeManager): an extension
  // two devices describe differently is left out, and logged.
  const std::vector<nn::Extension>& extensions() const { return extensions_; }
  const nn::Extension* findExtension(std::string_view name) const;

  // Test hook: replaces the device list (e.g. with fake accelerators next to the CPU device),
  // until restoreDevicesForTesting(). Handles returned before become invalid.
  void replaceDevicesForTesting(std::vector<hal::SharedDevice> devices);
  void restoreDevicesForTesting();

 private:
  DeviceManager();
  void setDevices(std::vector<hal::SharedDevice> devices);
  std::vector<hal::SharedDevice> createDevices();

  std::optional<nn::Error> configurationError_;
  std::vector<hal::SharedDevice> realDevices_;
  std::vector<std::unique_ptr<Device>> owned_;
  std::vector<const Device*> devices_;
  std::vector<nn::Extension> extensions_;
};

}  // namespace weft::runtime
