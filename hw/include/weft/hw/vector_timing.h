// When a vector command's slots issue and when it completes, relative to its start: a closed
// form of its fields and the micro-architecture constants (hw/spec/micro.json), as
// rtl/weft_vector.sv behaves (rtl/README.md "Vector unit"). The approximate model times the
// vector unit with it; the driver's cost model estimates with it exactly.
#pragma once

#include <array>
#include <cstdint>

#include "weft/hw/generated.h"

namespace weft::hw {

struct VectorSchedule {
  struct Span {
    uint64_t begin = 0, end = 0;  // issue cycles [begin, end) after the start decision
  };
  std::array<Span, 3> spans;  // one per pass (WINDOW and ELTWISE: one)
  unsigned passes = 1;
  uint64_t done = 0;  // the last write is signalled this many cycles after the start decision
  uint64_t slots() const {
    uint64_t n = 0;
    for (unsigned p = 0; p < passes; ++p) n += spans[p].end - spans[p].begin;
    return n;
  }
};

// The schedule of a WINDOW, ELTWISE, SOFTMAX or LAYER_NORM command (decided at cycle 0: taken at the edge
// ending it, first slot issued in cycle 1).
inline VectorSchedule vectorSchedule(const CommandWord& c) {
  VectorSchedule v;
  const auto op = static_cast<Opcode>(c.get(field::kOpcode));
  uint64_t slots = 0;
  if (op == Opcode::kWindow) {
    const auto w = WindowCmd::decode(c);
    slots = uint64_t{w.outH} * w.outW * w.kH * w.kW;
  } else if (op == Opcode::kEltwise) {
    const auto e = EltwiseCmd::decode(c);
    slots = uint64_t{e.count0} * e.count1;
  }
  if (op == Opcode::kLayerNorm) {
    // LAYER_NORM: the sums pass and the output pass, separated by the cross-lane sums and the
    // square root and reciprocal.
    const uint64_t n = LayerNormCmd::decode(c).count;
    v.passes = 2;
    v.spans[0] = {1, 1 + n};
    const uint64_t second = v.spans[0].end - 1 + micro::kVectorReduceGap + micro::kLayerNormRsqrtCycles;
    v.spans[1] = {second, second + n};
    v.done = v.spans[1].end - 1 + micro::kVectorPipeDepth - 1;
    return v;
  }
  if (op != Opcode::kSoftmax) {
    v.spans[0] = {1, 1 + slots};
    v.done = slots + micro::kVectorPipeDepth - 1;
    return v;
  }
  // SOFTMAX: max, sum and output passes, separated by the cross-lane reductions and the
  // reciprocal.
  const uint64_t n = SoftmaxCmd::decode(c).count;
  v.passes = 3;
  v.spans[0] = {1, 1 + n};
  const uint64_t second = v.spans[0].end - 1 + micro::kVectorReduceGap;
  v.spans[1] = {second, second + n};
  const uint64_t third = v.spans[1].end - 1 + micro::kVectorReduceGap + micro::kSoftmaxRecipCycles;
  v.spans[2] = {third, third + n};
  v.done = v.spans[2].end - 1 + micro::kVectorPipeDepth - 1;
  return v;
}

}  // namespace weft::hw
