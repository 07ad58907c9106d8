#include "Schedule.h"

#include <cmath>
#include <utility>

namespace weft::accel {

nn::Result<ScheduledModel> scheduleProgram(ProgramBuilder& program) {
  const double serial = program.serialCycles();
  auto scheduled = program.finish();
  if (!scheduled.ok()) return scheduled.error();
  ScheduledModel out;
  out.estimatedCycles = scheduled.value().estimatedCycles;
  out.watchdogCycles = static_cast<uint64_t>(std::ceil(2 * serial)) + 100000;
  out.program = std::move(scheduled).value().program;
  return out;
}

}  // namespace weft::accel
