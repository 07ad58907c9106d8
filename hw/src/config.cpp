#include "weft/hw/config.h"
#include "weft/hw/param_json.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "weft/common/files.h"
#include "weft/common/json_fields.h"

namespace weft::hw {
namespace {

const ParamSpec& spec(Param p) { return kParamSpecs[static_cast<size_t>(p)]; }

std::string quotedNames(const ParamSpec& s) {
  std::vector<std::string> quoted;
  for (const auto& v : s.values) quoted.push_back(fmt::format("\"{}\"", v));
  return fmt::format("{}", fmt::join(quoted, ", "));
}

void checkValue(const ParamSpec& s, int64_t v, std::string_view origin) {
  if (s.isEnum() && (v < s.minValue || v > s.maxValue)) {
    std::vector<std::string> values;
    for (size_t i = 0; i < s.values.size(); ++i) values.push_back(fmt::format("{} ({})", i, s.values[i]));
    throw ConfigError(
        fmt::format("{}: {} = {} is not one of its values {}", origin, s.name, v, fmt::join(values, ", ")));
  }
  if (v < s.minValue || v > s.maxValue) {
    throw ConfigError(fmt::format("{}: {} = {} is outside [{}, {}]", origin, s.name, v, s.minValue,
                                  s.maxValue));
  }
  if (s.powerOfTwo && (v & (v - 1)) != 0) {
    throw ConfigError(fmt::format("{}: {} = {} must be a power of two", origin, s.name, v));
  }
}

std::string acceptedNames() {
  return fmt::format("{}", fmt::join(HwConfig::namedConfigs(), ", "));
}

std::string_view namedText(std::string_view name) {
  for (const auto& c : kNamedConfigs) {
    if (c.name == name) return c.json;
  }
  return {};
}

}  // namespace

Param paramByName(std::string_view name) {
  for (size_t i = 0; i < kParamSpecs.size(); ++i) {
    if (kParamSpecs[i].name == name) return static_cast<Param>(i);
  }
  std::vector<std::string_view> names;
  for (const auto& s : kParamSpecs) names.push_back(s.name);
  throw ConfigError(
      fmt::format("unknown hardware parameter '{}'; parameters are: {}", name, fmt::join(names, ", ")));
}

int64_t paramValueByName(Param p, std::string_view valueName) {
  const ParamSpec& s = spec(p);
  for (size_t i = 0; i < s.values.size(); ++i) {
    if (s.values[i] == valueName) return static_cast<int64_t>(i);
  }
  if (!s.isEnum()) throw ConfigError(fmt::format("{} is not an enumerated parameter: its value is a number", s.name));
  // A DRAMsim3 file named where its kind goes: say how a configuration names one.
  const bool iniPath = p == Param::kDram && valueName.size() > 4 && valueName.substr(valueName.size() - 4) == ".ini";
  throw ConfigError(fmt::format("{} = \"{}\" is not one of {}{}", s.name, valueName, quotedNames(s),
                                iniPath ? " (a DRAMsim3 file: \"Dram\": \"ini\" in params and \"dram_ini\": "
                                          "\"<path>\" beside them)"
                                        : ""));
}

int64_t enumParamValue(Param p, const nlohmann::json& value, std::string_view origin) {
  const ParamSpec& s = spec(p);
  if (!value.is_string()) {
    throw ConfigError(fmt::format("{}: {} = {} is not one of {} (an enumerated parameter takes its value's name)", origin,
                                  s.name, value.dump(), quotedNames(s)));
  }
  try {
    return paramValueByName(p, value.get<std::string>());
  } catch (const ConfigError& e) {
    throw ConfigError(fmt::format("{}: {}", origin, e.what()));
  }
}

std::string paramValueText(Param p, int64_t value) {
  const ParamSpec& s = spec(p);
  if (s.isEnum() && value >= 0 && static_cast<size_t>(value) < s.values.size()) {
    return std::string(s.values[static_cast<size_t>(value)]);
  }
  return std::to_string(value);
}

std::string paramValueNames(Param p) { return quotedNames(spec(p)); }

HwConfig::HwConfig() : name_(kDefaultName) {
  for (const auto& s : kParamSpecs) values_.push_back(s.defaultValue);
}

std::vector<std::string> HwConfig::namedConfigs() {
  std::vector<std::string> names;
  for (const auto& c : kNamedConfigs) names.emplace_back(c.name);
  return names;
}

HwConfig HwConfig::fromJson(std::string_view json, std::string_view origin) {
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(json);
  } catch (const nlohmann::json::exception& e) {
    throw ConfigError(fmt::format("{}: not valid JSON: {}", origin, e.what()));
  }
  if (!doc.is_object()) throw ConfigError(fmt::format("{}: expected a JSON object", origin));
  for (const auto& [key, value] : doc.items()) {
    if (key != "name" && key != "doc" && key != "base" && key != "params" && key != "dram_ini") {
      throw ConfigError(fmt::format("{}: unknown key '{}'; accepted keys: name, doc, base, params, dram_ini",
                                    origin, key));
    }
  }
  HwConfig config;
  if (doc.contains("base")) {
    if (!doc["base"].is_string()) throw ConfigError(fmt::format("{}: 'base' must be a string", origin));
    const std::string base = doc["base"].get<std::string>();
    if (namedText(base).empty()) {
      throw ConfigError(fmt::format("{}: unknown base configuration '{}'; accepted: {}", origin, base,
                                    acceptedNames()));
    }
    config = fromJson(namedText(base), base);
  }
  if (doc.contains("name")) {
    if (!doc["name"].is_string()) throw ConfigError(fmt::format("{}: 'name' must be a string", origin));
    config.name_ = doc["name"].get<std::string>();
  } else {
    config.name_ = std::string(origin);
  }
  if (doc.contains("params")) {
    if (!doc["params"].is_object()) {
      throw ConfigError(fmt::format("{}: 'params' must be an object", origin));
    }
    for (const auto& [key, value] : doc["params"].items()) {
      const Param p = paramByName(key);
      const int64_t v = spec(p).isEnum()
                            ? enumParamValue(p, value, origin)
                            : common::json_fields::integer<ConfigError>(value, fmt::format("{}: {}", origin, key));
      checkValue(spec(p), v, origin);
      config.values_[static_cast<size_t>(p)] = v;
    }
  }
  if (doc.contains("dram_ini")) {
    if (!doc["dram_ini"].is_string() || doc["dram_ini"].get<std::string>().empty()) {
      throw ConfigError(fmt::format("{}: 'dram_ini' must be the path of a DRAMsim3 .ini file", origin));
    }
    config.dramIni_ = doc["dram_ini"].get<std::string>();
  }
  config.checkConstraints(origin);
  return config;
}

