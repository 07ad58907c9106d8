// `weft validate`: the approx model against the RTL. For each hardware configuration (array
// configurations x DRAM bandwidths), runs a layer set on both backends and compares, per layer,
// the RTL's cycles with the model's, the outputs byte for byte, every performance counter (the
// model follows them too; reported, not part of the bounds), and the simulators' wall times.
//
// SystemC elaborates one design per process and the backend is chosen when
// libneuralnetworks.so loads, so every (configuration, backend) runs in a worker process:
// `weft layers` on the layer set, with WEFT_BACKEND and WEFT_HW set, writing JSON and the
// outputs into the work directory, which this command then reads.
#pragma once

#include <string>
#include <vector>

namespace weft::tool {

struct ValidateOptions {
  std::string layersPath;
  std::vector<std::string> hw;           // named configurations or files
  std::vector<int64_t> dramBytesPerCycle;  // DRAM bandwidths; empty: each configuration's own and a quarter of it
  std::string jsonPath;
  std::string workDir;                   // worker reports and outputs (kept)
  double maxMeanErrorPct = 0.5, maxWorstErrorPct = 2.0;
  double minSpeedup = 0;                 // 0: not a pass criterion
  int repeat = 1;
  bool quiet = false;
};

// 0 when every configuration meets the bounds with identical outputs, 1 otherwise.
int runValidate(const ValidateOptions& options);

}  // namespace weft::tool
