// What a cycle-level DRAM's counters (DRAM_READS, DRAM_ROW_HITS, ...: weft/sim/dram_counters.h)
// say at a glance, for the reports of `weft run`, `weft layers` and `weft sweep`: the row-hit
// rate, activates, refreshes, the average read and write latencies and the bank-level
// parallelism.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace weft::tool {

// Counters as name -> value pairs (a profile's, a report's) as an object, what dramFigures reads.
inline nlohmann::json counterObject(const std::vector<std::pair<std::string, uint64_t>>& counters) {
  nlohmann::json object = nlohmann::json::object();
  for (const auto& [name, value] : counters) object[name] = value;
  return object;
}

// `counters`: an object of counter name -> value (a layer's `counters`, the run's `dram`
// counters, or their sums). Null when it holds no DRAM counters (the simple pipe).
inline nlohmann::json dramFigures(const nlohmann::json& counters) {
  if (!counters.is_object() || !counters.contains("DRAM_READS")) return nullptr;
  auto counter = [&](const char* name) -> double {
    const auto it = counters.find(name);
    return it != counters.end() && it->is_number() ? it->get<double>() : 0.0;
  };
  const double columns = counter("DRAM_ROW_HITS") + counter("DRAM_ROW_MISSES") + counter("DRAM_ROW_CONFLICTS");
  const double done = counter("DRAM_READS_DONE"), busy = counter("DRAM_BUSY_CYCLES");
  return {{"rowHitPct", columns > 0 ? 100 * counter("DRAM_ROW_HITS") / columns : 0.0},
          {"activates", static_cast<uint64_t>(counter("DRAM_ACTIVATES"))},
          {"refreshes", static_cast<uint64_t>(counter("DRAM_REFRESHES"))},
          {"readLatencyCycles", done > 0 ? counter("DRAM_READ_LATENCY_SUM") / done : 0.0},
          {"writeLatencyCycles",
           counter("DRAM_WRITE_COMMANDS") > 0 ? counter("DRAM_WRITE_LATENCY_SUM") / counter("DRAM_WRITE_COMMANDS") : 0.0},
          {"bankLevelParallelism", busy > 0 ? counter("DRAM_BANK_BUSY_SUM") / busy : 0.0}};
}

// The DRAM over a run on one line: "DRAM (device): R reads and W writes; row hits ...; energy E uJ".
inline std::string dramLine(const std::string& device, const nlohmann::json& counters) {
  const nlohmann::json f = dramFigures(counters);
  if (f.is_null()) return "";
  auto counter = [&](const char* name) { return counters.value(name, uint64_t{0}); };
  return fmt::format(
      "DRAM ({}): {} reads and {} writes; row hits {:.1f}% ({} hits, {} misses, {} conflicts); {} activates, {} "
      "refreshes; average latency {:.1f} DRAM cycles a read, {:.1f} a write (to its command); bank-level "
      "parallelism {:.2f}; energy {:.3f} uJ",
      device, counter("DRAM_READS"), counter("DRAM_WRITES"), f["rowHitPct"].get<double>(), counter("DRAM_ROW_HITS"),
      counter("DRAM_ROW_MISSES"), counter("DRAM_ROW_CONFLICTS"), f["activates"].get<uint64_t>(),
      f["refreshes"].get<uint64_t>(), f["readLatencyCycles"].get<double>(), f["writeLatencyCycles"].get<double>(),
      f["bankLevelParallelism"].get<double>(),
      1e-6 * static_cast<double>(counter("DRAM_ENERGY_PJ")));
}

// Adds `counters`' values to `sum` (both objects of counter name -> value).
inline void addCounters(nlohmann::json& sum, const nlohmann::json& counters) {
  if (!counters.is_object()) return;
  for (const auto& [name, value] : counters.items()) {
    if (!value.is_number_unsigned()) continue;
    sum[name] = (sum.contains(name) ? sum[name].get<uint64_t>() : 0) + value.get<uint64_t>();
  }
}

}  // namespace weft::tool
