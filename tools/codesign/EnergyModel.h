// The coefficients that turn hardware events into energy and memory capacity into area: one
// value per coefficient, each with its unit and where the default comes from. Defaults are
// 45 nm figures (Horowitz, "Computing's energy problem", ISSCC 2014, and the other sources
// named per entry); a JSON file overrides any of them: {"macPj": 0.25, "dramPjPerByte": 100}.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace weft::codesign {

class ModelError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

enum class Coefficient {
  kMacPj,                // one PE multiply-accumulate (int8 x int8 + int32)
  kFp16MacPj,            // one fp16 multiply-accumulate of a PE pair (binary16 x binary16 + binary32)
  kVectorLaneOpPj,       // one vector-lane operation
  kSramPjPerByteAt8KiB,  // SRAM access energy per byte for an 8 KiB array (scaled by sqrt(size))
  kDramPjPerByte,        // one byte moved to or from DRAM
  kRegisterAccessPj,     // one driver register access over the device's register bus
  kLeakageMwPerMm2,      // static power density over the whole area
  kSramUm2PerKiB,        // SRAM macro area per KiB (bit cells and periphery)
  kCount
};

struct CoefficientInfo {
  std::string_view key;     // the JSON key
  std::string_view unit;
  double defaultValue;
  std::string_view source;  // where the default comes from, printed with every estimate
};
const CoefficientInfo& info(Coefficient c);

class EnergyModel {
 public:
  // The defaults.
  EnergyModel();
  // The defaults with the values of a JSON file over them; ModelError names the file, the key
  // and what is accepted (the keys, non-negative numbers).
  static EnergyModel load(const std::string& path);
  static EnergyModel fromJson(std::string_view text, const std::string& origin);

  double get(Coefficient c) const { return values_[static_cast<size_t>(c)]; }
  // "defaults" or the override file's path.
  const std::string& origin() const { return origin_; }
  // One line per coefficient: key, value, unit, and its source ("file" when overridden).
  std::vector<std::string> describe() const;
  bool overridden(Coefficient c) const { return overridden_[static_cast<size_t>(c)]; }

 private:
  std::vector<double> values_;
  std::vector<bool> overridden_;
  std::string origin_ = "defaults";
};

}  // namespace weft::codesign
