#include "Area.h"

#include <fmt/format.h>

#include "Energy.h"

namespace weft::codesign {

std::string AreaEstimate::describe() const {
  return fmt::format("{:.4f} mm^2 (SRAM {:.4f}, logic {:.4f}: {})", totalUm2() * 1e-6, sramUm2 * 1e-6,
                     logicUm2 * 1e-6, logicNote);
}

AreaEstimate sramArea(const EnergyModel& model, const hw::HwConfig& hw) {
  AreaEstimate a;
  for (const Memory& m : memories(hw)) {
    const double um2 = static_cast<double>(m.bytes * m.copies) / 1024.0 * model.get(Coefficient::kSramUm2PerKiB);
    a.sramParts.emplace_back(m.name, um2);
    a.sramUm2 += um2;
  }
  a.logicNote = "logic not synthesized";
  return a;
}

AreaEstimate estimateArea(const EnergyModel& model, const hw::HwConfig& hw, const SynthesisSetup& setup) {
  AreaEstimate a = sramArea(model, hw);
  const LogicArea logic = synthesizeLogic(hw, setup);
  a.logicUm2 = logic.synthesized ? logic.um2 : 0;
  a.logicNote = logic.note;
  return a;
}

}  // namespace weft::codesign
