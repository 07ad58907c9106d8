// A hardware configuration: one value for every parameter of hw/spec/params.json.
//
// Configurations come from a name (a file of hw/configs/, embedded at build time) or from a
// JSON file of the same shape: {"name": ..., "base": <named configuration>, "params": {...},
// "dram_ini": <a DRAMsim3 .ini file, with Dram "ini">}.
// Every value is checked against the parameter's range; an unknown name, key or value is a
// ConfigError whose message names what is accepted. An enumerated parameter (params.json
// "values") is an integer here, the index of its value name, and is written by its name in
// JSON ("Dataflow": "OS"); a number there is refused.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "weft/hw/generated.h"

namespace weft::hw {

class ConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class HwConfig {
 public:
  // The defaults of hw/spec/params.json (the weft16 configuration).
  HwConfig();

  // A named configuration ("weft16", "weft8", ...) or a path to a JSON configuration file.
  static HwConfig load(std::string_view nameOrPath);
  // Parses configuration JSON text; `origin` names it in error messages.
  static HwConfig fromJson(std::string_view json, std::string_view origin);
  static std::vector<std::string> namedConfigs();
  static constexpr std::string_view kDefaultName = "weft16";

  int64_t get(Param p) const { return values_[static_cast<size_t>(p)]; }
  // An enumerated parameter's value as its generated enumeration: getEnum<Param::kDataflow>().
  template <Param P>
  typename ParamEnum<P>::type getEnum() const {
    return static_cast<typename ParamEnum<P>::type>(get(P));
  }
  // A parameter's value as users read it: an enumerated parameter's value name ("OS"), else the number.
  std::string text(Param p) const;
  // Every enumerated parameter as "<name> <value>", comma-separated ("Dataflow WS"), for one-line
  // descriptions of a configuration; empty when params.json has none.
  std::string enumParamsText() const;
  // Returns a copy with one parameter changed; throws ConfigError when out of range.
  HwConfig with(Param p, int64_t value) const;
  HwConfig with(std::string_view paramName, int64_t value) const;

  const std::string& name() const { return name_; }
  void setName(std::string name) { name_ = std::move(name); }

  unsigned rows() const { return static_cast<unsigned>(get(Param::kRows)); }
  unsigned cols() const { return static_cast<unsigned>(get(Param::kCols)); }
  unsigned inSpadRows() const { return static_cast<unsigned>(get(Param::kInSpadRows)); }
  unsigned wSpadRows() const { return static_cast<unsigned>(get(Param::kWSpadRows)); }
  unsigned accRows() const { return static_cast<unsigned>(get(Param::kAccRows)); }
  unsigned paramRows() const { return static_cast<unsigned>(get(Param::kParamRows)); }
  unsigned vecSpadRows() const { return static_cast<unsigned>(get(Param::kVecSpadRows)); }
  unsigned busBytes() const { return static_cast<unsigned>(get(Param::kBusBytes)); }
  Dataflow dataflow() const { return getEnum<Param::kDataflow>(); }
  unsigned paramRowBytes() const { return static_cast<unsigned>(memRowBytes(Mem::kParam, *this)); }
  unsigned lutRows() const { return static_cast<unsigned>(memRows(Mem::kLut, *this)); }
  double clockMHz() const { return static_cast<double>(get(Param::kClockMHz)); }
  double cyclePeriodNs() const { return 1000.0 / clockMHz(); }
  uint64_t dramBytes() const { return static_cast<uint64_t>(get(Param::kDramMiB)) << 20; }

  // Throws ConfigError when the values break a constraint of params.json (Fp16 with the
  // output-stationary array, say), naming `origin`. fromJson checks; with() does not, so that a
  // configuration can pass through combinations on the way to its values.
  void checkConstraints(std::string_view origin) const;
  bool fp16() const { return get(Param::kFp16) != 0; }

  // Identifies the RTL build this configuration needs: the values of the 'rtl' parameters,
  // e.g. "Rows16_Cols16_InSpadRows4096_...". Two configurations with the same key share a
  // verilated model.
  std::string rtlKey() const;
  // "-GRows=16" ... for verilator, in parameter order.
  std::vector<std::string> verilatorParams() const;

  // {"name": ..., "params": {every parameter}}, enumerated parameters by their value names.
  std::string toJson() const;

  // Dram "ini": the DRAMsim3 .ini file (the configuration JSON's "dram_ini", relative to the
  // file that names it); empty otherwise.
  const std::string& dramIni() const { return dramIni_; }
  void setDramIni(std::string path) { dramIni_ = std::move(path); }

  bool operator==(const HwConfig& o) const { return values_ == o.values_ && dramIni_ == o.dramIni_; }

 private:
  std::string name_;
  std::vector<int64_t> values_;
  std::string dramIni_;
};

// The parameter called `name`, or throws ConfigError listing the parameter names.
Param paramByName(std::string_view name);

// The value of enumerated parameter `p` called `valueName` (its index in params.json "values"),
// or throws ConfigError: 'Dataflow = "XS" is not one of "WS", "OS"'.
int64_t paramValueByName(Param p, std::string_view valueName);
// A value of `p` as users read it: an enumerated parameter's value name ("OS"), else the number.
std::string paramValueText(Param p, int64_t value);
// An enumerated parameter's value names, quoted and comma-separated ("WS", "OS"), for messages;
// empty for an integer parameter.
std::string paramValueNames(Param p);

}  // namespace weft::hw
