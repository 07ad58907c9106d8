// The accelerator as an NN HAL device (AOSP's sample driver: one file per HAL object).
#pragma once

#include <memory>
#include <string>

#include "DeviceQueue.h"
#include "weft/hal/IDevice.h"
#include "weft/sim/backend.h"

namespace weft::accel {

class Device : public hal::IDevice, public std::enable_shared_from_this<Device> {
 public:
  // A device on `backend`. createAcceleratorDevice() is the public way (one per process);
  // tests use this directly to put a wrapped backend (fault injection) under the driver.
  static nn::Result<std::shared_ptr<Device>> create(std::unique_ptr<sim::IDeviceBackend> backend);

  const std::string& getName() const override { return name_; }
  const std::string& getVersionString() const override { return version_; }
  int64_t getFeatureLevel() const override { return nn::kFeatureLevel4; }
  nn::DeviceType getType() const override { return nn::DeviceType::ACCELERATOR; }
  const hal::Capabilities& getCapabilities() const override { return capabilities_; }
  // org.weft.accel (weft/WeftExtension.h), described exactly as the CPU reference describes it:
  // the runtime disables an extension that two devices describe differently.
  const std::vector<nn::Extension>& getSupportedExtensions() const override;
  nn::Result<std::vector<bool>> getSupportedOperations(const nn::Model& model) const override;
  // The lowering's and the memory plan's reasons (supportedOperations in ModelCompiler.h).
  nn::Result<std::map<uint32_t, std::string>> getUnsupportedReasons(const nn::Model& model) const override;
  nn::Result<hal::SharedPreparedModel> prepareModel(const nn::Model& model, nn::ExecutionPreference preference,
                                                    nn::Priority priority,
                                                    const hal::OptionalTimePoint& deadline,
                                                    const std::optional<hal::CacheRequest>& cache) const override;
  // The whole prepared model through the runtime's cache files (PreparedModelCache.h).
  hal::NumberOfCacheFiles getNumberOfCacheFilesNeeded() const override;
  nn::Result<hal::SharedPreparedModel> prepareModelFromCache(const hal::OptionalTimePoint& deadline,
                                                             const std::vector<hal::SharedCacheFile>& modelCache,
                                                             const std::vector<hal::SharedCacheFile>& dataCache,
                                                             const hal::CacheToken& token) const override;
  nn::Result<hal::SharedBuffer> allocate(const hal::BufferDesc& desc,
                                         const std::vector<hal::SharedPreparedModel>& preparedModels,
                                         const std::vector<hal::BufferRole>& inputRoles,
                                         const std::vector<hal::BufferRole>& outputRoles) const override;

  const std::shared_ptr<DeviceQueue>& queue() const { return queue_; }

 private:
  explicit Device(std::shared_ptr<DeviceQueue> queue);
  std::shared_ptr<DeviceQueue> queue_;
  std::string name_ = "weft-accel";
  std::string version_;
  hal::Capabilities capabilities_;
};

}  // namespace weft::accel
