// The accelerator device: lowers supported NNAPI operations to command programs for the
// systolic array and runs them on a device backend (sim/include/weft/sim/backend.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

#include "weft/hal/IDevice.h"

namespace weft::accel {

struct AcceleratorOptions {
  // WEFT_BACKEND: "rtl", "approx" or "timing" (approx without its data path: outputs are not
  // computed; sim::BackendKind::kTiming).
  std::string backend = "rtl";
  std::string hwConfig = "weft16"; // WEFT_HW: a named configuration of hw/configs or a file path
};

// Creates the device named "weft-accel" (type ACCELERATOR). BAD_DATA with a message naming the
// accepted values when the backend or configuration is not valid; OP_FAILED when the backend
// cannot be brought up (e.g. no RTL build for the configuration).
nn::Result<hal::SharedDevice> createAcceleratorDevice(const AcceleratorOptions& options);

// How far a running command program has got, for progress displays. Reported from the thread
// that runs the execution, every kProgressIntervalCycles device cycles, while a listener is set.
struct DeviceProgress {
  uint64_t cycles = 0;           // device cycles since the doorbell
  uint64_t estimatedCycles = 0;  // the driver's estimate for the whole program
  size_t operationsDone = 0;     // operations of the prepared model whose closing barrier passed
  size_t operations = 0;
};
inline constexpr uint64_t kProgressIntervalCycles = 250'000;
// Replaces the process-wide listener; an empty function removes it. Reading progress takes no
// device time (it reads the snapshot records through the DRAM backdoor).
void setProgressListener(std::function<void(const DeviceProgress&)> listener);

}  // namespace weft::accel
