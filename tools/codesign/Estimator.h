// What a report needs from the co-design models for one hardware configuration: its area, the
// energy of any span of counters, and the models' sources, in text and JSON.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "Area.h"
#include "Energy.h"
#include "EnergyModel.h"

namespace weft::codesign {

class Estimator {
 public:
  // `energyModelPath` empty: the defaults. ModelError for a bad file.
  Estimator(const hw::HwConfig& hw, const std::string& energyModelPath);

  const AreaEstimate& area() const { return area_; }
  const EnergyModel& model() const { return model_; }
  // Energy of one span (a layer, an execution), leaking over the whole area.
  EnergyBreakdown energy(const Counters& counters, uint64_t registerAccesses) const;

  // {"areaUm2", "area": {sram parts, logic, note}, "energyModel": {"origin", "coefficients"}}.
  nlohmann::ordered_json json() const;
  // The lines a text report prints under its table: area, then the energy model's sources.
  std::vector<std::string> describe() const;

 private:
  hw::HwConfig hw_;
  EnergyModel model_;
  AreaEstimate area_;
};

// {"totalPj", "macPj", ..., "leakagePj"}.
nlohmann::ordered_json toJson(const EnergyBreakdown& e);
// "12.3 uJ (array 40%, vector 1%, SRAM 20%, DRAM 38%, registers 0%, leakage 1%)".
std::string describe(const EnergyBreakdown& e);

}  // namespace weft::codesign
