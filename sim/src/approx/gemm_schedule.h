// When a GEMM's rows enter the array and when it completes, for either dataflow. Both engines
// of the approximate model time the compute unit with it, so they cannot disagree.
//
// Weight-stationary (rtl/weft_compute.sv): the M = m_rows*m_groups input rows issue one a
// cycle from `first`; the last one's write-back reaches the last column Rows + Cols + 1 cycles
// after its issue.
// Output-stationary (rtl/weft_compute_os.sv, weft_array_os.sv): the rows go in blocks of Rows
// slots, a slot a cycle, the last block's slots past M empty; the block's pixel 0 drains last,
// its write-back reaching the last column 2*Rows + Cols + 2 cycles after the block's last slot.
#pragma once

#include <cstdint>

#include "weft/hw/config.h"

namespace weft::sim::approx {

struct GemmSchedule {
  uint64_t lastIssue;  // cycle of the GEMM's last slot (it leaves the stream queue)
  uint64_t rowsEnd;    // its input rows (OS: its blocks' slots) enter the array in [first, rowsEnd)
  uint64_t done;       // cycle its last write-back reaches the last column
};

inline bool outputStationary(const hw::HwConfig& c) {
  return c.dataflow() == hw::Dataflow::kOS;
}

inline GemmSchedule gemmSchedule(bool os, uint64_t first, uint64_t rows, unsigned arrayRows,
                                 unsigned arrayCols) {
  if (!os) {
    const uint64_t last = first + rows - 1;
    return {last, first + rows, last + 1 + arrayRows + arrayCols};
  }
  const uint64_t blocks = (rows + arrayRows - 1) / arrayRows;
  const uint64_t last = first + blocks * arrayRows - 1;
  return {last, last + 1, last + 2 * uint64_t{arrayRows} + arrayCols + 2};
}

// The cycles the compute unit reads weight-scratchpad rows (WSPAD_RD_ROWS), as intervals
// fn(a, b): WS reads a new GEMM's k_rows rows from its start cycle `start`, one a cycle (none
// with keep_weights); OS reads them with every block, from the cycle after the block's first
// slot (consecutive blocks of k = Rows read without a gap, reported as one interval).
template <typename Fn>
void forEachWeightRead(bool os, uint64_t start, uint64_t first, uint64_t rows, uint32_t kRows, bool keep,
                       unsigned arrayRows, Fn&& fn) {
  if (kRows == 0) return;
  if (!os) {
    if (!keep) fn(start, start + kRows);
    return;
  }
  const uint64_t blocks = (rows + arrayRows - 1) / arrayRows;
  if (kRows >= arrayRows) {
    fn(first + 1, first + 1 + blocks * arrayRows);
    return;
  }
  for (uint64_t b = 0; b < blocks; ++b) fn(first + 1 + b * arrayRows, first + 1 + b * arrayRows + kRows);
}

}  // namespace weft::sim::approx
