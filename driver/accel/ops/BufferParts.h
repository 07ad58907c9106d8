// Vector layers whose tiles take the vector scratchpad and the accumulator in turns (LAYER_NORM's
// token groups, SOFTMAX's row tiles): into how many parts to cut them. A tile's vector commands
// wait for the STOREs of the tile that held their part before; with a cycle-level DRAM those
// STOREs' writes enter between the next tiles' reads and take as long as those LOADs, so with
// two parts the vector unit waits on them (ViT's LAYER_NORM at weft16-lpddr4: 43,757 cycles in
// halves, 37,581 in thirds; BERT's attention SOFTMAX 81,460 and 68,318). More parts make smaller
// tiles and more commands (five or more ran slower there), so the layer schedules its program
// for two to `most` parts where the tensors lie and emits the fastest, as the windows choose
// their layout (WindowLayer::generate).
#pragma once

#include <fmt/format.h>

#include <cstdint>

#include "../PlannedCommand.h"
#include "FastestCandidate.h"
#include "weft/hw/config.h"
#include "weft/nn/Result.h"

namespace weft::accel {

inline constexpr uint32_t kMaxBufferParts = 4;

// `generate(sink, parts)` emits the layer with its buffers in `parts` parts (every count from 2
// to `most` must fit). Two where only the fit is being proven (the commands are not run) or
// `most` is below three; a tie keeps the fewer parts. A choice made is noted on `sink` (the
// layer's mapping in the reports says "buffers in N parts").
template <typename Generate>
nn::Result<uint32_t> fastestBufferParts(const hw::HwConfig& config, CommandSink& sink, uint32_t most,
                                        Generate&& generate) {
  if (sink.provesFitOnly() || most < 3) return 2;
  const auto fastest =
      fastestCandidate(config, most - 1, [&](CommandSink& s, uint32_t i) { return generate(s, i + 2); });
  if (!fastest.ok()) return fastest.error();
  const uint32_t parts = *fastest + 2;
  sink.note(fmt::format("buffers in {} parts", parts));
  return parts;
}

}  // namespace weft::accel
