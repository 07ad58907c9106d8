// The device interface of the HAL (as NN HAL 1.3 / AIDL IDevice): what the runtime calls and
// every device (the accelerator driver, the CPU reference device) implements.
#pragma once

#include <unistd.h>

#include <array>
#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "weft/nn/Result.h"
#include "weft/nn/Types.h"

namespace weft::hal {

using nn::Result;
using TimePoint = std::chrono::steady_clock::time_point;
using OptionalTimePoint = std::optional<TimePoint>;
using OptionalDuration = std::optional<std::chrono::nanoseconds>;

class IPreparedModel;
class IBuffer;
using SharedPreparedModel = std::shared_ptr<const IPreparedModel>;
using SharedBuffer = std::shared_ptr<const IBuffer>;

// One compilation-cache file the runtime opened for a device (NN HAL's cache handle): read-write
// when the device compiles (it rewrites the file whole), read-only when it restores from it.
class CacheFile {
 public:
  explicit CacheFile(int fd) : fd_(fd) {}
  ~CacheFile() { close(fd_); }
  CacheFile(const CacheFile&) = delete;
  CacheFile& operator=(const CacheFile&) = delete;
  int fd() const { return fd_; }

 private:
  int fd_;
};
using SharedCacheFile = std::shared_ptr<const CacheFile>;

// Identifies a model in a cache (NN HAL's cache token): the runtime derives it from the client's
// token and the model itself, so that no two models share one.
using CacheToken = std::array<uint8_t, 32>;

// How many cache files of each kind a device wants for one compilation (NN HAL
// getNumberOfCacheFilesNeeded): model-cache files hold the compiled model, data-cache files its
// constants. None of either: the device keeps no cache through the runtime.
struct NumberOfCacheFiles {
  uint32_t modelCache = 0;
  uint32_t dataCache = 0;
};

// Where a device may keep what it learnt compiling a model, for a later compilation of the same
// model (ANeuralNetworksCompilation_setCaching), one per partition of the model. A device that
// asks for cache files (getNumberOfCacheFilesNeeded) gets them opened for writing, with the token
// they are for, and saves its prepared model there; one that asks for none may keep files of its
// own in `dir`, named after `key`. Either must reject whatever it cannot trust and compile afresh.
struct CacheRequest {
  std::string dir;
  std::string key;  // hex digits and '-', safe in a file name
  std::vector<SharedCacheFile> modelCache;
  std::vector<SharedCacheFile> dataCache;
  CacheToken token{};
};

struct PerformanceInfo {
  float execTime = 1.0f;    // relative to the CPU reference; lower is faster
  float powerUsage = 1.0f;
};

struct Capabilities {
  PerformanceInfo relaxedFloat32toFloat16PerformanceScalar;
  PerformanceInfo relaxedFloat32toFloat16PerformanceTensor;
  std::vector<std::pair<nn::OperandType, PerformanceInfo>> operandPerformance;
  PerformanceInfo ifPerformance;
  PerformanceInfo whilePerformance;
};

// The role of a memory allocated on a device (ANeuralNetworksMemoryDesc).
struct BufferRole {
  uint32_t modelIndex = 0;  // index into the preparedModels list of allocate()
  uint32_t ioIndex = 0;     // input or output index of that model
  float probability = 1.0f;
};
struct BufferDesc {
  nn::Dimensions dimensions;
};

class IDevice {
 public:
  virtual ~IDevice() = default;

  virtual const std::string& getName() const = 0;
  virtual const std::string& getVersionString() const = 0;
  virtual int64_t getFeatureLevel() const = 0;
  virtual nn::DeviceType getType() const = 0;
  virtual const Capabilities& getCapabilities() const = 0;

  // The vendor extensions the device supports (NN HAL getSupportedExtensions): names and operand
  // types. The runtime hands out types of an extension only when a device declares it, and asks
  // getSupportedOperations about extension operations (types with a prefix, resolved through
  // model.extensionNameToPrefix) like about any other. A device declaring none keeps the default.
  virtual const std::vector<nn::Extension>& getSupportedExtensions() const {
    static const std::vector<nn::Extension> kNone;
    return kNone;
  }

  // One flag per operation of model.main, in order: can this device run it?
  virtual Result<std::vector<bool>> getSupportedOperations(const nn::Model& model) const = 0;

  // Why the device declines operations of model.main (their indexes, in model order), where it
  // can say: weft's addition to the HAL, for reports that tell a user why an operation stayed on
  // another device. A device that cannot say keeps the default (no reasons).
  virtual Result<std::map<uint32_t, std::string>> getUnsupportedReasons(const nn::Model& /*model*/) const {
    return std::map<uint32_t, std::string>{};
  }

  // Compiles `model` (every operation supported). The model is self-contained: constants are
  // in operandValues or pools. With `cache`, also saves what a later compilation may restore.
  virtual Result<SharedPreparedModel> prepareModel(const nn::Model& model,
                                                   nn::ExecutionPreference preference,
                                                   nn::Priority priority,
                                                   const OptionalTimePoint& deadline,
                                                   const std::optional<CacheRequest>& cache) const = 0;

  // See NumberOfCacheFiles; the default keeps no cache through the runtime.
  virtual NumberOfCacheFiles getNumberOfCacheFilesNeeded() const { return {}; }

  // Restores the prepared model a previous prepareModel saved in `modelCache` and `dataCache` for
  // `token` (NN HAL prepareModelFromCache). Anything the device cannot trust, a file altered,
  // truncated, swapped or made for another token, is an error, never a crash or another model:
  // the runtime then compiles the model afresh.
  virtual Result<SharedPreparedModel> prepareModelFromCache(const OptionalTimePoint& /*deadline*/,
                                                            const std::vector<SharedCacheFile>& /*modelCache*/,
                                                            const std::vector<SharedCacheFile>& /*dataCache*/,
                                                            const CacheToken& /*token*/) const {
    return NN_ERROR(OP_FAILED) << getName() << " restores no prepared model from a cache";
  }

  // Device memory for the given roles (ANeuralNetworksMemory_createFromDesc); devices that
  // have none return GENERAL_FAILURE-like OP_FAILED and the runtime falls back to host memory.
  virtual Result<SharedBuffer> allocate(const BufferDesc& desc,
                                        const std::vector<SharedPreparedModel>& preparedModels,
                                        const std::vector<BufferRole>& inputRoles,
                                        const std::vector<BufferRole>& outputRoles) const = 0;
};
using SharedDevice = std::shared_ptr<const IDevice>;

}  // namespace weft::hal
