// The CPU reference device, as the NN HAL sample driver's IDevice: capabilities, supported
// operations and model preparation.
#include "weft/cpu/CpuDevice.h"

#include <memory>
#include <set>
#include <thread>

#include "CpuCompilationCache.h"
#include "CpuPreparedModel.h"
#include "weft/kernels/CpuExecutor.h"
#include "weft/kernels/Extensions.h"
#include "weft/kernels/OperationResolver.h"

namespace weft::cpu {
namespace {

using nn::Model;
using nn::OperationType;
using nn::Subgraph;

// An operation is supported when it has a registration; IF and WHILE also need every
// operation of the subgraphs they may run. `visiting` stops at subgraphs already being checked
// (a subgraph referenced twice is checked once).
bool isSubgraphSupported(const Model& model, const Subgraph& subgraph, std::set<const Subgraph*>& visiting);

bool isOperationSupported(const Model& model, const Subgraph& subgraph, const nn::Operation& operation,
                          std::set<const Subgraph*>& visiting) {
  if (nn::OperationResolver::get().find(model, operation.type) == nullptr) return false;
  // The runtime validates base operations as they are added but cannot judge extension ones:
  // the device does, so an invalid one is unsupported.
  if (nn::isExtension(operation.type)) return nn::validateOperation(model, subgraph, operation).ok();
  if (operation.type != OperationType::IF && operation.type != OperationType::WHILE) return true;
  for (uint32_t input : operation.inputs) {
    if (input >= subgraph.operands.size()) return false;
    const nn::Operand& operand = subgraph.operands[input];
    if (operand.lifetime != nn::Operand::LifeTime::SUBGRAPH) continue;
    if (operand.location.offset >= model.referenced.size()) return false;
    if (!isSubgraphSupported(model, model.referenced[operand.location.offset], visiting)) return false;
  }
  return true;
}

bool isSubgraphSupported(const Model& model, const Subgraph& subgraph, std::set<const Subgraph*>& visiting) {
  if (!visiting.insert(&subgraph).second) return true;
  for (const nn::Operation& operation : subgraph.operations) {
    if (!isOperationSupported(model, subgraph, operation, visiting)) return false;
  }
  return true;
}

class CpuDevice final : public hal::IDevice {
 public:
  // One execution slot per core (CpuExecutionScheduler.h).
  CpuDevice() : scheduler_(std::make_shared<CpuExecutionScheduler>(std::thread::hardware_concurrency())) {}

  const std::string& getName() const override { return name_; }
  const std::string& getVersionString() const override { return version_; }
  int64_t getFeatureLevel() const override { return nn::kFeatureLevel8; }
  nn::DeviceType getType() const override { return nn::DeviceType::CPU; }
  const hal::Capabilities& getCapabilities() const override { return capabilities_; }
  // Every extension the reference kernels implement (org.weft.accel).
  const std::vector<nn::Extension>& getSupportedExtensions() const override { return nn::referenceExtensions(); }

  nn::Result<std::vector<bool>> getSupportedOperations(const Model& model) const override {
    std::vector<bool> supported;
    supported.reserve(model.main.operations.size());
    for (const nn::Operation& operation : model.main.operations) {
      std::set<const Subgraph*> visiting{&model.main};
      supported.push_back(isOperationSupported(model, model.main, operation, visiting));
    }
    return supported;
  }

  nn::Result<hal::SharedPreparedModel> prepareModel(const Model& model, nn::ExecutionPreference preference,
                                                    nn::Priority priority,
                                                    const hal::OptionalTimePoint& deadline,
                                                    const std::optional<hal::CacheRequest>& cache) const override {
    if (deadline.has_value() && std::chrono::steady_clock::now() > *deadline) {
      return NN_ERROR(MISSED_DEADLINE_PERSISTENT) << "weft-cpu: the compilation deadline has passed";
    }
    std::set<const Subgraph*> visiting;
    if (!isSubgraphSupported(model, model.main, visiting)) {
      return NN_ERROR(BAD_DATA) << "weft-cpu: the model has an operation without a reference kernel";
    }
    CpuPreparation preparation{preference, priority, false};
    if (preference == nn::ExecutionPreference::SUSTAINED_SPEED) {
      // Sustained speed: validate once now, so that no execution does it again.
      if (nn::Status valid = nn::validateModel(model); !valid.ok()) {
        return NN_ERROR(BAD_DATA) << "weft-cpu: " << valid.error().message;
      }
      preparation.modelValidated = true;
    }
    if (cache.has_value() && !cache->modelCache.empty()) {
      // Best effort: a cache that cannot be written only costs the next compilation its time.
      (void)saveToCache(CachedModel{model, preference, priority}, *cache);
    }
    return hal::SharedPreparedModel(std::make_shared<CpuPreparedModel>(model, name_, preparation, scheduler_));
  }

  hal::NumberOfCacheFiles getNumberOfCacheFilesNeeded() const override { return kCpuCacheFiles; }

  nn::Result<hal::SharedPreparedModel> prepareModelFromCache(const hal::OptionalTimePoint& deadline,
                                                             const std::vector<hal::SharedCacheFile>& modelCache,
                                                             const std::vector<hal::SharedCacheFile>& dataCache,
                                                             const hal::CacheToken& token) const override {
    if (deadline.has_value() && std::chrono::steady_clock::now() > *deadline) {
      return NN_ERROR(MISSED_DEADLINE_PERSISTENT) << "weft-cpu: the compilation deadline has passed";
    }
    nn::Result<CachedModel> cached = loadFromCache(modelCache, dataCache, token);
    if (!cached.ok()) return NN_ERROR(BAD_DATA) << "weft-cpu: " << cached.error().message;
    // The files were intact, yet what they hold is checked like any model a client gives.
    std::set<const Subgraph*> visiting;
    if (!isSubgraphSupported(cached->model, cached->model.main, visiting)) {
      return NN_ERROR(BAD_DATA) << "weft-cpu: the cached model has an operation without a reference kernel";
    }
    if (nn::Status valid = nn::validateModel(cached->model); !valid.ok()) {
      return NN_ERROR(BAD_DATA) << "weft-cpu: the cached model is invalid: " << valid.error().message;
    }
    const CpuPreparation preparation{cached->preference, cached->priority, true};
    return hal::SharedPreparedModel(
        std::make_shared<CpuPreparedModel>(std::move(cached->model), name_, preparation, scheduler_));
  }

  nn::Result<hal::SharedBuffer> allocate(const hal::BufferDesc&, const std::vector<hal::SharedPreparedModel>&,
                                         const std::vector<hal::BufferRole>&,
                                         const std::vector<hal::BufferRole>&) const override {
    // The CPU works on host memory; the runtime allocates that itself.
    return NN_ERROR(OP_FAILED) << "weft-cpu has no device memory";
  }

 private:
  std::string name_ = kCpuDeviceName;
  std::string version_ = "weft-cpu-1.0";
  hal::Capabilities capabilities_;  // the reference: 1.0 for everything
  std::shared_ptr<CpuExecutionScheduler> scheduler_;
};

}  // namespace

hal::SharedDevice createCpuDevice() { return std::make_shared<CpuDevice>(); }

}  // namespace weft::cpu
