#include "Device.h"

#include <fmt/format.h>

#include <cfloat>
#include <cstdio>
#include <cstdlib>

#include "ExecutionParameters.h"
#include "ModelCompiler.h"
#include "DeviceBuffer.h"
#include "PreparedModel.h"
#include "PreparedModelCache.h"
#include "weft/kernels/Extensions.h"

namespace weft::accel {

nn::Result<std::shared_ptr<Device>> Device::create(std::unique_ptr<sim::IDeviceBackend> backend) {
  auto queue = DeviceQueue::create(std::move(backend));
  if (!queue.ok()) return queue.error();
  return std::shared_ptr<Device>(new Device(std::move(queue).value()));
}

Device::Device(std::shared_ptr<DeviceQueue> queue) : queue_(std::move(queue)) {
  const auto& c = queue_->config();
  version_ = fmt::format("weft-accel 1.0 ({} backend, {} configuration: {}x{} array at {} MHz)",
                         sim::toString(queue_->backend().kind()), c.name(), c.rows(), c.cols(), c.clockMHz());
  // Relative to the CPU reference: quantized GEMMs are what the array is for; with the fp16
  // datapath (Fp16) float16 convolutions too, and float32 ones where the model allows them to be
  // computed in float16 (relaxed); no other float work runs here.
  const hal::PerformanceInfo fast{0.1f, 0.1f}, none{FLT_MAX, FLT_MAX};
  const hal::PerformanceInfo half = c.fp16() ? fast : none;
  capabilities_.relaxedFloat32toFloat16PerformanceScalar = half;
  capabilities_.relaxedFloat32toFloat16PerformanceTensor = half;
  capabilities_.ifPerformance = none;
  capabilities_.whilePerformance = none;
  for (auto t : {nn::OperandType::TENSOR_QUANT8_ASYMM, nn::OperandType::TENSOR_QUANT8_ASYMM_SIGNED,
                 nn::OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL, nn::OperandType::TENSOR_INT32,
                 nn::OperandType::INT32, nn::OperandType::BOOL}) {
    capabilities_.operandPerformance.emplace_back(t, fast);
  }
  for (auto t : {nn::OperandType::FLOAT16, nn::OperandType::TENSOR_FLOAT16}) {
    capabilities_.operandPerformance.emplace_back(t, half);
  }
  for (auto t : {nn::OperandType::FLOAT32, nn::OperandType::TENSOR_FLOAT32}) {
    capabilities_.operandPerformance.emplace_back(t, none);
  }
}

const std::vector<nn::Extension>& Device::getSupportedExtensions() const {
  static const std::vector<nn::Extension> kExtensions = [] {
    std::vector<nn::Extension> ours;
    for (const nn::Extension& e : nn::referenceExtensions()) {
      if (e.name == nn::weft_extension::kName) ours.push_back(e);
    }
    return ours;
  }();
  return kExtensions;
}

nn::Result<std::vector<bool>> Device::getSupportedOperations(const nn::Model& model) const {
  return supportedOperations(model, queue_->config(), nullptr);
}

nn::Result<std::map<uint32_t, std::string>> Device::getUnsupportedReasons(const nn::Model& model) const {
  std::map<uint32_t, std::string> reasons;
  (void)supportedOperations(model, queue_->config(), &reasons);
  return reasons;
}

nn::Result<hal::SharedPreparedModel> Device::prepareModel(const nn::Model& model, nn::ExecutionPreference preference,
                                                          nn::Priority priority, const hal::OptionalTimePoint& deadline,
                                                          const std::optional<hal::CacheRequest>& cache) const {
  if (deadline && std::chrono::steady_clock::now() > *deadline) {
    return NN_ERROR(MISSED_DEADLINE_PERSISTENT) << "the preparation deadline has passed";
  }
  std::map<uint32_t, std::string> reasons;
  const auto supported = supportedOperations(model, queue_->config(), &reasons);
  for (size_t i = 0; i < supported.size(); ++i) {
    if (!supported[i]) {
      return NN_ERROR(BAD_DATA) << "operation " << i << " cannot run on the accelerator: " << reasons[i];
    }
  }
  if (!executionParameters(model).empty()) {  // compiled by each execution (ExecutionParameters.h)
    if (cache.has_value() && !cache->modelCache.empty()) {
      // The cache holds the model itself; best effort, as below.
      auto image = captureModelForCache(model, priority, preference, queue_->config());
      const nn::Status saved = image.ok() ? writeCache(*image, *cache) : nn::Status(image.error());
      if (!saved.ok() && std::getenv("WEFT_ACCEL_TRACE_TILING") != nullptr) {
        std::fprintf(stderr, "[cache] the model was not saved: %s\n", saved.error().message.c_str());
      }
    }
    return std::static_pointer_cast<const hal::IPreparedModel>(
        std::make_shared<PreparedModel>(queue_, model, nullptr, priority, preference));
  }
  // A cache gives the tilings (CompilationCache.h); one that cannot be trusted is ignored, and
  // rewritten with what this compilation chooses.
  std::optional<TilingChoices> cached;
  std::string cachePath, rejected;
  if (cache.has_value()) {
    cachePath = cacheFilePath(*cache);
    cached = readTilingCache(cachePath, &rejected);
  }
  std::shared_ptr<CompiledModel> compiled;
  // Not on the timing backend: it leaves constant images unwritten (compileModel), and a cache of
  // them would give a backend that computes data wrong weights under the same token.
  const bool cacheFiles = cache.has_value() && !cache->modelCache.empty() &&
                          sim::computesData(queue_->backend().kind());
  nn::Result<CacheImage> image = NN_ERROR(OP_FAILED) << "not captured";
  {
    // compileModel takes the device's lock only to place and write DRAM: compilations run
    // side by side, and beside executions.
    auto c = compileModel(model, *queue_, cached ? &*cached : nullptr, deadline, preference);
    if (!c.ok()) return c.error();
    compiled = std::make_shared<CompiledModel>(std::move(c).value());
    // The device images as compiled, read back before any execution of this model can change
    // them (no other model's execution writes its regions).
    if (cacheFiles) {
      std::lock_guard<std::mutex> lock(queue_->mutex());
      image = captureForCache(*compiled, model, priority, *queue_);
    }
  }
  if (cacheFiles) {
    // Best effort: a cache that cannot be written only costs the next compilation its time.
    const nn::Status saved = image.ok() ? writeCache(*image, *cache) : nn::Status(image.error());
    if (!saved.ok() && std::getenv("WEFT_ACCEL_TRACE_TILING") != nullptr) {
      std::fprintf(stderr, "[cache] the prepared model was not saved: %s\n", saved.error().message.c_str());
    }
  }
  if (cache.has_value() && !compiled->tilingsFromCache) {
    if (cached.has_value()) rejected = "made for other layers or another configuration, or names no candidate";
    const bool written = writeTilingCache(cachePath, compiled->tilings);
    if (std::getenv("WEFT_ACCEL_TRACE_TILING") != nullptr) {
      std::fprintf(stderr, "[cache] %s: not used (%s); %s\n", cachePath.c_str(), rejected.c_str(),
                   written ? "written anew" : "cannot be written");
    }
  }
  return std::static_pointer_cast<const hal::IPreparedModel>(
      std::make_shared<PreparedModel>(queue_, model, std::move(compiled), priority, preference));
}

hal::NumberOfCacheFiles Device::getNumberOfCacheFilesNeeded() const { return kAcceleratorCacheFiles; }

nn::Result<hal::SharedPreparedModel> Device::prepareModelFromCache(const hal::OptionalTimePoint& deadline,
                                                                   const std::vector<hal::SharedCacheFile>& modelCache,
                                                                   const std::vector<hal::SharedCacheFile>& dataCache,
                                                                   const hal::CacheToken& token) const {
  if (deadline && std::chrono::steady_clock::now() > *deadline) {
    return NN_ERROR(MISSED_DEADLINE_PERSISTENT) << "the preparation deadline has passed";
  }
  // Read and checked off the device; only placing it needs the device.
  auto parsed = readCache(modelCache, dataCache, token, queue_->config());
  if (!parsed.ok()) return NN_ERROR(BAD_DATA) << "weft-accel: " << parsed.error().message;
  if (const CachedModel* cached = perExecutionModel(**parsed)) {
    return std::static_pointer_cast<const hal::IPreparedModel>(
        std::make_shared<PreparedModel>(queue_, cached->model, nullptr, cached->priority, cached->preference));
  }
  nn::Result<RestoredPreparation> restored = NN_ERROR(OP_FAILED) << "not placed";
  {
    std::lock_guard<std::mutex> lock(queue_->mutex());
    restored = placeCache(**parsed, *queue_);
  }
  if (!restored.ok()) return nn::Error{restored.error().code, "weft-accel: " + restored.error().message};
  auto compiled = std::make_shared<const CompiledModel>(std::move(restored->compiled));
  return std::static_pointer_cast<const hal::IPreparedModel>(std::make_shared<PreparedModel>(
      queue_, std::move(restored->inputs), std::move(restored->outputs), std::move(compiled), restored->priority));
}

nn::Result<hal::SharedBuffer> Device::allocate(const hal::BufferDesc& desc,
                                               const std::vector<hal::SharedPreparedModel>& preparedModels,
                                               const std::vector<hal::BufferRole>& inputRoles,
                                               const std::vector<hal::BufferRole>& outputRoles) const {
  // Every role names an input or output of a model prepared here (compiled once, not per
  // execution) whose tensor the device keeps; they all agree on the tensor. The buffer takes the
  // layout of the first role's tensor, input roles first (DeviceBuffer.h): the one a chain's
  // consumer reads in place.
  if (inputRoles.empty() && outputRoles.empty()) return NN_ERROR(BAD_DATA) << "a device buffer needs a role";
  std::optional<TensorLayout> layout;
  for (const auto* roles : {&inputRoles, &outputRoles}) {
    const bool input = roles == &inputRoles;
    for (const hal::BufferRole& role : *roles) {
      if (role.modelIndex >= preparedModels.size()) {
        return NN_ERROR(BAD_DATA) << "a role names prepared model " << role.modelIndex << " of "
                                  << preparedModels.size();
      }
      const auto* prepared = dynamic_cast<const PreparedModel*>(preparedModels[role.modelIndex].get());
      if (prepared == nullptr || prepared->queue() != queue_ || !prepared->isCompiled()) {
        return NN_ERROR(BAD_DATA) << "a role's model was not prepared on weft-accel, or is compiled per execution";
      }
      const auto& operands = input ? prepared->inputOperands() : prepared->outputOperands();
      if (role.ioIndex >= operands.size()) {
        return NN_ERROR(BAD_DATA) << "a role names " << (input ? "input " : "output ") << role.ioIndex << " of "
                                  << operands.size();
      }
      auto tensor = prepared->compiled().tensors.find(operands[role.ioIndex]);
      if (tensor == prepared->compiled().tensors.end()) {
        return NN_ERROR(BAD_DATA) << "a role's input is read by no operation of its model";
      }
      const TensorLayout& t = tensor->second.layout;
      if (layout && (layout->type != t.type || layout->zeroPoint != t.zeroPoint || layout->dims != t.dims)) {
        return NN_ERROR(BAD_DATA) << "the roles disagree on the tensor's type or dimensions";
      }
      if (!layout) layout = t;
    }
  }
  const auto& dims = desc.dimensions;
  bool compatible = dims.empty() || dims.size() == layout->dims.size();
  for (size_t d = 0; compatible && d < dims.size(); ++d) compatible = dims[d] == 0 || dims[d] == layout->dims[d];
  if (!compatible) return NN_ERROR(BAD_DATA) << "the descriptor's dimensions are not the roles'";
  std::lock_guard<std::mutex> lock(queue_->mutex());
  auto buffer = DeviceBuffer::create(queue_, *layout);
  if (!buffer.ok()) return buffer.error();
  return std::static_pointer_cast<const hal::IBuffer>(std::move(buffer).value());
}

}  // namespace weft::accel
