// Costing: what one command costs, from the command itself. Emission (CommandGenerator,
// VectorTiles) says what a command is and which buffers it uses; the scheduler and the tiling
// search's estimator cost each command as it reaches them (CommandScheduler.h), from the fields
// the hardware reads:
// - LOAD: count0 x count1 x count2 rows of row_bytes. The load unit merges the rows of each i0
//   run (count0 rows) into large requests when row_bytes is the destination's row size,
//   stride0 == row_bytes, the row is whole beats and at most 1024 bytes, and the load is not
//   packed (rtl/README.md "Load unit"); otherwise a request a row.
// - STORE: count0 x count1 rows of `tiles` column tiles, each column the mode's bytes
//   (hw::columnBytes): (tiles - 1) x Cols + row_bytes columns a row.
// - GEMM: m_rows x m_groups rows a step, k_steps steps, each step's weights preloaded unless
//   keep_weights (CostModel::gemmBusyCycles, gemmDoneCycles).
// - WINDOW, ELTWISE, SOFTMAX: the vector unit's closed-form schedule (hw::vectorSchedule).
// - BARRIER: nothing; the scheduler accounts for its drain.
#pragma once

#include "CostModel.h"
#include "PlannedCommand.h"

namespace weft::accel {

// A command's cost; the whole of it is derived from the command and the hardware's parameters.
CommandCost estimate(const CostModel& cost, const PlannedCommand& command);

}  // namespace weft::accel
