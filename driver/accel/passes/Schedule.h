// Pass 6, scheduling: the program's last segment scheduled (CommandScheduler.h: tokens, the
// estimated timeline, ring order), its bytes and the watchdog's budget.
//
// Input: EmittedProgram (its ProgramBuilder has scheduled every earlier segment as it came).
// Output: ScheduledModel.
#pragma once

#include <cstdint>
#include <vector>

#include "EmitProgram.h"
#include "weft/nn/Result.h"

namespace weft::accel {

struct ScheduledModel {
  std::vector<uint8_t> program;  // encoded commands, ring order
  double estimatedCycles = 0;    // the makespan of the estimated timeline
  // Every command run alone, one after the other, twice over, plus a margin for fetch and reset:
  // slower than any correct execution, finite for a hung one.
  uint64_t watchdogCycles = 0;
};

// OP_FAILED on an internal inconsistency (a dependency tokens cannot express: a driver bug).
nn::Result<ScheduledModel> scheduleProgram(ProgramBuilder& program);

}  // namespace weft::accel
