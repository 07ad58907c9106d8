#include "SweepFiles.h"

#include <fmt/format.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <thread>

#include "SweepResults.h"

namespace weft::tool {

namespace fs = std::filesystem;
using nlohmann::json;
using nlohmann::ordered_json;

std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

void writeAtomically(const fs::path& path, const std::string& text) {
  const fs::path tmp = path.string() + fmt::format(".tmp.{}.{}", getpid(),
                                                   std::hash<std::thread::id>()(std::this_thread::get_id()));
  {
    std::ofstream out(tmp, std::ios::binary);
    out << text;
    out.flush();
    if (!out) throw std::runtime_error(fmt::format("cannot write '{}'", tmp.string()));
  }
  fs::rename(tmp, path);
}

fs::path pointFile(const std::string& dir, const SweepPoint& p) { return fs::path(dir) / "points" / (p.id + ".json"); }

bool isDone(const std::string& dir, const SweepPoint& p, const ordered_json& fingerprint) {
  const fs::path path = pointFile(dir, p);
  if (!fs::exists(path)) return false;
  const json j = json::parse(readFile(path.string()), nullptr, false);
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
    json j = fs::exists(path) ? json::parse(readFile(path.string()), nullptr, false) : json();
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
  writeAtomically(fs::path(dir) / "results.csv", resultsCsv(plan, files));
  writeAtomically(fs::path(dir) / "results.jsonl", resultsJsonLines(plan, files));
  if (!quiet) {
    fmt::print("sweep: {} points x {} workloads on {}, {} failed; results in {}/results.csv and results.jsonl\n",
               plan.points.size(), plan.workloads.size(), plan.backend, failed, dir);
  }
  return failed;
}

}  // namespace weft::tool
