#include "SweepFiles.h"

#include <fmt/format.h>

#include "SweepResults.h"
#include "weft/common/files.h"

namespace weft::tool {

namespace fs = std::filesystem;
using nlohmann::json;
using nlohmann::ordered_json;

fs::path pointFile(const std::string& dir, const SweepPoint& p) { return fs::path(dir) / "points" / (p.id + ".json"); }

bool isDone(const std::string& dir, const SweepPoint& p, const ordered_json& fingerprint) {
  const fs::path path = pointFile(dir, p);
  if (!fs::exists(path)) return false;
  const json j = json::parse(common::readFile(path.string()).value_or(""), nullptr, false);
  return j.is_object() && j.value("status", "") == "ok" && j.contains("fingerprint") &&
         j["fingerprint"] == json::parse(fingerprint.dump());
}

size_t pointsWritten(const SweepPlan& plan, const std::string& dir) {
  size_t n = 0;
  for (const auto& p : plan.points) n += fs::exists(pointFile(dir, p)) ? 1 : 0;
  return n;
}

size_t merge(const SweepPlan& plan, const std::string& dir, bool quiet) {
  std::vector<json> files;
  std::vector<std::string> missing;
  size_t failed = 0;
  for (const auto& p : plan.points) {
    const fs::path path = pointFile(dir, p);
    json j = fs::exists(path) ? json::parse(common::readFile(path.string()).value_or(""), nullptr, false) : json();
    if (!j.is_object() || !j.contains("workloads")) {
      missing.push_back(p.id);
      continue;
    }
    failed += j["status"] == "ok" ? 0 : 1;
    files.push_back(std::move(j));
  }
  if (!missing.empty()) {
    throw std::runtime_error(fmt::format("{} of {} points have no result in {}/points yet (first: {}); run the "
                                         "sweep (or its missing shards) again",
                                         missing.size(), plan.points.size(), dir, missing.front()));
  }
  common::writeFileAtomically((fs::path(dir) / "results.csv").string(), resultsCsv(plan, files));
  common::writeFileAtomically((fs::path(dir) / "results.jsonl").string(), resultsJsonLines(plan, files));
  if (!quiet) {
    fmt::print("sweep: {} points x {} workloads on {}, {} failed; results in {}/results.csv and results.jsonl\n",
               plan.points.size(), plan.workloads.size(), plan.backend, failed, dir);
  }
  return failed;
}

}  // namespace weft::tool
