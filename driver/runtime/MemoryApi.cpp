// The ANeuralNetworksMemory_* and ANeuralNetworksMemoryDesc_* entry points.
#include "CompilationBuilder.h"
#include "Errors.h"
#include "Handles.h"
#include "Memory.h"
#include "MemoryDescBuilder.h"
#include "OperandTypes.h"

using namespace weft::runtime;
using weft::nn::Status;

namespace {

int addRole(const char* function, ANeuralNetworksMemoryDesc* desc, const ANeuralNetworksCompilation* compilation,
            uint32_t index, float frequency, IoType io) {
  if (desc == nullptr) return reportNull(function, "desc");
  if (compilation == nullptr) return reportNull(function, "compilation");
  return guarded(function, [&]() -> int {
    return toResultCode(function, fromHandle(desc)->addRole(*fromHandle(compilation), io, index, frequency));
  });
}

}  // namespace

extern "C" {

int ANeuralNetworksMemoryDesc_create(ANeuralNetworksMemoryDesc** desc) {
  if (desc == nullptr) return reportNull(__func__, "desc");
  *desc = nullptr;
  return guarded(__func__, [&, function = __func__]() -> int {
    *desc = toHandle(new MemoryDescBuilder());
    return ANEURALNETWORKS_NO_ERROR;
  });
}

void ANeuralNetworksMemoryDesc_free(ANeuralNetworksMemoryDesc* desc) { delete fromHandle(desc); }

int ANeuralNetworksMemoryDesc_addInputRole(ANeuralNetworksMemoryDesc* desc, const ANeuralNetworksCompilation* compilation,
                                           uint32_t index, float frequency) {
  return addRole(__func__, desc, compilation, index, frequency, IoType::kInput);
}

int ANeuralNetworksMemoryDesc_addOutputRole(ANeuralNetworksMemoryDesc* desc,
                                            const ANeuralNetworksCompilation* compilation, uint32_t index,
                                            float frequency) {
  return addRole(__func__, desc, compilation, index, frequency, IoType::kOutput);
}

int ANeuralNetworksMemoryDesc_setDimensions(ANeuralNetworksMemoryDesc* desc, uint32_t rank,
                                            const uint32_t* dimensions) {
  if (desc == nullptr) return reportNull(__func__, "desc");
  if (dimensions == nullptr && rank != 0) return reportNull(__func__, "dimensions");
  return guarded(__func__, [&, function = __func__]() -> int {
    const weft::nn::Dimensions dims = rank == 0 ? weft::nn::Dimensions{} : weft::nn::Dimensions(dimensions, dimensions + rank);
    return toResultCode(function, fromHandle(desc)->setDimensions(dims));
  });
}

int ANeuralNetworksMemoryDesc_finish(ANeuralNetworksMemoryDesc* desc) {
  if (desc == nullptr) return reportNull(__func__, "desc");
  return toResultCode(__func__, fromHandle(desc)->finish());
}

int ANeuralNetworksMemory_createFromDesc(const ANeuralNetworksMemoryDesc* desc, ANeuralNetworksMemory** memory) {
  if (memory != nullptr) *memory = nullptr;
  if (desc == nullptr) return reportNull(__func__, "desc");
  if (memory == nullptr) return reportNull(__func__, "memory");
  return guarded(__func__, [&, function = __func__]() -> int {
    const MemoryDescBuilder& d = *fromHandle(desc);
    if (!d.isFinished()) return reportError(function, NN_ERROR(BAD_STATE) << "the memory descriptor is not finished");
    weft::nn::Result<std::unique_ptr<RuntimeMemory>> created = RuntimeMemory::createFromDescription(d.description());
    if (!created.ok()) return reportError(function, created.error());
    *memory = toHandle(std::move(created).value().release());
    return ANEURALNETWORKS_NO_ERROR;
  });
}

int ANeuralNetworksMemory_createFromFd(size_t size, int protect, int fd, size_t offset, ANeuralNetworksMemory** memory) {
  if (memory != nullptr) *memory = nullptr;
  if (memory == nullptr) return reportNull(__func__, "memory");
  return guarded(__func__, [&, function = __func__]() -> int {
    weft::nn::Result<std::unique_ptr<RuntimeMemory>> created = RuntimeMemory::createFromFd(size, protect, fd, offset);
    if (!created.ok()) return reportError(function, created.error());
    *memory = toHandle(std::move(created).value().release());
    return ANEURALNETWORKS_NO_ERROR;
  });
}

int ANeuralNetworksMemory_createFromAHardwareBuffer(const AHardwareBuffer* ahwb, ANeuralNetworksMemory** memory) {
  if (memory != nullptr) *memory = nullptr;
  if (ahwb == nullptr) return reportNull(__func__, "ahwb");
  if (memory == nullptr) return reportNull(__func__, "memory");
  return reportError(__func__, NN_ERROR(BAD_DATA) << "AHardwareBuffer does not exist on Linux; use "
                                                  << "ANeuralNetworksMemory_createFromFd");
}

int ANeuralNetworksMemory_copy(const ANeuralNetworksMemory* src, const ANeuralNetworksMemory* dst) {
  if (src == nullptr) return reportNull(__func__, "src");
  if (dst == nullptr) return reportNull(__func__, "dst");
  return guarded(__func__, [&, function = __func__]() -> int { return toResultCode(function, RuntimeMemory::copy(*fromHandle(src), *fromHandle(dst))); });
}

void ANeuralNetworksMemory_free(ANeuralNetworksMemory* memory) { delete fromHandle(memory); }

}  // extern "C"
