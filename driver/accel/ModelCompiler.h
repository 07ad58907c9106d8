// Preparation: a model -> everything an execution needs on the device.
//
//   lowering (Lowering.h)  -> memory plan (MemoryPlan.h) -> per layer: tiling (Tiling.h),
//   command generation (CommandGenerator.h) -> scheduling (CommandScheduler.h) -> one program:
//   the layers in dependency order, each closed by a BARRIER with a snapshot of the counters
//   (per-operation timing), the last one raising the interrupt.
// Weights, parameter rows and the zero-point halos are written to DRAM here, once.
// WEFT_ACCEL_TRACE_TILING=1 prints every tiling candidate and its scheduled estimate to stderr.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "CompilationCache.h"
#include "DeviceQueue.h"
#include "MemoryPlan.h"
#include "weft/nn/Result.h"
#include "weft/nn/Types.h"

namespace weft::accel {

struct PlacedTensor {
  TensorLayout layout;
  SharedRegion region;
};

struct CompiledOperation {
  uint32_t operationIndex = 0;
  nn::OperationType type = nn::OperationType::CONV_2D;
  hw::Unit unit = hw::Unit::kCompute;  // the array (kCompute) or the vector unit (kVector)
  uint64_t macs = 0;  // the array: MACs; the vector unit: lane operations (VectorLayer::laneOps)
  // The unit's peak rate of `macs`: Rows x Cols on the array (Rows/2 x Cols for an fp16 layer,
  // whose values take two lanes each), Cols on the vector unit (Cols/2 for a binary16 layer).
  uint64_t peakOpsPerCycle = 0;
  uint64_t commands = 0;
  double estimatedCycles = 0;
  std::string tiling;  // TilePlan::describe()
};

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
// search and before generating the program, so that compilations run side by side. BAD_DATA for an unsupported model, RESOURCE_EXHAUSTED_* when DRAM is full.
// `replay`, from a compilation cache (CompilationCache.h), gives the layers' tilings when it
// was made for these layers on this configuration; a layer whose index names no candidate,
// or a cache made for something else, is searched for as without one.
// `deadline` (NNAPI's compilation timeout) is checked between layers and between the tiling
// candidates a layer's search schedules: past it, MISSED_DEADLINE_PERSISTENT (the same
// compilation would take as long again) and nothing of the compilation is kept.
// `preference` (NNAPI's execution preference) is what each layer's tiling search minimises
// (tilingObjective below).
nn::Result<CompiledModel> compileModel(const nn::Model& model, DeviceQueue& queue,
                                       const TilingChoices* replay = nullptr,
                                       const DeviceQueue::Deadline& deadline = std::nullopt,
                                       nn::ExecutionPreference preference = nn::ExecutionPreference::FAST_SINGLE_ANSWER);

// How a preference picks among a layer's scheduled tiling candidates: the one with the least
// DRAM channel time (its traffic, in bursts: most of the device's energy) among those within
// `slack` of the fastest. FAST_SINGLE_ANSWER: slack 0, the fastest. SUSTAINED_SPEED: 2 %, the
// leanest of the practically fastest (a device kept busy pays for its traffic all the time).
// LOW_POWER: 15 %, trading a little time for less DRAM traffic.
double tilingSlack(nn::ExecutionPreference preference);

// A tensor's device buffer as preparation writes it before any constant value: the whole region
// at its fill (the zero point, PAD's value inside), with Cols bytes of slack the vector unit's last
// row may read.
std::vector<uint8_t> initialTensorImage(const TensorLayout& layout, const hw::HwConfig& config);
// Its size, without building it.
uint64_t tensorImageBytes(const TensorLayout& layout, const hw::HwConfig& config);

// The support of each operation of `model` (getSupportedOperations) on `config`: the lowering,
// the vector layers' tiling and the memory plan must all accept it. Reasons for unsupported
// operations go to `reasons`.
std::vector<bool> supportedOperations(const nn::Model& model, const hw::HwConfig& config,
                                      std::map<uint32_t, std::string>* reasons);

}  // namespace weft::accel
