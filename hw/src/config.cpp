#include "weft/hw/config.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace weft::hw {
namespace {

const ParamSpec& spec(Param p) { return kParamSpecs[static_cast<size_t>(p)]; }

void checkValue(const ParamSpec& s, int64_t v, std::string_view origin) {
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
    if (key != "name" && key != "doc" && key != "base" && key != "params") {
      throw ConfigError(fmt::format("{}: unknown key '{}'; accepted keys: name, doc, base, params",
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
      if (!value.is_number_integer()) {
        throw ConfigError(fmt::format("{}: {} must be an integer", origin, key));
      }
      const auto v = value.get<int64_t>();
      checkValue(spec(p), v, origin);
      config.values_[static_cast<size_t>(p)] = v;
    }
  }
  return config;
}

HwConfig HwConfig::load(std::string_view nameOrPath) {
  if (const auto text = namedText(nameOrPath); !text.empty()) {
    return fromJson(text, nameOrPath);
  }
  std::ifstream in{std::string(nameOrPath)};
  if (!in) {
    throw ConfigError(fmt::format(
        "unknown hardware configuration '{}': not a named configuration ({}) and not a readable file",
        nameOrPath, acceptedNames()));
  }
  std::stringstream text;
  text << in.rdbuf();
  return fromJson(text.str(), nameOrPath);
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
  for (size_t i = 0; i < kParamSpecs.size(); ++i) params[std::string(kParamSpecs[i].name)] = values_[i];
  doc["params"] = params;
  return doc.dump(2);
}

}  // namespace weft::hw
