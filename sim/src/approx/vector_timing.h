// The vector unit's timeline (rtl/weft_vector.sv, rtl/README.md "Vector unit"), shared by the
// engine and the reference agents. A vector command touches no DRAM and runs alone, so its
// whole timeline is a closed form of its fields and its start: the slots it issues, one a
// cycle, and the cycle its last accumulator write completes it.
#pragma once

#include <array>
#include <cstdint>

#include "weft/hw/generated.h"

namespace weft::sim::approx {

struct VectorTimeline {
  struct Span {
    uint64_t begin = 0, end = 0;  // issue cycles [begin, end)
  };
  std::array<Span, 3> spans;  // one per pass (WINDOW and ELTWISE: one)
  unsigned passes = 1;
  uint64_t done = 0;          // its last write is signalled in this cycle; tokens from done + 1
};

// The timeline of a WINDOW, ELTWISE or SOFTMAX that starts in cycle t (the decision cycle: its
// command is taken at the edge ending t and its first slot issues in t + 1).
inline VectorTimeline vectorTimeline(const hw::CommandWord& c, uint64_t t) {
  namespace micro = hw::micro;
  VectorTimeline v;
  const auto op = static_cast<hw::Opcode>(c.get(hw::field::kOpcode));
  uint64_t slots = 0;
  if (op == hw::Opcode::kWindow) {
    const auto w = hw::WindowCmd::decode(c);
    slots = uint64_t{w.outH} * w.outW * w.kH * w.kW;
  } else if (op == hw::Opcode::kEltwise) {
    const auto e = hw::EltwiseCmd::decode(c);
    slots = uint64_t{e.count0} * e.count1;
  }
  if (op != hw::Opcode::kSoftmax) {
    v.spans[0] = {t + 1, t + 1 + slots};
    v.done = t + slots + micro::kVectorPipeDepth - 1;
    return v;
  }
  // SOFTMAX: max, sum and output passes, separated by the cross-lane reductions and the
  // reciprocal.
  const uint64_t n = hw::SoftmaxCmd::decode(c).count;
  v.passes = 3;
  v.spans[0] = {t + 1, t + 1 + n};
  const uint64_t second = v.spans[0].end - 1 + micro::kVectorReduceGap;
  v.spans[1] = {second, second + n};
  const uint64_t third = v.spans[1].end - 1 + micro::kVectorReduceGap + micro::kSoftmaxRecipCycles;
  v.spans[2] = {third, third + n};
  v.done = v.spans[2].end - 1 + micro::kVectorPipeDepth - 1;
  return v;
}

}  // namespace weft::sim::approx
