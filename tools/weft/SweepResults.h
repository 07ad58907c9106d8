// What a sweep keeps of each point: per workload, one row per layer and a total, read from the
// report of the `weft run` / `weft layers` process that ran it; and the merged table of all
// points (results.csv, results.jsonl). Nothing host-dependent (wall times, in-driver times) is
// kept, so the same sweep gives the same bytes.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "SweepSpec.h"

namespace weft::tool {

// One workload of one point, as stored in DIR/points/<id>.json.
//   {"workload", "status": "ok"|"failed", "error", "areaUm2",
//    "rows": [{"layer", "unit", "cycles", "onHwNs", "utilPct", "dramReadBytes", "dramWriteBytes", "energyPj",
//              "dram"}]}
// onHwNs and utilPct are null off the accelerator; the last row is the "total". "dram" is a
// cycle-level DRAM's figures (DramFigures.h: row-hit rate, activates, refreshes, read latency,
// bank-level parallelism): each layer's from a layer table's report, the execution's on a
// network's total row; null for the simple pipe.
nlohmann::ordered_json workloadFromLayersReport(const std::string& label, const nlohmann::json& report,
                                                double clockMHz);
nlohmann::ordered_json workloadFromRunReport(const std::string& label, const nlohmann::json& report);
nlohmann::ordered_json failedWorkload(const std::string& label, const std::string& error);

// The merged table: a header, then for each point (in plan order) and workload its rows.
// `pointFiles[i]` is the parsed point file of plan.points[i].
std::string resultsCsv(const SweepPlan& plan, const std::vector<nlohmann::json>& pointFiles);
std::string resultsJsonLines(const SweepPlan& plan, const std::vector<nlohmann::json>& pointFiles);

}  // namespace weft::tool
