// A sweep specification (`weft sweep SPEC.json`): a base configuration, a grid and/or a list of
// points over the parameters of hw/spec/params.json, the workloads each point runs and the
// backend. Parsing checks all of it (every value against its parameter's range, every workload
// loaded) so that a bad spec fails before anything runs. An enumerated parameter takes its value
// names (as in configuration files); it is an integer in the plan and written by name in every
// output (point ids, plan.json, point files, results.csv and results.jsonl).
//
//   {"base": "weft16", "grid": {"Rows": [8, 16], "Cols": [8, 16], "Dataflow": ["WS", "OS"]},
//    "points": [{"Rows": 32, "Cols": 32, "DramBytesPerCycle": 32}],
//    "workloads": ["mobilenet_v1_224_quant", "tables/Resnet18.csv"], "backend": "approx"}
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "weft/hw/config.h"

namespace weft::tool {

class SweepError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct SweepWorkload {
  enum class Kind { kNetwork, kLayerTable };  // `weft run` / `weft layers`
  std::string label;  // its name (the network's, the table's): the `workload` column
  std::string path;   // absolute
  uint64_t contentHash = 0;  // FNV-1a of the file
  Kind kind = Kind::kLayerTable;
};

struct SweepPoint {
  std::string id;  // "Rows8-Cols16-DataflowOS": the swept parameters' values, a file name too
  std::vector<std::pair<std::string, int64_t>> values;  // each swept parameter, in params.json order
  hw::HwConfig config;
};

struct SweepPlan {
  std::string specPath;  // absolute
  std::string base;
  std::string backend;   // "approx" or "rtl"
  std::vector<std::string> swept;  // parameter names, params.json order
  std::vector<SweepPoint> points;  // grid points (first key slowest), then the listed points
  std::vector<SweepWorkload> workloads;

  // What the results of a point depend on: its configuration, the backend, the workloads (their
  // paths and a hash of their contents) and the energy model's text. A finished point whose
  // fingerprint differs is run again.
  nlohmann::ordered_json fingerprint(const SweepPoint& point, const std::string& energyModelText) const;

  // The plan as DIR/plan.json keeps it, for merging later (`weft sweep --collect DIR`).
  nlohmann::ordered_json toJson() const;
  static SweepPlan fromJson(const nlohmann::json& j);
};

// A swept value as the outputs write it: an enumerated parameter's value name ("OS"), else the
// number (a JSON string or number; text for CSV and point ids).
nlohmann::ordered_json paramValueJson(const std::string& param, int64_t value);
std::string paramValueText(const std::string& param, int64_t value);

// `backendOverride` (the command line's) wins over the spec's "backend"; `sourceDir` holds
// traces/networks for bundled network names. SweepError names the spec, the field and what is
// accepted.
SweepPlan loadSweepSpec(const std::string& path, const std::string& backendOverride, const std::string& sourceDir);
SweepPlan parseSweepSpec(const std::string& text, const std::string& path, const std::string& backendOverride,
                         const std::string& sourceDir);

}  // namespace weft::tool
