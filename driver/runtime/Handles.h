// The C API's opaque handles are the runtime's objects.
#pragma once

#include "android/NeuralNetworks.h"

namespace weft::runtime {

class ModelBuilder;
class CompilationBuilder;
class ExecutionBuilder;
class BurstBuilder;
class RuntimeMemory;
class MemoryDescBuilder;
class Event;
class Device;

inline ModelBuilder* fromHandle(ANeuralNetworksModel* h) { return reinterpret_cast<ModelBuilder*>(h); }
inline const ModelBuilder* fromHandle(const ANeuralNetworksModel* h) { return reinterpret_cast<const ModelBuilder*>(h); }
inline ANeuralNetworksModel* toHandle(ModelBuilder* p) { return reinterpret_cast<ANeuralNetworksModel*>(p); }

inline CompilationBuilder* fromHandle(ANeuralNetworksCompilation* h) { return reinterpret_cast<CompilationBuilder*>(h); }
inline const CompilationBuilder* fromHandle(const ANeuralNetworksCompilation* h) {
  return reinterpret_cast<const CompilationBuilder*>(h);
}
inline ANeuralNetworksCompilation* toHandle(CompilationBuilder* p) {
  return reinterpret_cast<ANeuralNetworksCompilation*>(p);
}

inline ExecutionBuilder* fromHandle(ANeuralNetworksExecution* h) { return reinterpret_cast<ExecutionBuilder*>(h); }
inline const ExecutionBuilder* fromHandle(const ANeuralNetworksExecution* h) {
  return reinterpret_cast<const ExecutionBuilder*>(h);
}
inline ANeuralNetworksExecution* toHandle(ExecutionBuilder* p) { return reinterpret_cast<ANeuralNetworksExecution*>(p); }

inline BurstBuilder* fromHandle(ANeuralNetworksBurst* h) { return reinterpret_cast<BurstBuilder*>(h); }
inline ANeuralNetworksBurst* toHandle(BurstBuilder* p) { return reinterpret_cast<ANeuralNetworksBurst*>(p); }

inline RuntimeMemory* fromHandle(ANeuralNetworksMemory* h) { return reinterpret_cast<RuntimeMemory*>(h); }
inline const RuntimeMemory* fromHandle(const ANeuralNetworksMemory* h) { return reinterpret_cast<const RuntimeMemory*>(h); }
inline ANeuralNetworksMemory* toHandle(RuntimeMemory* p) { return reinterpret_cast<ANeuralNetworksMemory*>(p); }

inline MemoryDescBuilder* fromHandle(ANeuralNetworksMemoryDesc* h) { return reinterpret_cast<MemoryDescBuilder*>(h); }
inline const MemoryDescBuilder* fromHandle(const ANeuralNetworksMemoryDesc* h) {
  return reinterpret_cast<const MemoryDescBuilder*>(h);
}
inline ANeuralNetworksMemoryDesc* toHandle(MemoryDescBuilder* p) { return reinterpret_cast<ANeuralNetworksMemoryDesc*>(p); }

inline Event* fromHandle(ANeuralNetworksEvent* h) { return reinterpret_cast<Event*>(h); }
inline const Event* fromHandle(const ANeuralNetworksEvent* h) { return reinterpret_cast<const Event*>(h); }
inline ANeuralNetworksEvent* toHandle(Event* p) { return reinterpret_cast<ANeuralNetworksEvent*>(p); }

inline const Device* fromHandle(const ANeuralNetworksDevice* h) { return reinterpret_cast<const Device*>(h); }
inline ANeuralNetworksDevice* toHandle(const Device* p) {
  return reinterpret_cast<ANeuralNetworksDevice*>(const_cast<Device*>(p));
}

}  // namespace weft::runtime