void HwConfig::checkConstraints(std::string_view origin) const {
  const bool ini = getEnum<Param::kDram>() == Dram::kIni;
  if (ini && dramIni_.empty()) {
    throw ConfigError(fmt::format("{}: Dram = \"ini\" needs 'dram_ini', the path of a DRAMsim3 .ini file", origin));
  }
  if (!ini && !dramIni_.empty()) {
    throw ConfigError(fmt::format("{}: 'dram_ini' is set but Dram = \"{}\": it applies to Dram \"ini\" only", origin,
                                  text(Param::kDram)));
  }
  if (const std::string_view error = violatedConstraint(*this); !error.empty()) {
    throw ConfigError(fmt::format("{}: {}", origin, error));
  }
}

HwConfig HwConfig::load(std::string_view nameOrPath) {
  if (const auto text = namedText(nameOrPath); !text.empty()) {
    return fromJson(text, nameOrPath);
  }
  const auto text = common::readFile(std::string(nameOrPath));
  if (!text) {
    throw ConfigError(fmt::format(
        "unknown hardware configuration '{}': not a named configuration ({}) and not a readable file",
        nameOrPath, acceptedNames()));
  }
  HwConfig config = fromJson(*text, nameOrPath);
  // A relative .ini path is relative to the configuration file.
  if (!config.dramIni_.empty() && config.dramIni_.front() != '/') {
    const std::string path(nameOrPath);
    const size_t slash = path.rfind('/');
    if (slash != std::string::npos) config.dramIni_ = path.substr(0, slash + 1) + config.dramIni_;
    // Absolute, so that a copy of the configuration written elsewhere (sweeps, validate) still finds it.
    config.dramIni_ = std::filesystem::absolute(config.dramIni_).lexically_normal().string();
  }
  return config;
}

HwConfig HwConfig::with(Param p, int64_t value) const {
  checkValue(spec(p), value, name_);
  HwConfig copy = *this;
  copy.values_[static_cast<size_t>(p)] = value;
  return copy;
}

HwConfig HwConfig::with(std::string_view paramName, int64_t value) const {
  return with(paramByName(paramName), value);
}

std::string HwConfig::text(Param p) const { return paramValueText(p, get(p)); }

std::string HwConfig::enumParamsText() const {
  // The DRAM's enumerated parameters only with a cycle-level DRAM: "simple" is the pipe that the
  // reports already describe by its bytes per cycle and latency, and it ignores DramMapping.
  const bool simpleDram = getEnum<Param::kDram>() == Dram::kSimple;
  std::vector<std::string> parts;
  for (size_t i = 0; i < kParamSpecs.size(); ++i) {
    const auto p = static_cast<Param>(i);
    if (simpleDram && (p == Param::kDram || p == Param::kDramMapping)) continue;
    if (kParamSpecs[i].isEnum()) {
      parts.push_back(fmt::format("{} {}", kParamSpecs[i].name, text(static_cast<Param>(i))));
    }
  }
  return fmt::format("{}", fmt::join(parts, ", "));
}

// The key and the -G arguments hold an enumerated parameter's integer, as weft_top takes it.
std::string HwConfig::rtlKey() const {
  std::string key;
  for (size_t i = 0; i < kParamSpecs.size(); ++i) {
    if (!kParamSpecs[i].rtl) continue;
    if (!key.empty()) key += '_';
    key += fmt::format("{}{}", kParamSpecs[i].name, values_[i]);
  }
  return key;
}

std::vector<std::string> HwConfig::verilatorParams() const {
  std::vector<std::string> args;
  for (size_t i = 0; i < kParamSpecs.size(); ++i) {
    if (kParamSpecs[i].rtl) args.push_back(fmt::format("-G{}={}", kParamSpecs[i].name, values_[i]));
  }
  return args;
}

std::string HwConfig::toJson() const {
  nlohmann::ordered_json doc;
  doc["name"] = name_;
  nlohmann::ordered_json params;
  for (size_t i = 0; i < kParamSpecs.size(); ++i) {
    const std::string name(kParamSpecs[i].name);
    if (kParamSpecs[i].isEnum()) {
      params[name] = text(static_cast<Param>(i));
    } else {
      params[name] = values_[i];
    }
  }
  doc["params"] = params;
  if (!dramIni_.empty()) doc["dram_ini"] = dramIni_;
  return doc.dump(2);
}

}  // namespace weft::hw
