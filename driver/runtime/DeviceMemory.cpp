#include "DeviceMemory.h"

#include <map>

#include "CompilationBuilder.h"
#include "weft/hal/IBuffer.h"

namespace weft::runtime {

nn::SharedMemory allocateOnDevice(const MemoryDescription& description, size_t bytes) {
  const Device* device = nullptr;
  std::vector<hal::SharedPreparedModel> models;
  std::map<const CompilationBuilder*, uint32_t> modelIndex;
  std::vector<hal::BufferRole> inputs, outputs;
  for (const MemoryRole& role : description.roles) {
    const auto& steps = role.compilation->plan().steps();
    if (steps.size() != 1) return nullptr;  // the tensor would cross steps: keep it on the host
    const ExecutionStep& step = steps.front();
    if (device != nullptr && step.device != device) return nullptr;
    device = step.device;
    auto [it, added] = modelIndex.try_emplace(role.compilation, static_cast<uint32_t>(models.size()));
    if (added) models.push_back(step.preparedModel);
    // The role's index among the client model's inputs or outputs -> the step's.
    const auto& operands = role.io == IoType::kInput ? step.inputs : step.outputs;
    std::optional<uint32_t> ioIndex;
    for (uint32_t i = 0; i < operands.size(); ++i) {
      const auto& position = role.io == IoType::kInput ? operands[i].mainInput : operands[i].mainOutput;
      if (position == role.index) ioIndex = i;
    }
    if (!ioIndex) return nullptr;
    (role.io == IoType::kInput ? inputs : outputs).push_back(hal::BufferRole{it->second, *ioIndex, 1.0f});
  }
  if (device == nullptr) return nullptr;
  auto buffer = device->hal()->allocate(hal::BufferDesc{description.dimensions}, models, inputs, outputs);
  if (!buffer.ok() || buffer.value() == nullptr) return nullptr;  // e.g. the CPU device: host memory
  nn::SharedMemory memory = buffer.value()->asMemory();
  return memory != nullptr && memory->size() == bytes ? memory : nullptr;
}

}  // namespace weft::runtime
