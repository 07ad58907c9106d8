// `weft estimate`: how well the compiler's estimate of each layer's cycles (the tiling search's
// timeline, CompiledOperation::estimatedCycles; issue 32 item 6) matches the run, on the
// configuration of this process (WEFT_HW, WEFT_BACKEND). Networks run whole (`weft run`: the
// profile's per-operation estimate); layer sets and SCALE-Sim tables a layer at a time (`weft
// layers`: the estimate of the layer's program). Per layer: cycles, estimate, error; per workload
// and over all of them: median and worst |error|, the layers within 10 %, total cycles.
#pragma once

#include <string>
#include <vector>

namespace weft::tool {

struct EstimateOptions {
  std::vector<std::string> workloads;  // network descriptions, layer sets, SCALE-Sim tables
  std::string jsonPath;                // the per-layer figures as JSON; empty: not written
  std::string workDir;                 // `weft run`'s reports of networks (default out/estimate-<pid>)
  bool perLayer = false;               // print every layer, not only the summaries
  bool quiet = false;
};

// Returns the process exit code.
int runEstimate(const EstimateOptions& options);

}  // namespace weft::tool
