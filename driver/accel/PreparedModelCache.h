// The accelerator's compilation cache through the runtime (IDevice::getNumberOfCacheFilesNeeded,
// prepareModel with cache files, prepareModelFromCache): the whole prepared model, so that a
// restore neither lowers, nor searches tilings, nor generates or schedules commands.
//
// One model file and one data file in the framing every device shares (weft/hal/CacheFiles.h:
// magic "WEFTACC\n", version 4, kind, token, SHA-256). The model file's payload opens with the
// SHA-256 of the configuration (another array, other memories: another program) and of the data
// file; its next byte says which of two forms follows.
//  - A compiled program: the model's inputs and outputs and its priority, every tensor's layout
//    and DRAM region, the constant regions, the snapshot region, the program (ring order, with
//    the DRAM addresses it was compiled for), the per-operation records and the tiling choices.
//    The data file holds the bytes of the constant regions (weights, parameter rows, lookup
//    tables) and of constant tensors; every other tensor buffer is its initialTensorImage(), made
//    again. A tensor that is a view into another's region (a zero-copy CONCATENATION input,
//    TensorLayout::aliasOf) has no region of its own and shares its parent's again.
//  - A model with execution parameters, which each execution compiles (ExecutionParameters.h):
//    the model itself, its structure here and its constants in the data file
//    (weft/nn/ModelSerialization.h), with its priority and preference (captureModelForCache).
//
// Restoring allocates every region anew (the DRAM holds other models now, or none), writes the
// images, and relocates the program: each LOAD / STORE / snapshot BARRIER address moves with the
// region it lies in; an address in no region rejects the cache. Anything that does not check is
// BAD_DATA and the runtime compiles afresh.
#pragma once

#include <cstdint>
#include <vector>

#include "DeviceQueue.h"
#include "ModelCompiler.h"
#include "weft/hal/CacheFiles.h"
#include "weft/hal/IDevice.h"

namespace weft::accel {

// The cache files' framing; the version changes whenever the layout of either payload changes
// (3: an operation's peak rate joined its record, a tensor's whether it is kept as binary16).
inline constexpr hal::CacheFileFormat kPreparedModelCacheFormat{{'W', 'E', 'F', 'T', 'A', 'C', 'C', '\n'}, 5};

inline constexpr hal::NumberOfCacheFiles kAcceleratorCacheFiles{1, 1};

// A prepared model as the cache restores it.
struct RestoredPreparation {
  CompiledModel compiled;
  std::vector<uint32_t> inputs, outputs;  // the model's input and output operands
  nn::Priority priority = nn::Priority::MEDIUM;  // its executions' (DeviceQueue::waitForTurn)
};

// The two payloads of a cache, taken from a fresh compilation. Caller holds queue.mutex(): the
// constant images are read back from DRAM as compileModel() left them.
struct CacheImage {
  std::vector<uint8_t> model, data;
};
nn::Result<CacheImage> captureForCache(const CompiledModel& compiled, const nn::Model& model, nn::Priority priority,
                                       DeviceQueue& queue);

// An image of `modelRecords` (the model payload after its two digests) and `data`: the digests
// of `config` and of `data` put in front. captureForCache ends with it; the cache fuzzer
// (tests/fuzz/accel_cache_fuzzer.cpp) seals its inputs with it to get past the digests.
CacheImage sealCacheImage(const hw::HwConfig& config, const std::vector<uint8_t>& modelRecords,
                          std::vector<uint8_t> data);

// The image of a model with execution parameters (ExecutionParameters.h): it is compiled by each
// execution, so the cache holds the model itself (ModelSerialization.h: its structure in the
// model file, its constants in the data file), with its priority and preference.
nn::Result<CacheImage> captureModelForCache(const nn::Model& model, nn::Priority priority,
                                            nn::ExecutionPreference preference, const hw::HwConfig& config);

// Writes the image into the request's files (one of each kind). An error says why nothing usable
// was written; the compilation does not fail for it.
nn::Status writeCache(const CacheImage& image, const hal::CacheRequest& cache);

// What the files hold, checked against `token` and the configuration, not yet in DRAM.
struct ParsedCache;
nn::Result<std::shared_ptr<ParsedCache>> readCache(const std::vector<hal::SharedCacheFile>& modelCache,
                                                   const std::vector<hal::SharedCacheFile>& dataCache,
                                                   const hal::CacheToken& token, const hw::HwConfig& config);

// The same from the payloads, once the files' framing has been checked (readCache ends with it).
nn::Result<std::shared_ptr<ParsedCache>> parseCacheImage(const CacheImage& image, const hw::HwConfig& config);

// What a cache of captureModelForCache holds; the restore makes a prepared model of it that
// compiles each execution.
struct CachedModel {
  nn::Model model;
  nn::Priority priority = nn::Priority::MEDIUM;
  nn::ExecutionPreference preference = nn::ExecutionPreference::FAST_SINGLE_ANSWER;
};
// The cached model when the cache is of that form; nullptr for a compiled program (placeCache).
const CachedModel* perExecutionModel(const ParsedCache& cache);

// Allocates, writes and relocates it on the device. Caller holds queue.mutex().
nn::Result<RestoredPreparation> placeCache(const ParsedCache& cache, DeviceQueue& queue);

}  // namespace weft::accel
