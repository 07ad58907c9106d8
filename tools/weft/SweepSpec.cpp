#include "SweepSpec.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "Importer.h"
#include "LayerTable.h"
#include "Network.h"
#include "weft/common/files.h"
#include "weft/common/fnv1a.h"
#include "weft/common/json_fields.h"
#include "weft/hw/param_json.h"

namespace weft::tool {
namespace {

namespace fs = std::filesystem;
using nlohmann::ordered_json;

constexpr const char* kKeys = "doc, base, grid, points, workloads, backend";

std::string readFile(const std::string& path) {
  auto text = common::readFile(path);
  if (!text) throw SweepError(fmt::format("{}: cannot read the file", path));
  return std::move(*text);
}

std::vector<std::string> bundledNetworks(const std::string& sourceDir) {
  std::vector<std::string> names;
  std::error_code error;
  for (const auto& e : fs::directory_iterator(fs::path(sourceDir) / "traces" / "networks", error)) {
    if (e.path().extension() == ".json") names.push_back(e.path().stem().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

// A relative path is looked up beside the spec first, then from the working directory.
std::string resolvePath(const std::string& written, const std::string& specPath) {
  const fs::path p(written);
  if (p.is_absolute()) return p.lexically_normal().string();
  const fs::path besideSpec = fs::absolute(fs::path(specPath).parent_path() / p);
  if (fs::exists(besideSpec)) return besideSpec.lexically_normal().string();
  return fs::absolute(p).lexically_normal().string();
}

// An ONNX model as a workload: `weft run MODEL.onnx` with the entry's options, or with "mode":
// "layers" `weft layers MODEL.onnx` (each operation alone). Imported here, so that a model weft
// cannot take fails before anything runs.
SweepWorkload onnxWorkload(const ordered_json& entry, const std::string& where, const std::string& specPath) {
  SweepWorkload w;
  w.kind = SweepWorkload::Kind::kNetwork;
  std::string written;
  onnx::ImportOptions options;
  if (entry.is_string()) {
    written = entry.get<std::string>();
  } else {
    static const std::set<std::string> kKeys = {"path", "quantize", "calibration", "shape", "mode"};
    for (const auto& [key, value] : entry.items()) {
      if (kKeys.count(key) == 0) {
        throw SweepError(fmt::format("{}: unknown key \"{}\" (an ONNX workload takes {})", where, key,
                                     fmt::join(kKeys, ", ")));
      }
    }
    if (!entry.contains("path") || !entry["path"].is_string()) throw SweepError(where + ": \"path\" must be a string");
    written = entry["path"].get<std::string>();
    if (entry.contains("mode")) {
      if (entry["mode"] != "run" && entry["mode"] != "layers") {
        throw SweepError(where + ": \"mode\" must be \"run\" (the whole model, as weft run) or \"layers\" (each "
                                 "operation alone, as weft layers)");
      }
      if (entry["mode"] == "layers") w.kind = SweepWorkload::Kind::kLayerTable;
    }
    if (entry.contains("quantize")) {
      if (entry["quantize"] != "int8") throw SweepError(where + ": \"quantize\" must be \"int8\"");
      w.runArgs.insert(w.runArgs.end(), {"--quantize", "int8"});
    }
    if (entry.contains("calibration")) {
      if (!entry["calibration"].is_string() || !entry.contains("quantize")) {
        throw SweepError(where + ": \"calibration\" is a directory, with \"quantize\"");
      }
      const std::string dir = resolvePath(entry["calibration"].get<std::string>(), specPath);
      if (!fs::is_directory(dir)) throw SweepError(fmt::format("{}: calibration directory {} does not exist", where, dir));
      w.runArgs.insert(w.runArgs.end(), {"--calibration", dir});
    }
    if (entry.contains("shape")) {
      if (!entry["shape"].is_array()) throw SweepError(where + ": \"shape\" must be a list of NAME=1x3x224x224");
      for (const auto& s : entry["shape"]) {
        if (!s.is_string()) throw SweepError(where + ": \"shape\" must be a list of NAME=1x3x224x224");
        const std::string text = s.get<std::string>();
        const size_t eq = text.find('=');
        if (eq == std::string::npos || eq == 0) throw SweepError(fmt::format("{}: shape {}: give NAME=1x3x224x224", where, text));
        try {
          options.shapes[text.substr(0, eq)] = onnx::parseShape(text.substr(eq + 1));
        } catch (const std::exception& e) {
          throw SweepError(fmt::format("{}: {}", where, e.what()));
        }
        w.runArgs.insert(w.runArgs.end(), {"--shape", text});
      }
    }
  }
  w.path = resolvePath(written, specPath);
  if (!fs::is_regular_file(w.path)) throw SweepError(fmt::format("{}: '{}' is not a file", where, written));
  try {
    onnx::importOnnxFile(w.path, options);
  } catch (const std::exception& e) {
    throw SweepError(fmt::format("{}: '{}' does not load: {}", where, written, e.what()));
  }
  w.label = fs::path(w.path).stem().string();
  std::string identity = readFile(w.path);
  for (const std::string& a : w.runArgs) identity += '\0' + a;
  if (w.kind == SweepWorkload::Kind::kLayerTable) identity += std::string("\0layers", 7);
  w.contentHash = common::fnv1a(identity);
  return w;
}

SweepWorkload workload(const ordered_json& entry, const std::string& where, const std::string& specPath,
                       const std::string& sourceDir) {
  if (entry.is_object()) return onnxWorkload(entry, where, specPath);
  if (!entry.is_string() || entry.get<std::string>().empty()) {
    throw SweepError(fmt::format("{}: must be a bundled network's name or a path to a network, layer set, "
                                 "SCALE-Sim table or ONNX model",
                                 where));
  }
  const std::string written = entry.get<std::string>();
  if (onnx::isOnnxPath(written)) return onnxWorkload(entry, where, specPath);
  const std::string bundled = (fs::path(sourceDir) / "traces" / "networks" / (written + ".json")).string();
  SweepWorkload w;
  if (written.find('/') == std::string::npos && fs::exists(bundled)) {
    w.path = bundled;
  } else {
    w.path = resolvePath(written, specPath);
  }
  if (!fs::is_regular_file(w.path)) {
    throw SweepError(fmt::format("{}: '{}' is neither a bundled network ({}) nor a file", where, written,
                                 fmt::join(bundledNetworks(sourceDir), ", ")));
  }
  const std::string text = readFile(w.path);
  w.contentHash = common::fnv1a(text);
  try {
    // A network description has a top-level "input"; a layer set and a table have none.
    bool network = false;
    if (fs::path(w.path).extension() == ".json") {
      const auto doc = nlohmann::json::parse(text, nullptr, false);
      network = doc.is_object() && doc.contains("input");
    }
    if (network) {
      w.kind = SweepWorkload::Kind::kNetwork;
      w.label = parseNetwork(text, w.path).name;
    } else {
      w.kind = SweepWorkload::Kind::kLayerTable;
      w.label = loadLayerTable(w.path).name;
    }
  } catch (const std::exception& e) {
    throw SweepError(fmt::format("{}: '{}' does not load: {}", where, written, e.what()));
  }
  return w;
}

int64_t integerValue(const ordered_json& v, const std::string& where) {
  return common::json_fields::integer<SweepError>(v, where + ":");
}

// A value of `param` as the spec writes it: an integer, or an enumerated parameter's value name.
int64_t paramValue(const std::string& param, const ordered_json& v, const std::string& where) {
  const hw::Param p = hw::paramByName(param);
  if (!hw::kParamSpecs[static_cast<size_t>(p)].isEnum()) return integerValue(v, where);
  try {
    return hw::enumParamValue(p, nlohmann::json(v), where);
  } catch (const hw::ConfigError& e) {
    throw SweepError(e.what());
  }
}

// plan.json's form of a value: the value name of an enumerated parameter, else the number.
int64_t paramValueFromPlan(const std::string& param, const nlohmann::json& v) {
  return v.is_string() ? hw::paramValueByName(hw::paramByName(param), v.get<std::string>()) : v.get<int64_t>();
}

// Checks one value against its parameter (range, power of two) by applying it to the base.
hw::HwConfig apply(const hw::HwConfig& config, const std::string& param, int64_t value, const std::string& where) {
  try {
    return config.with(param, value);
  } catch (const hw::ConfigError& e) {
    throw SweepError(fmt::format("{}: {}", where, e.what()));
  }
}

}  // namespace

ordered_json paramValueJson(const std::string& param, int64_t value) {
  const hw::Param p = hw::paramByName(param);
  if (hw::kParamSpecs[static_cast<size_t>(p)].isEnum()) return hw::paramValueText(p, value);
  return value;
}

std::string paramValueText(const std::string& param, int64_t value) {
  return hw::paramValueText(hw::paramByName(param), value);
}

ordered_json SweepPlan::fingerprint(const SweepPoint& point, const std::string& energyModelText) const {
  ordered_json workloadsJson = ordered_json::array();
  for (const auto& w : workloads) workloadsJson.push_back({{"path", w.path}, {"hash", fmt::format("{:016x}", w.contentHash)}});
  return {{"config", ordered_json::parse(point.config.toJson())},
          {"backend", backend},
          {"workloads", workloadsJson},
          {"energyModel", fmt::format("{:016x}", common::fnv1a(energyModelText))}};
}

ordered_json SweepPlan::toJson() const {
  ordered_json j = {{"spec", specPath}, {"base", base}, {"backend", backend}, {"swept", swept}};
  auto& pointsJson = j["points"] = ordered_json::array();
  for (const auto& p : points) {
    ordered_json values = ordered_json::object();
    for (const auto& [param, value] : p.values) values[param] = paramValueJson(param, value);
    pointsJson.push_back({{"id", p.id}, {"values", values}, {"config", ordered_json::parse(p.config.toJson())}});
  }
  auto& workloadsJson = j["workloads"] = ordered_json::array();
  for (const auto& w : workloads) {
    workloadsJson.push_back({{"label", w.label}, {"path", w.path}, {"hash", w.contentHash},
                             {"kind", w.kind == SweepWorkload::Kind::kNetwork ? "network" : "layers"},
                             {"args", w.runArgs}});
  }
  return j;
}

SweepPlan SweepPlan::fromJson(const nlohmann::json& j) {
  SweepPlan plan;
  plan.specPath = j.at("spec").get<std::string>();
  plan.base = j.at("base").get<std::string>();
  plan.backend = j.at("backend").get<std::string>();
  plan.swept = j.at("swept").get<std::vector<std::string>>();
  for (const auto& p : j.at("points")) {
    SweepPoint point;
    point.id = p.at("id").get<std::string>();
    for (const auto& param : plan.swept) {
      point.values.emplace_back(param, paramValueFromPlan(param, p.at("values").at(param)));
    }
    point.config = hw::HwConfig::fromJson(p.at("config").dump(), point.id);
    plan.points.push_back(std::move(point));
  }
  for (const auto& w : j.at("workloads")) {
    SweepWorkload workload;
    workload.label = w.at("label").get<std::string>();
    workload.path = w.at("path").get<std::string>();
    workload.contentHash = w.at("hash").get<uint64_t>();
    workload.kind = w.at("kind") == "network" ? SweepWorkload::Kind::kNetwork : SweepWorkload::Kind::kLayerTable;
    if (w.contains("args")) workload.runArgs = w.at("args").get<std::vector<std::string>>();
    plan.workloads.push_back(std::move(workload));
  }
  return plan;
}

SweepPlan loadSweepSpec(const std::string& path, const std::string& backendOverride, const std::string& sourceDir) {
  return parseSweepSpec(readFile(path), path, backendOverride, sourceDir);
}

SweepPlan parseSweepSpec(const std::string& text, const std::string& path, const std::string& backendOverride,
                         const std::string& sourceDir) {
  ordered_json spec;
  try {
    spec = ordered_json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw SweepError(fmt::format("{}: not JSON ({})", path, e.what()));
  }
  if (!spec.is_object()) throw SweepError(fmt::format("{}: must be a JSON object with the keys {}", path, kKeys));
  static const std::set<std::string> kAccepted = {"doc", "base", "grid", "points", "workloads", "backend"};
  for (const auto& [key, value] : spec.items()) {
    if (kAccepted.count(key) == 0) {
      throw SweepError(fmt::format("{}: unknown key \"{}\" (accepted: {})", path, key, kKeys));
    }
  }
  SweepPlan plan;
  plan.specPath = fs::absolute(path).lexically_normal().string();

  // The base: a named configuration or a configuration file.
  plan.base = hw::HwConfig::kDefaultName;
  if (spec.contains("base")) {
    if (!spec["base"].is_string()) throw SweepError(fmt::format("{}: \"base\" must be a string", path));
    plan.base = spec["base"].get<std::string>();
  }
  hw::HwConfig base;
  try {
    // A bare name is a named configuration; anything like a path is a file beside the spec.
    const bool file = plan.base.find('/') != std::string::npos || fs::path(plan.base).extension() == ".json";
    base = hw::HwConfig::load(file ? resolvePath(plan.base, path) : plan.base);
  } catch (const hw::ConfigError& e) {
    throw SweepError(fmt::format("{}: \"base\": {}", path, e.what()));
  }

  plan.backend = backendOverride.empty() ? "approx" : backendOverride;
  if (backendOverride.empty() && spec.contains("backend")) {
    if (!spec["backend"].is_string()) throw SweepError(fmt::format("{}: \"backend\" must be a string", path));
    plan.backend = spec["backend"].get<std::string>();
  }
  if (plan.backend != "approx" && plan.backend != "rtl" && plan.backend != "timing") {
    throw SweepError(fmt::format("{}: backend \"{}\" is not approx, rtl or timing", path, plan.backend));
  }

  // The points: every combination of the grid, then the listed points, each over the base.
  std::vector<std::vector<std::pair<std::string, int64_t>>> assignments = {{}};
  if (spec.contains("grid")) {
    const auto& grid = spec["grid"];
    if (!grid.is_object()) {
      throw SweepError(fmt::format("{}: \"grid\" must be an object of parameter: [values]", path));
    }
    for (const auto& [param, values] : grid.items()) {
      const std::string where = fmt::format("{}: grid.{}", path, param);
      try {
        hw::paramByName(param);
      } catch (const hw::ConfigError& e) {
        throw SweepError(fmt::format("{}: {}", where, e.what()));
      }
      if (!values.is_array() || values.empty()) throw SweepError(fmt::format("{}: must be a non-empty list", where));
      std::vector<std::vector<std::pair<std::string, int64_t>>> next;
      for (const auto& a : assignments) {
        for (size_t i = 0; i < values.size(); ++i) {
          const std::string at = fmt::format("{}[{}]", where, i);
          const int64_t v = paramValue(param, values[i], at);
          apply(base, param, v, at);
          auto b = a;
          b.emplace_back(param, v);
          next.push_back(std::move(b));
        }
      }
      assignments = std::move(next);
    }
  }
  if (spec.contains("points")) {
    const auto& points = spec["points"];
    if (!points.is_array()) throw SweepError(fmt::format("{}: \"points\" must be a list of objects", path));
    if (!spec.contains("grid")) assignments.clear();
    for (size_t i = 0; i < points.size(); ++i) {
      const std::string where = fmt::format("{}: points[{}]", path, i);
      if (!points[i].is_object()) throw SweepError(fmt::format("{}: must be an object of parameter: value", where));
      std::vector<std::pair<std::string, int64_t>> a;
      for (const auto& [param, value] : points[i].items()) {
        const std::string at = fmt::format("{}.{}", where, param);
        try {
          hw::paramByName(param);
        } catch (const hw::ConfigError& e) {
          throw SweepError(fmt::format("{}: {}", at, e.what()));
        }
        a.emplace_back(param, paramValue(param, value, at));
      }
      assignments.push_back(std::move(a));
    }
  }

  if (assignments.empty()) throw SweepError(fmt::format("{}: \"points\" lists no point", path));

  // Swept: every parameter the grid or a point names, in params.json order.
  std::set<std::string> named;
  for (const auto& a : assignments) {
    for (const auto& [param, value] : a) named.insert(param);
  }
  for (const auto& s : hw::kParamSpecs) {
    if (named.count(std::string(s.name)) != 0) plan.swept.emplace_back(s.name);
  }
  std::set<std::string> ids;
  for (size_t i = 0; i < assignments.size(); ++i) {
    SweepPoint point;
    point.config = base;
    for (const auto& [param, value] : assignments[i]) {
      point.config = apply(point.config, param, value, fmt::format("{}: point {}", path, i));
    }
    for (const auto& param : plan.swept) {
      point.values.emplace_back(param, point.config.get(hw::paramByName(param)));
      point.id +=
          fmt::format("{}{}{}", point.id.empty() ? "" : "-", param, paramValueText(param, point.values.back().second));
    }
    if (point.id.empty()) point.id = "base";
    try {  // a combination no hardware has (Fp16 with Dataflow OS) is a spec error too
      point.config.checkConstraints(fmt::format("{}: point {} ({})", path, i, point.id));
    } catch (const hw::ConfigError& e) {
      throw SweepError(e.what());
    }
    if (!ids.insert(point.id).second) continue;  // the same configuration twice runs once
    point.config.setName(point.id);
    plan.points.push_back(std::move(point));
  }

  // The workloads, each loaded once now so that a bad one fails before anything runs.
  if (!spec.contains("workloads") || !spec["workloads"].is_array() || spec["workloads"].empty()) {
    throw SweepError(fmt::format("{}: \"workloads\" must be a non-empty list of bundled network names ({}) or "
                                 "paths to networks, layer sets, SCALE-Sim tables or ONNX models",
                                 path, fmt::join(bundledNetworks(sourceDir), ", ")));
  }
  std::set<std::string> labels;
  for (size_t i = 0; i < spec["workloads"].size(); ++i) {
    const std::string where = fmt::format("{}: workloads[{}]", path, i);
    SweepWorkload w = workload(spec["workloads"][i], where, path, sourceDir);
    if (!labels.insert(w.label).second) {
      throw SweepError(fmt::format("{}: a second workload named '{}' (the results could not tell them apart)", where,
                                   w.label));
    }
    plan.workloads.push_back(std::move(w));
  }
  return plan;
}

}  // namespace weft::tool
