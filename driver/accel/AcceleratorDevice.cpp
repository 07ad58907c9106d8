// The factory: validates the options, brings the backend up and keeps the device a process
// singleton (the simulated hardware, like a real one, exists once).
#include "weft/accel/AcceleratorDevice.h"

#include <fmt/format.h>

#include <mutex>

#include "Device.h"

namespace weft::accel {
namespace {

struct Singleton {
  std::mutex mutex;
  std::weak_ptr<Device> device;
  sim::BackendKind kind = sim::BackendKind::kRtl;
  hw::HwConfig config;
};

Singleton& singleton() {
  static Singleton s;
  return s;
}

}  // namespace

nn::Result<hal::SharedDevice> createAcceleratorDevice(const AcceleratorOptions& options) {
  sim::BackendKind kind;
  try {
    kind = sim::parseBackendKind(options.backend);
  } catch (const std::exception& e) {
    return NN_ERROR(BAD_DATA) << "weft-accel: " << e.what();
  }
  hw::HwConfig config;
  try {
    config = hw::HwConfig::load(options.hwConfig);
  } catch (const std::exception& e) {
    return NN_ERROR(BAD_DATA) << "weft-accel: " << e.what();
  }

  Singleton& s = singleton();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (auto existing = s.device.lock()) {
    if (existing && s.kind == kind && s.config == config) return hal::SharedDevice(existing);
    return NN_ERROR(BAD_DATA) << fmt::format(
               "weft-accel: the device already exists in this process with the {} backend and "
               "configuration '{}'; one device per process (asked for {} / '{}')",
               sim::toString(s.kind), s.config.name(), sim::toString(kind), config.name());
  }
  std::unique_ptr<sim::IDeviceBackend> backend;
  try {
    backend = sim::createBackend(kind, config);
  } catch (const std::exception& e) {
    return NN_ERROR(OP_FAILED) << "weft-accel: cannot bring up the " << sim::toString(kind)
                               << " backend: " << e.what();
  }
  auto device = Device::create(std::move(backend));
  if (!device.ok()) return device.error();
  s.device = device.value();
  s.kind = kind;
  s.config = config;
  return hal::SharedDevice(device.value());
}

}  // namespace weft::accel
