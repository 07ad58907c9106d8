#include "EnergyModel.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "weft/common/files.h"

namespace weft::codesign {
namespace {

// Horowitz, "Computing's energy problem (and what we can do about it)", ISSCC 2014, 45 nm at
// 0.9 V: int8 multiply 0.2 pJ, int32 add 0.1 pJ; a 64-bit access of an 8 KB / 32 KB / 1 MB
// SRAM 10 / 20 / 100 pJ; a 64-bit DRAM access 1.3-2.6 nJ.
constexpr CoefficientInfo kInfo[] = {
    {"macPj", "pJ per MAC", 0.3, "Horowitz ISSCC 2014, 45 nm: int8 multiply 0.2 pJ + int32 add 0.1 pJ"},
    {"fp16MacPj", "pJ per fp16 MAC", 2.0,
     "Horowitz ISSCC 2014, 45 nm: 16-bit float multiply 1.1 pJ + 32-bit float add 0.9 pJ"},
    {"vectorLaneOpPj", "pJ per lane operation", 0.3,
     "assumed equal to a MAC (a lane does at most one multiply and one 32-bit add per slot)"},
    {"sramPjPerByteAt8KiB", "pJ per byte accessed, 8 KiB array", 1.25,
     "Horowitz ISSCC 2014, 45 nm: 10 pJ per 64-bit access of an 8 KB SRAM; scaled by sqrt(capacity / 8 KiB), "
     "which meets his 32 KB (20 pJ) and 1 MB (100 pJ) points within 13%"},
    {"dramPjPerByte", "pJ per byte", 243.75, "Horowitz ISSCC 2014: 1.3-2.6 nJ per 64-bit DRAM access, midpoint / 8 bytes"},
    {"registerAccessPj", "pJ per register access", 20,
     "assumed: a 32-bit bus transaction to the device, costed like a 64-bit access of a 32 KB SRAM "
     "(Horowitz ISSCC 2014: 20 pJ)"},
    {"leakageMwPerMm2", "mW per mm^2", 20,
     "assumed: NanGate 45 nm Open Cell Library (typical corner) cells leak about 15-80 nW on 0.5-4.5 um^2 "
     "(INV_X1 .. DFF_X1), about 20 mW/mm^2; SRAM taken alike"},
    {"sramUm2PerKiB", "um^2 per KiB", 4724,
     "6T bit cell of 0.346 um^2 (Intel 45 nm, Mistry et al., IEDM 2007) x 8192 bits / 60% array efficiency"},
};
static_assert(std::size(kInfo) == static_cast<size_t>(Coefficient::kCount));

std::string acceptedKeys() {
  std::string keys;
  for (const auto& i : kInfo) keys += (keys.empty() ? "" : ", ") + std::string(i.key);
  return keys;
}

}  // namespace

const CoefficientInfo& info(Coefficient c) { return kInfo[static_cast<size_t>(c)]; }

EnergyModel::EnergyModel() : overridden_(std::size(kInfo), false) {
  for (const auto& i : kInfo) values_.push_back(i.defaultValue);
}

EnergyModel EnergyModel::load(const std::string& path) {
  const auto text = common::readFile(path);
  if (!text) throw ModelError(fmt::format("energy model '{}': cannot read the file", path));
  return fromJson(*text, path);
}

EnergyModel EnergyModel::fromJson(std::string_view text, const std::string& origin) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw ModelError(fmt::format("energy model '{}': not JSON ({})", origin, e.what()));
  }
  if (!j.is_object()) {
    throw ModelError(fmt::format("energy model '{}': must be an object of coefficients ({})", origin, acceptedKeys()));
  }
  EnergyModel model;
  model.origin_ = origin;
  for (const auto& [key, value] : j.items()) {
    if (key == "doc") continue;  // a file may say where its numbers come from
    size_t index = 0;
    while (index < std::size(kInfo) && kInfo[index].key != key) ++index;
    if (index == std::size(kInfo)) {
      throw ModelError(fmt::format("energy model '{}': unknown key \"{}\" (accepted: doc, {})", origin, key,
                                   acceptedKeys()));
    }
    if (!value.is_number() || value.get<double>() < 0) {
      throw ModelError(fmt::format("energy model '{}': \"{}\" must be a non-negative number ({})", origin, key,
                                   kInfo[index].unit));
    }
    model.values_[index] = value.get<double>();
    model.overridden_[index] = true;
  }
  return model;
}

std::vector<std::string> EnergyModel::describe() const {
  std::vector<std::string> lines;
  for (size_t i = 0; i < std::size(kInfo); ++i) {
    lines.push_back(fmt::format("{} = {} {}: {}", kInfo[i].key, values_[i], kInfo[i].unit,
                                overridden_[i] ? "from " + origin_ : std::string(kInfo[i].source)));
  }
  return lines;
}

}  // namespace weft::codesign
