// Running a sweep beyond one machine: one Slurm job array (`sbatch --array`) whose task i runs
// `weft sweep SPEC --out DIR --shard i/n` (every n-th point from the i-th) on whatever node
// Slurm gives it; then, after the array has finished, the points are merged as by
// `weft sweep --collect --out DIR`. DIR, SPEC, its workloads and the weft binary must be on a
// file system every node sees.
#pragma once

#include <string>

#include "SweepCommand.h"
#include "SweepSpec.h"

namespace weft::tool {

// Writes DIR/slurm/sweep.sbatch, submits it, waits (polling squeue) with progress, merges.
// Returns the exit code as runSweep does.
int runSweepOnSlurm(const SweepPlan& plan, const SweepOptions& options, const std::string& energyModelPath);

}  // namespace weft::tool
