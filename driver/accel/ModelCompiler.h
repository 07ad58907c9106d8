// Preparation: a model -> everything an execution needs on the device, as a pipeline of passes
// over one CompilationState (passes/CompilationState.h):
//
//   1. lowerModel       (passes/Lower.h)         operations -> layers, in dependency order
//   2. layoutModel      (passes/Layout.h)        every tensor's layout in DRAM; lowering that
//                                                depends on it
//   3. searchTilings    (passes/SearchTilings.h) each array layer's tiling (TilingSearch.h)
//   4. placeInDram      (passes/PlaceInDram.h)   tensors, snapshots and constant images placed
//                                                and written, under the device's lock
//   5. emitProgram      (passes/EmitProgram.h)   each layer's commands, closed by a snapshot
//                                                barrier; costOperations (passes/Costing.h)
//   6. scheduleProgram  (passes/Schedule.h)      tokens, ring order, the watchdog's budget
//
// Weights, parameter rows and the zero-point halos are written to DRAM once, by pass 4.
// WEFT_ACCEL_TRACE_TILING=1 prints every tiling candidate and its scheduled estimate to stderr.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "CompilationCache.h"
#include "CompileOptions.h"
#include "DeviceQueue.h"
#include "MemoryPlan.h"
#include "passes/Costing.h"
#include "passes/PlaceInDram.h"
#include "weft/nn/Result.h"
#include "weft/nn/Types.h"

namespace weft::accel {

struct CompiledModel {
  std::map<uint32_t, PlacedTensor> tensors;
  std::vector<SharedRegion> constants;  // weights and parameter rows
  std::vector<uint8_t> program;          // encoded commands, ring order
  SharedRegion snapshots;                // 1 + operations snapshot records
  std::vector<CompiledOperation> operations;  // in program order
  double estimatedCycles = 0;
  uint64_t watchdogCycles = 0;
  // Position in `operations` of the first operation reading / the one writing each tensor.
  std::map<uint32_t, size_t> firstReader, producer;
  TilingChoices tilings;          // what this compilation chose, for a compilation cache
  bool tilingsFromCache = false;  // every layer's tiling was replayed rather than searched for

  uint64_t commandCount() const { return program.size() / hw::kCommandBytes; }
};

// Compiles `model`, every operation of which must be supported. The caller must not hold
// queue.mutex(): compileModel takes it only while it places and writes DRAM, after the tiling
// search and before generating the program, so that compilations run side by side. BAD_DATA for
// an unsupported model, RESOURCE_EXHAUSTED_* when DRAM is full.
// `replay`, from a compilation cache (CompilationCache.h), gives the layers' tilings when it
// was made for these layers on this configuration; a layer whose index names no candidate,
// or a cache made for something else, is searched for as without one.
// `options.deadline` (NNAPI's compilation timeout) is checked between layers and between the
// tiling candidates a layer's search schedules: past it, MISSED_DEADLINE_PERSISTENT (the same
// compilation would take as long again) and nothing of the compilation is kept.
// `options.preference` (NNAPI's execution preference) is what each layer's tiling search
// minimises (TilingPolicy::forPreference).
nn::Result<CompiledModel> compileModel(const nn::Model& model, DeviceQueue& queue, const CompileOptions& options,
                                       const TilingChoices* replay = nullptr);
// The same, with the WEFT_ACCEL_* options read from the environment now.
nn::Result<CompiledModel> compileModel(const nn::Model& model, DeviceQueue& queue,
                                       const TilingChoices* replay = nullptr,
                                       const DeviceQueue::Deadline& deadline = std::nullopt,
                                       nn::ExecutionPreference preference = nn::ExecutionPreference::FAST_SINGLE_ANSWER);

// The support of each operation of `model` (getSupportedOperations) on `config`: the lowering,
// the vector layers' tiling and the memory plan must all accept it. Reasons for unsupported
// operations go to `reasons`.
std::vector<bool> supportedOperations(const nn::Model& model, const hw::HwConfig& config,
                                      std::map<uint32_t, std::string>* reasons);

}  // namespace weft::accel
