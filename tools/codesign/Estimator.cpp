#include "Estimator.h"

#include <fmt/format.h>

namespace weft::codesign {

Estimator::Estimator(const hw::HwConfig& hw, const std::string& energyModelPath)
    : hw_(hw), model_(energyModelPath.empty() ? EnergyModel() : EnergyModel::load(energyModelPath)),
      area_(estimateArea(model_, hw, SynthesisSetup::fromBuild())) {}

EnergyBreakdown Estimator::energy(const Counters& counters, uint64_t registerAccesses) const {
  return estimateEnergy(model_, hw_, counters, registerAccesses, area_.totalUm2());
}

nlohmann::ordered_json Estimator::json() const {
  nlohmann::ordered_json sram = nlohmann::ordered_json::object();
  for (const auto& [name, um2] : area_.sramParts) sram[name] = um2;
  nlohmann::ordered_json coefficients = nlohmann::ordered_json::object();
  for (size_t i = 0; i < static_cast<size_t>(Coefficient::kCount); ++i) {
    const auto c = static_cast<Coefficient>(i);
    coefficients[std::string(info(c).key)] = {
        {"value", model_.get(c)},
        {"unit", info(c).unit},
        {"source", model_.overridden(c) ? model_.origin() : std::string(info(c).source)}};
  }
  return {{"areaUm2", area_.totalUm2()},
          {"area", {{"sramUm2", area_.sramUm2}, {"sram", sram}, {"logicUm2", area_.logicUm2},
                    {"logicNote", area_.logicNote}}},
          {"energyModel", {{"origin", model_.origin()}, {"coefficients", coefficients}}}};
}

std::vector<std::string> Estimator::describe() const {
  std::vector<std::string> lines = {"area: " + area_.describe(),
                                    fmt::format("energy model ({}):", model_.origin())};
  for (const auto& line : model_.describe()) lines.push_back("  " + line);
  return lines;
}

nlohmann::ordered_json toJson(const EnergyBreakdown& e) {
  return {{"totalPj", e.totalPj()},     {"macPj", e.macPj},   {"vectorPj", e.vectorPj},
          {"scratchpadPj", e.scratchpadPj}, {"accumulatorPj", e.accumulatorPj}, {"dramPj", e.dramPj},
          {"registerPj", e.registerPj}, {"leakagePj", e.leakagePj}};
}

std::string describe(const EnergyBreakdown& e) {
  const double total = e.totalPj();
  auto pct = [&](double part) { return total > 0 ? 100.0 * part / total : 0.0; };
  return fmt::format("{:.3f} uJ (array {:.0f}%, vector {:.0f}%, SRAM {:.0f}%, DRAM {:.0f}%, registers {:.0f}%, "
                     "leakage {:.0f}%)",
                     total * 1e-6, pct(e.macPj), pct(e.vectorPj), pct(e.scratchpadPj + e.accumulatorPj),
                     pct(e.dramPj), pct(e.registerPj), pct(e.leakagePj));
}

}  // namespace weft::codesign
