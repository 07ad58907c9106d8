// The layout of a sweep directory: DIR/plan.json (the resolved plan), DIR/points/<id>.json (one
// finished point each, written atomically), DIR/work/<id>/ (each run's configuration, report
// and log) and the merged DIR/results.csv and results.jsonl.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "SweepSpec.h"

namespace weft::tool {

std::filesystem::path pointFile(const std::string& dir, const SweepPoint& p);

// A point is done when its file holds a successful result for the same fingerprint.
bool isDone(const std::string& dir, const SweepPoint& p, const nlohmann::ordered_json& fingerprint);

// How many of the plan's points have a file in DIR/points (finished, failed or not).
size_t pointsWritten(const SweepPlan& plan, const std::string& dir);

// Reads every point file of the plan and writes the merged tables; returns how many points
// failed. Throws when a point has no file yet, naming how many and the first.
size_t merge(const SweepPlan& plan, const std::string& dir, bool quiet);

}  // namespace weft::tool
