// weft's C++ extension of libneuralnetworks.so: what the NNAPI C API does not say about a
// compilation and an execution, for weft's reports (the `weft` command-line tool). Exported next
// to the ANeuralNetworks* functions.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "android/NeuralNetworks.h"
#include "weft/hal/IPreparedModel.h"

// The ABI stamp of this libneuralnetworks.so's build ("<version>+<digest of the headers whose
// types cross>", weft/AbiStamp.h). The structures above are C++: a program using them checks
// that the library's stamp is its own before it calls anything else (the `weft` tool does).
extern "C" const char* weft_abi_stamp(void);

namespace weft::runtime {

// The per-step profiles of the latest computation of `execution`, one per step run in order.
// Each OperationProfile::operationIndex is the client's operation index (the order of
// ANeuralNetworksModel_addOperation). Empty for NULL and before a computation completed; the
// reference stays valid until the execution computes again or is freed.
const std::vector<hal::ExecutionProfile>& getExecutionProfiles(const ANeuralNetworksExecution* execution);

// What a step of a compilation with ANeuralNetworksCompilation_setCaching did with the cache.
enum class CacheUse {
  kNotRequested,  // the client set no cache
  kDeviceOwn,     // the device asked for no cache files and keeps its own (weft-accel: tilings)
  kRestored,      // the device restored its prepared model from the cache files
  kSaved,         // compiled afresh, the cache files handed to the device to save into
  kNotSaved,      // compiled afresh; the cache files could not be opened (directory missing, read-only)
};

// One step of a finished compilation: consecutive operations (in run order) on one device.
struct CompilationStep {
  std::string device;               // the device's name, e.g. "weft-accel", "weft-cpu"
  std::vector<uint32_t> operations; // client operation indexes
  CacheUse cache = CacheUse::kNotRequested;
  // Wall time of the device's compilation of the step (prepareModel: on weft-accel the
  // lowering, the tiling search and the program), or of its restore from the cache.
  double prepareSeconds = 0;
};
// The steps of a successfully finished compilation, in execution order; empty otherwise.
std::vector<CompilationStep> getCompilationSteps(const ANeuralNetworksCompilation* compilation);

// For each client operation index, the name of the device it runs on; empty unless the
// compilation finished successfully.
std::vector<std::string> getOperationDevices(const ANeuralNetworksCompilation* compilation);

// Why `device` does not run operations of the finished `model`, by client operation index, where
// the device can say (weft-accel: its lowering's reasons, e.g. "float32 ... int8"); empty for
// NULL arguments, an unfinished model, or a device that gives no reasons.
std::map<uint32_t, std::string> getUnsupportedReasons(const ANeuralNetworksModel* model,
                                                      const ANeuralNetworksDevice* device);

// Progress of a running execution, for progress displays: an event when a step starts
// (deviceCycles 0) and, on the accelerator, periodic events while its program runs.
struct ProgressEvent {
  std::string device;                     // the step's device
  std::vector<uint32_t> operations;       // the step's client operation indexes
  uint64_t deviceCycles = 0;              // device cycles so far in this step (accelerator)
  uint64_t estimatedCycles = 0;           // the driver's estimate for the step (accelerator)
  size_t operationsDone = 0;              // operations of the step already finished
};
// Replaces the process-wide listener (an empty function removes it). It is called on the thread
// that runs the execution; keep it short.
void setProgressListener(std::function<void(const ProgressEvent&)> listener);

}  // namespace weft::runtime
