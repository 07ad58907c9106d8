// `weft run`: a bundled network on the accelerator and on the CPU reference, with the
// per-layer timing report and the reference check.
#pragma once

#include <string>

namespace weft::tool {

struct RunOptions {
  std::string networkPath;
  std::string jsonPath, csvPath;  // empty: out/<network>-<backend>-<hw>.{json,csv}
  std::string tracePath;          // Chrome trace-event timeline (Trace.h); empty: none
  size_t traceLimit = 200000;     // commands the trace shows (Trace.h keepFirstCommands; 0: all)
  std::string htmlPath;           // also the HTML report (scripts/weft_report.py); empty: none
  std::string energyModelPath;    // energy coefficients overriding the defaults (driver/codesign); empty: none
  int tolerance = 3;              // DESIGN.md: quant8 atol 3 for whole MobileNet-style networks
  // ANeuralNetworksCompilation_setPreference for the accelerated compilation:
  // ANEURALNETWORKS_PREFER_FAST_SINGLE_ANSWER (1), _SUSTAINED_SPEED (2) or _LOW_POWER (0).
  int32_t preference = 1;
  bool quiet = false;
};

// Returns the process exit code: 0 when the reference check passes, 1 on a mismatch.
int runNetwork(const RunOptions& options);

}  // namespace weft::tool
