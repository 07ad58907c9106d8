// The vector unit's timeline for the approximate model: hw::vectorSchedule (the closed form of
// rtl/weft_vector.sv's timing) placed at a start cycle. A vector command touches no DRAM and
// runs alone, so its whole timeline is known when it starts.
#pragma once

#include <cstdint>

#include "weft/hw/vector_timing.h"

namespace weft::sim::approx {

struct VectorTimeline {
  hw::VectorSchedule::Span spans[3];
  unsigned passes = 1;
  uint64_t done = 0;  // its last write is signalled in this cycle; tokens from done + 1
};

// The timeline of a vector command whose start is decided in cycle t.
inline VectorTimeline vectorTimeline(const hw::CommandWord& c, uint64_t t) {
  const hw::VectorSchedule s = hw::vectorSchedule(c);
  VectorTimeline v;
  v.passes = s.passes;
  for (unsigned p = 0; p < s.passes; ++p) v.spans[p] = {t + s.spans[p].begin, t + s.spans[p].end};
  v.done = t + s.done;
  return v;
}

}  // namespace weft::sim::approx
