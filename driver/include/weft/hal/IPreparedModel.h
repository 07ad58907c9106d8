// A compiled model on one device (as NN HAL IPreparedModel).
#pragma once

#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "weft/hal/IDevice.h"

namespace weft::hal {

class IBurst;
using SharedBurst = std::shared_ptr<const IBurst>;

// Everything an execution reports beyond NNAPI's outputs and Timing: the per-operation
// breakdown weft's reports are made of. Devices fill what they know.
struct OperationProfile {
  uint32_t operationIndex = 0;     // in the prepared model's main subgraph
  nn::OperationType type = nn::OperationType::ADD;
  uint64_t cycles = 0;             // device cycles (0 on the CPU device)
  uint64_t onHardwareNs = 0;
  uint64_t inDriverNs = 0;
  uint64_t macs = 0;               // useful work: the array's MACs, the vector unit's lane operations
  std::string unit;                // where it ran: "array", "vector" (accelerator) or "" (CPU)
  uint64_t peakOpsPerCycle = 0;    // that unit's peak rate of `macs` (Rows x Cols, or Cols)
  uint64_t dramReadBytes = 0;
  uint64_t dramWriteBytes = 0;
  std::vector<std::pair<std::string, uint64_t>> counters;  // every hardware counter delta, by name
};
struct ExecutionProfile {
  std::string device;
  std::string backend;             // "rtl", "approx" or "" (CPU)
  std::vector<OperationProfile> operations;
  double simulatorWallSeconds = 0; // host time spent simulating
  uint64_t simulatedCycles = 0;
  // The parts of the execution's durations (0 where a device has no such part):
  // inDriverNs = driverHostNs + deviceInteractionNs + onHardwareNs, and onHardwareNs covers the
  // operations' onHardwareNs plus overheadCycles (program start and end around them).
  uint64_t onHardwareNs = 0;
  uint64_t inDriverNs = 0;
  uint64_t driverHostNs = 0;         // host time of the driver's own code, simulator excluded
  uint64_t deviceInteractionNs = 0;  // modeled register accesses and interrupt latency
  uint64_t deviceCycles = 0;         // device cycles of the execution
  uint64_t overheadCycles = 0;       // device cycles outside every operation
  uint64_t registerAccesses = 0;
  uint64_t interrupts = 0;
};

struct ExecutionResult {
  std::vector<nn::OutputShape> outputShapes;
  nn::Timing timing;
  ExecutionProfile profile;
};

class IPreparedModel {
 public:
  virtual ~IPreparedModel() = default;

  // Runs one request synchronously. When an output buffer is too small for its actual shape,
  // the call succeeds with that output's OutputShape::isSufficient = false (and the full
  // dimensions); the runtime turns that into ANEURALNETWORKS_OUTPUT_INSUFFICIENT_SIZE.
  virtual Result<ExecutionResult> execute(const nn::Request& request, nn::MeasureTiming measure,
                                          const OptionalTimePoint& deadline,
                                          const OptionalDuration& loopTimeoutDuration) const = 0;

  virtual Result<SharedBurst> configureExecutionBurst() const = 0;
};

}  // namespace weft::hal
