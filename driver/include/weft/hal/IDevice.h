// The device interface of the HAL (as NN HAL 1.3 / AIDL IDevice): what the runtime calls and
// every device (the accelerator driver, the CPU reference device) implements.
#pragma once

#include <chrono>
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

// Where a device may keep what it learnt compiling a model, for a later compilation of the same
// model (ANeuralNetworksCompilation_setCaching): a directory and a key the runtime makes from
// the client's token, one per partition of the model. A device that keeps nothing ignores it;
// one that keeps something must reject whatever it cannot trust and compile afresh.
struct CacheRequest {
  std::string dir;
  std::string key;  // hex digits and '-', safe in a file name
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

  // One flag per operation of model.main, in order: can this device run it?
  virtual Result<std::vector<bool>> getSupportedOperations(const nn::Model& model) const = 0;

  // Compiles `model` (every operation supported). The model is self-contained: constants are
  // in operandValues or pools.
  virtual Result<SharedPreparedModel> prepareModel(const nn::Model& model,
                                                   nn::ExecutionPreference preference,
                                                   nn::Priority priority,
                                                   const OptionalTimePoint& deadline,
                                                   const std::optional<CacheRequest>& cache) const = 0;

  // Device memory for the given roles (ANeuralNetworksMemory_createFromDesc); devices that
  // have none return GENERAL_FAILURE-like OP_FAILED and the runtime falls back to host memory.
  virtual Result<SharedBuffer> allocate(const BufferDesc& desc,
                                        const std::vector<SharedPreparedModel>& preparedModels,
                                        const std::vector<BufferRole>& inputRoles,
                                        const std::vector<BufferRole>& outputRoles) const = 0;
};
using SharedDevice = std::shared_ptr<const IDevice>;

}  // namespace weft::hal
