#include "DramCounters.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string_view>
#include <nlohmann/json.hpp>

#include "Report.h"
#include "weft/common/files.h"

namespace weft::tool {
namespace {

std::mutex& lastMutex() {
  static std::mutex m;
  return m;
}
std::map<std::string, uint64_t>& last() {
  static std::map<std::string, uint64_t> values;
  return values;
}

}  // namespace

DramCountersScope::DramCountersScope(const hw::HwConfig& hw) {
  if (hw.get(hw::Param::kDram) == 0) return;
  const char* tmp = std::getenv("TMPDIR");
  // A new name for each scope: the DRAM counts a file's growth from the first program that sees
  // it (sim/include/weft/sim/dram_counters.h), so a workload's counters never include the ones
  // run before it on the same device (`weft estimate` runs several networks in one process).
  static std::atomic<uint64_t> scopes{0};
  path_ = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/weft-dram-stats-" + std::to_string(::getpid()) +
          "-" + std::to_string(scopes++) + ".json";
  std::remove(path_.c_str());
  ::setenv("WEFT_DRAM_STATS", path_.c_str(), 1);
  std::lock_guard<std::mutex> lock(lastMutex());
  last().clear();
}

DramCountersScope::~DramCountersScope() {
  if (path_.empty()) return;
  ::unsetenv("WEFT_DRAM_STATS");
  std::remove(path_.c_str());
}

void appendDramCounterDeltas(std::vector<std::pair<std::string, uint64_t>>& counters) {
  const char* path = std::getenv("WEFT_DRAM_STATS");
  if (path == nullptr || *path == '\0') return;
  const auto text = common::readFile(path);
  if (!text) return;  // no program has ended yet
  const nlohmann::json j = nlohmann::json::parse(*text, nullptr, false);
  if (!j.is_object()) return;
  std::lock_guard<std::mutex> lock(lastMutex());
  for (const auto& [name, value] : j.items()) {
    if (!value.is_number_unsigned()) continue;
    const uint64_t now = value.get<uint64_t>();
    uint64_t& before = last()[name];
    auto it = std::find_if(counters.begin(), counters.end(), [&](const auto& c) { return c.first == name; });
    if (it == counters.end()) {
      counters.emplace_back(name, now - std::min(now, before));
    } else {
      it->second = now - std::min(now, before);  // the program's, its end included, over its layers'
    }
    before = now;
  }
}

namespace {
uint64_t named(const std::vector<std::pair<std::string, uint64_t>>& counters, std::string_view name) {
  for (const auto& [n, v] : counters) {
    if (n == name) return v;
  }
  return 0;
}
}  // namespace

void attributeDramEnergy(RunReport& report) {
  if (report.dramCounters.empty()) return;
  // Each layer's own counters (the checkpoints at its snapshots) gave its DRAM energy, already in
  // the total with the layer's: what is left is outside every layer.
  double layers = 0;
  for (const LayerReport& l : report.layers) layers += l.energy.dramPj;
  const double total = static_cast<double>(named(report.dramCounters, "DRAM_ENERGY_PJ"));
  report.dramOutsideLayersPj = std::max(0.0, total - layers);
  report.acceleratorEnergy.dramPj += report.dramOutsideLayersPj;
}

}  // namespace weft::tool
