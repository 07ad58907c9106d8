// What a compilation is asked for, read once when it starts: the client's preference and
// deadline, and the WEFT_ACCEL_* environment variables that steer the tiling search. The passes
// are handed these values and read no environment themselves, so a compilation sees one
// consistent set of options however long it runs (and tests may change the variables between
// compilations).
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>

#include "weft/nn/Result.h"
#include "weft/nn/Types.h"

namespace weft::accel {

// How the candidates may feed the array: from WEFT_ACCEL_INPUT_MODE, "windowed" (on-chip
// windows wherever the layer is windowable), "packed" (DMA-gathered windows packed into full rows
// wherever that saves chunks) or "im2col" (DMA-gathered windows, a chunk per run); unset or
// anything else leaves the choice to the search, as does a way that does not apply to a layer.
// For comparing the dataflows on the same hardware, and for tests that must reach one of them.
enum class InputChoice { kAny, kWindowed, kIm2col, kPacked };

// Whether the search tries rampedPlan() (Tiling.h): from WEFT_ACCEL_RAMP, "always" (the chosen
// plan whenever it has three boxes or more and the layer more than one candidate, whatever the
// timeline says) or "never"; unset or anything else leaves it to the search. For tests that must
// reach ramped plans, and for comparing the two on the same hardware.
enum class RampChoice { kSearch, kAlways, kNever };

struct CompileOptions {
  using Deadline = std::optional<std::chrono::steady_clock::time_point>;

  // NNAPI's execution preference: what each layer's tiling search minimises (TilingPolicy.h).
  nn::ExecutionPreference preference = nn::ExecutionPreference::FAST_SINGLE_ANSWER;
  // NNAPI's compilation timeout, checked between layers and between the tiling candidates a
  // layer's search schedules.
  Deadline deadline;
  InputChoice inputChoice = InputChoice::kAny;
  RampChoice ramp = RampChoice::kSearch;
  // WEFT_ACCEL_TRACE_TILING=1: every tiling candidate and its scheduled estimate to stderr.
  bool traceTiling = false;

  // The preference and deadline given, the rest from the environment as it is now.
  static CompileOptions fromEnvironment(nn::ExecutionPreference preference = nn::ExecutionPreference::FAST_SINGLE_ANSWER,
                                        Deadline deadline = std::nullopt);
};

// MISSED_DEADLINE_PERSISTENT once the deadline has passed (the same compilation would take as
// long again), naming the operation being compiled.
nn::Status checkDeadline(const CompileOptions::Deadline& deadline, uint32_t operationIndex);

}  // namespace weft::accel
