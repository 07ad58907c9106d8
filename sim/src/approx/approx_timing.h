// The cycle constants of the approximate model: the latencies of the RTL's micro-architecture
// that the model does not derive from hardware parameters. They live in one place so that
// calibrating against the RTL (rtl/README.md, per-layer cycle comparisons) edits nothing else.
// Every duration the model produces is a sum of these, hw parameters and DRAM timing.
#pragma once

#include <cstdint>

namespace weft::sim::approx {

struct ApproxTiming {
  // Register bus: a request cycle, then (reads) the cycle that returns the data.
  uint32_t regReadCycles = 2;
  uint32_t regWriteCycles = 1;

  // Controller. Commands fetched per DRAM read request (contiguous ring slots), fetch
  // buffer slots (requested or arrived, not yet dispatched), cycles from the last beat of a
  // fetch to the command being dispatchable, and dispatches per cycle (one).
  uint32_t fetchCommandsPerRequest = 1;
  uint32_t fetchBufferDepth = 2;
  uint32_t fetchDecodeCycles = 1;
  // From a command's dispatch to its unit being able to start it.
  uint32_t dispatchToUnitCycles = 1;
  // From a unit's push to the receiving unit being able to pop the token.
  uint32_t tokenCycles = 1;
  // From a barrier finding every unit drained to its completion (no snapshot).
  uint32_t barrierCycles = 1;

  // Load unit: cycles from start to the first request, and from a row's last data beat to
  // the row being in the scratchpad.
  uint32_t loadStartCycles = 1;
  uint32_t loadRowWriteCycles = 1;

  // Compute unit: cycles from start to the weight preload, weight preload cycles on top of
  // k_rows (one weight row per cycle), and the cycles after the last input row enters until
  // its accumulator row is written, on top of the array's skew (Rows + Cols).
  uint32_t computeStartCycles = 1;
  uint32_t preloadExtraCycles = 1;
  uint32_t drainExtraCycles = 2;

  // Store unit: cycles from start to the first post-processed row (accumulator read plus
  // the requantization pipeline).
  uint32_t storePipeCycles = 4;
};

}  // namespace weft::sim::approx
