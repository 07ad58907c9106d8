// `weft sweep SPEC.json --out DIR`: every point of a sweep specification (SweepSpec.h) runs
// each workload in a `weft` process of its own (SystemC elaborates one design per process; the
// configuration and backend are fixed when libneuralnetworks.so loads), in a local pool of
// processes. Each finished point is written atomically to DIR/points/<id>.json, so a sweep that
// is killed and rerun with the same arguments skips what is done; then all points are merged
// into DIR/results.csv and DIR/results.jsonl.
//
// DIR/plan.json keeps the resolved plan: `--shard i/n` runs only every n-th point from the i-th
// (one task of a Slurm job array) without merging, and `--collect` merges whatever the shards
// wrote.
#pragma once

#include <string>
#include <vector>

#include "SweepSpec.h"

namespace weft::tool {

// `--slurm`: the points as one Slurm job array (SweepSlurm.h).
struct SlurmOptions {
  bool enabled = false;
  std::vector<std::string> sbatchArgs;  // extra sbatch options (--partition=..., --time=...)
  int tasks = 0;                        // array size; 0: one task per point (at most 1000)
  bool wait = true;                     // false: submit, print the collect command, return
};

struct SweepOptions {
  std::string specPath;
  std::string outDir;
  std::string backend;          // empty: the spec's, else approx
  std::string energyModelPath;  // passed to every point's run
  int jobs = 0;                 // processes at once; 0: every core
  int shardIndex = 0, shardCount = 0;  // shardCount 0: all points, then merge
  bool collect = false;         // only merge DIR's point files (DIR/plan.json says which)
  SlurmOptions slurm;
  bool htmlReport = false;      // after merging, also DIR/report.html (weft report DIR)
  bool quiet = false;
};

// Parses "i/n" (0 <= i < n) into options.shardIndex / shardCount; false when malformed.
bool parseShard(const std::string& text, SweepOptions& options);

// Merges DIR's points into the results (and DIR/report.html when asked): 0 when every point
// succeeded, 1 when some failed, 2 when the report could not be written.
int finishSweep(const SweepPlan& plan, const std::string& dir, const SweepOptions& options);

// Returns the process exit code: 0 when every point succeeded, 1 when some failed (they are in
// the results with their reasons), 2 for a bad spec or options (nothing written).
int runSweep(const SweepOptions& options);

}  // namespace weft::tool
