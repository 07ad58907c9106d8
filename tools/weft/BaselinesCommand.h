// `weft baselines`: expected cycles per layer for the bundled networks, the regression layer set
// and SCALE-Sim's tables at the named configurations (traces/baselines/, one file per workload).
// Without --update it runs every workload on every configuration of its file and fails with a
// table of the layers whose cycles moved; with --update it rewrites the files after a change
// that moves cycles on purpose.
#pragma once

#include <string>
#include <vector>

namespace weft::tool {

struct BaselinesOptions {
  std::string dir;                   // traces/baselines
  std::string scalesimDir;           // SCALE-Sim's tables (../shared/workloads/scalesim)
  std::string sim = "approx";        // the backend the workers run on
  std::vector<std::string> configs;  // empty: every configuration of each file (update: weft8, weft16)
  std::vector<std::string> only;     // workload names to keep (empty: all)
  std::string workDir;               // worker reports (default out/baselines-<pid>)
  int jobs = 0;                      // workers at once (0: one per CPU)
  bool update = false;
  bool quiet = false;
};

// Returns the process exit code: 0 when nothing moved (or the update was written), 1 otherwise.
int runBaselines(const BaselinesOptions& options);

}  // namespace weft::tool
