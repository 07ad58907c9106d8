#include "CpuPreparedModel.h"

#include <algorithm>
#include <chrono>

#include "weft/kernels/CpuExecutor.h"

namespace weft::cpu {
namespace {

using Clock = std::chrono::steady_clock;

uint64_t nanosecondsBetween(Clock::time_point start, Clock::time_point end) {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(end - start).count());
}

}  // namespace

CpuPreparedModel::CpuPreparedModel(nn::Model model, std::string deviceName, CpuPreparation preparation,
                                   std::shared_ptr<CpuExecutionScheduler> scheduler)
    : model_(std::move(model)),
      deviceName_(std::move(deviceName)),
      preparation_(preparation),
      scheduler_(std::move(scheduler)) {}

nn::Result<hal::ExecutionResult> CpuPreparedModel::execute(const nn::Request& request, nn::MeasureTiming measure,
                                                           const hal::OptionalTimePoint& deadline,
                                                           const hal::OptionalDuration& loopTimeoutDuration) const {
  const Clock::time_point driverStart = Clock::now();
  if (deadline.has_value() && driverStart > *deadline) {
    return NN_ERROR(MISSED_DEADLINE_PERSISTENT) << deviceName_ << ": the execution deadline has passed";
  }
  const bool lowPower = preparation_.preference == nn::ExecutionPreference::LOW_POWER;
  return scheduler_->run(preparation_.priority, lowPower, deadline, [&] {
    return executeNow(request, measure, deadline, loopTimeoutDuration, driverStart);
  });
}

nn::Result<hal::ExecutionResult> CpuPreparedModel::executeNow(const nn::Request& request, nn::MeasureTiming measure,
                                                              const hal::OptionalTimePoint& deadline,
                                                              const hal::OptionalDuration& loopTimeoutDuration,
                                                              Clock::time_point driverStart) const {
  // The executor checks the deadline before each operation and each WHILE iteration, so an
  // execution that outlives it stops at the next operation boundary.
  nn::CpuExecutionOptions options;
  options.deadline = deadline;
  options.modelValidated = preparation_.modelValidated;
  if (loopTimeoutDuration.has_value()) options.loopTimeout = *loopTimeoutDuration;
  std::vector<uint64_t> operationNs(model_.main.operations.size(), 0);
  options.operationNs = &operationNs;

  const Clock::time_point kernelStart = Clock::now();
  nn::Result<std::vector<nn::OutputShape>> shapes = nn::executeOnCpu(model_, request, options);
  const Clock::time_point kernelEnd = Clock::now();
  if (!shapes.ok()) return shapes.error();

  hal::ExecutionResult result;
  result.outputShapes = std::move(shapes).value();
  result.profile.device = deviceName_;
  // The CPU is its own hardware: an operation's on-hardware and in-driver times are both the
  // host time its kernel took.
  result.profile.operations.reserve(model_.main.operations.size());
  for (uint32_t i = 0; i < model_.main.operations.size(); ++i) {
    hal::OperationProfile op;
    op.operationIndex = i;
    op.type = model_.main.operations[i].type;
    op.onHardwareNs = operationNs[i];
    op.inDriverNs = operationNs[i];
    result.profile.operations.push_back(std::move(op));
  }
  const Clock::time_point driverEnd = Clock::now();
  // The CPU has no device interaction: in-driver time is the kernels plus the driver's own code.
  result.profile.onHardwareNs = nanosecondsBetween(kernelStart, kernelEnd);
  result.profile.inDriverNs = nanosecondsBetween(driverStart, driverEnd);
  result.profile.driverHostNs = result.profile.inDriverNs - result.profile.onHardwareNs;
  if (measure == nn::MeasureTiming::YES) {
    result.timing.timeOnDeviceNs = result.profile.onHardwareNs;
    result.timing.timeInDriverNs = result.profile.inDriverNs;
  }
  return result;
}

nn::Result<hal::SharedBurst> CpuPreparedModel::configureExecutionBurst() const {
  return hal::SharedBurst(std::make_shared<CpuBurst>(shared_from_this()));
}

}  // namespace weft::cpu
