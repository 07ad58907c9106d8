// A layer with several programs that fit alike (the windows' tile layouts, the buffer parts of
// LAYER_NORM and SOFTMAX): each is scheduled where the tensors lie (the placed ScheduleEstimator,
// as the program itself is) and the fastest is emitted.
#pragma once

#include <cstdint>

#include "../CommandScheduler.h"
#include "../PlannedCommand.h"
#include "weft/hw/config.h"
#include "weft/nn/Result.h"

namespace weft::accel {

// `generate(sink, i)` emits candidate i of `count` into `sink`; returns the index of the fastest
// (a tie keeps the lower).
template <typename Generate>
nn::Result<uint32_t> fastestCandidate(const hw::HwConfig& config, uint32_t count, Generate&& generate) {
  uint32_t fastest = 0;
  double best = 0;
  for (uint32_t i = 0; i < count; ++i) {
    ScheduleEstimator estimate(config, 0, /*placed=*/true);
    NN_TRY(generate(estimate, i));
    const double cycles = estimate.cycles();
    if (i == 0 || cycles < best) best = cycles, fastest = i;
  }
  return fastest;
}

}  // namespace weft::accel
