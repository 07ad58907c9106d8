// Area of a configuration: its SRAM macros (scratchpads, accumulator, parameter memory, lookup
// table) from a per-KiB model, plus its logic where synthesis gives it (README.md).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "EnergyModel.h"
#include "Synthesis.h"
#include "weft/hw/config.h"

namespace weft::codesign {

struct AreaEstimate {
  std::vector<std::pair<std::string, double>> sramParts;  // um^2 per memory (all its copies)
  double sramUm2 = 0;
  double logicUm2 = 0;    // standard cells from synthesis; 0 when there is none
  std::string logicNote;  // where the logic figure comes from, or why there is none
  double totalUm2() const { return sramUm2 + logicUm2; }
  // "0.412 mm^2 (SRAM 0.400, logic 0.012: <note>)"
  std::string describe() const;
};

// The SRAM part of `hw`'s area; logicUm2 0 with a note saying the logic is not included.
AreaEstimate sramArea(const EnergyModel& model, const hw::HwConfig& hw);

// SRAM plus the logic from yosys synthesis (synthesizeLogic(): cached, and SRAM only with a
// note saying why when yosys is missing or fails).
AreaEstimate estimateArea(const EnergyModel& model, const hw::HwConfig& hw, const SynthesisSetup& setup);

}  // namespace weft::codesign
