#include "DramCounters.h"

#include <unistd.h>

#include <algorithm>
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
  path_ = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/weft-dram-stats-" + std::to_string(::getpid()) +
          ".json";
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
    counters.emplace_back(name, now - std::min(now, before));
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
  const double total = static_cast<double>(named(report.dramCounters, "DRAM_ENERGY_PJ"));
  const double timed = std::min(total, static_cast<double>(named(report.dramCounters, "DRAM_TIME_ENERGY_PJ")));
  double cycles = 0, bytes = 0;
  for (const LayerReport& l : report.layers) {
    cycles += static_cast<double>(l.cycles);
    bytes += static_cast<double>(l.dramReadBytes + l.dramWriteBytes);
  }
  for (LayerReport& l : report.layers) {
    if (l.cycles == 0) continue;
    const double byTime = timed * static_cast<double>(l.cycles) / cycles;
    const double byTraffic =
        bytes > 0 ? (total - timed) * static_cast<double>(l.dramReadBytes + l.dramWriteBytes) / bytes : 0;
    l.energy.dramPj = byTime + byTraffic;
  }
  // The layers' energies were summed into the total before the split: the DRAM's is added whole.
  report.acceleratorEnergy.dramPj += total;
}

}  // namespace weft::tool
