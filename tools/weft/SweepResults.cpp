#include "SweepResults.h"

#include <fmt/format.h>

#include <cmath>

#include "DramFigures.h"

namespace weft::tool {
namespace {

using nlohmann::json;
using nlohmann::ordered_json;

// `dram`: a cycle-level DRAM's figures of the row (dramFigures), null for the simple pipe or where
// they are not known (a network's layers: only the execution's are).
ordered_json row(const std::string& layer, const std::string& unit, uint64_t cycles, const json& onHwNs,
                 const json& utilPct, uint64_t rd, uint64_t wr, double energyPj, const json& dram = nullptr) {
  return {{"layer", layer},         {"unit", unit},           {"cycles", cycles},
          {"onHwNs", onHwNs},       {"utilPct", utilPct},     {"dramReadBytes", rd},
          {"dramWriteBytes", wr},   {"energyPj", energyPj},   {"dram", dram}};
}

// The total of accelerator rows: sums, and utilization weighted by each layer's cycles; `dram`
// the DRAM's figures over all of them.
ordered_json totalRow(const ordered_json& rows, double energyPj, const json& dram) {
  uint64_t cycles = 0, onHw = 0, rd = 0, wr = 0;
  double weighted = 0;
  for (const auto& r : rows) {
    cycles += r["cycles"].get<uint64_t>();
    if (!r["onHwNs"].is_null()) onHw += r["onHwNs"].get<uint64_t>();
    if (!r["utilPct"].is_null()) weighted += r["utilPct"].get<double>() * r["cycles"].get<double>();
    rd += r["dramReadBytes"].get<uint64_t>();
    wr += r["dramWriteBytes"].get<uint64_t>();
  }
  return row("total", "", cycles, onHw, cycles > 0 ? json(weighted / static_cast<double>(cycles)) : json(nullptr), rd,
             wr, energyPj, dram);
}

ordered_json workload(const std::string& label, ordered_json rows, double totalEnergyPj, double areaUm2,
                      const json& dram) {
  rows.push_back(totalRow(rows, totalEnergyPj, dram));
  return {{"workload", label}, {"status", "ok"}, {"error", ""}, {"areaUm2", areaUm2}, {"rows", rows}};
}

std::string csvField(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string quoted = "\"";
  for (char c : s) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

std::string number(const json& v, const char* format) {
  if (v.is_null()) return "";
  if (v.is_number_unsigned() || v.is_number_integer()) return std::to_string(v.get<int64_t>());
  return fmt::format(fmt::runtime(format), v.get<double>());
}

// Calls f(point index, point file, workload, row) for every row of the table, failed
// workloads as one row with the reason.
template <typename F>
void forEachRow(const SweepPlan& plan, const std::vector<json>& pointFiles, F f) {
  for (size_t p = 0; p < plan.points.size(); ++p) {
    for (const auto& w : pointFiles[p]["workloads"]) {
      if (w["rows"].empty()) {
        f(p, w, json{{"layer", "total"}, {"unit", ""}, {"cycles", nullptr}, {"onHwNs", nullptr}, {"utilPct", nullptr},
                     {"dramReadBytes", nullptr}, {"dramWriteBytes", nullptr}, {"energyPj", nullptr}, {"dram", nullptr}});
      }
      for (const auto& r : w["rows"]) f(p, w, r);
    }
  }
}

}  // namespace

ordered_json workloadFromLayersReport(const std::string& label, const json& report, double clockMHz) {
  ordered_json rows = ordered_json::array();
  json counters = json::object();  // the layers' DRAM counters, summed
  for (const auto& l : report["layers"]) {
    const uint64_t cycles = l["cycles"].get<uint64_t>();
    if (l.contains("reason")) {
      // An ONNX model's operation the accelerator does not claim: a CPU row without figures.
      rows.push_back(row(l["name"].get<std::string>(), "cpu", 0, json(nullptr), json(nullptr), 0, 0, 0.0));
      continue;
    }
    const json layerCounters = l.contains("counters") ? l["counters"] : json(nullptr);
    addCounters(counters, layerCounters);
    rows.push_back(row(l["name"].get<std::string>(), "array", cycles,
                       static_cast<uint64_t>(std::llround(static_cast<double>(cycles) * 1000.0 / clockMHz)),
                       l["overallUtilPct"].get<double>(), l["dramReadBytes"].get<uint64_t>(),
                       l["dramWriteBytes"].get<uint64_t>(), l["energy"]["totalPj"].get<double>(),
                       dramFigures(layerCounters)));
  }
  return workload(label, rows, report["energy"]["totalPj"].get<double>(),
                  report["estimates"]["areaUm2"].get<double>(), dramFigures(counters));
}

ordered_json workloadFromRunReport(const std::string& label, const json& report) {
  ordered_json rows = ordered_json::array();
  for (const auto& l : report["layers"]) {
    const bool accel = l["cycles"].get<uint64_t>() > 0;
    // A CPU layer's time is the host's, which no two runs share: left out.
    rows.push_back(row(l["name"].get<std::string>(), l["unit"].get<std::string>(), l["cycles"].get<uint64_t>(),
                       accel ? json(l["onHardwareNs"].get<uint64_t>()) : json(nullptr),
                       accel ? json(100.0 * l["utilization"].get<double>()) : json(nullptr),
                       l["dramReadBytes"].get<uint64_t>(), l["dramWriteBytes"].get<uint64_t>(),
                       l["energy"]["totalPj"].get<double>(), l.value("dram", json(nullptr))));
  }
  const json dram = report.contains("dram") ? dramFigures(report["dram"]["counters"]) : json(nullptr);
  return workload(label, rows, report["acceleratorEnergy"]["totalPj"].get<double>(),
                  report["estimates"]["areaUm2"].get<double>(), dram);
}

ordered_json failedWorkload(const std::string& label, const std::string& error) {
  return {{"workload", label}, {"status", "failed"}, {"error", error}, {"areaUm2", nullptr},
          {"rows", ordered_json::array()}};
}

std::string resultsCsv(const SweepPlan& plan, const std::vector<json>& pointFiles) {
  std::string out = "point";
  for (const auto& p : plan.swept) out += "," + p;
  out += ",backend,workload,layer,unit,status,cycles,on_hw_ns,util_pct,dram_read_bytes,dram_write_bytes,energy_pj,"
         "area_um2,dram_row_hit_pct,dram_activates,dram_refreshes,dram_read_latency_cycles,"
         "dram_write_latency_cycles,dram_bank_parallelism,error\n";
  forEachRow(plan, pointFiles, [&](size_t p, const json& w, const json& r) {
    out += csvField(plan.points[p].id);
    for (const auto& [param, value] : plan.points[p].values) out += "," + csvField(paramValueText(param, value));
    const json dram = r.value("dram", json(nullptr));
    auto figure = [&](const char* key, const char* format) {
      return dram.is_null() ? std::string() : number(dram[key], format);
    };
    out += fmt::format(",{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", plan.backend,
                       csvField(w["workload"].get<std::string>()), csvField(r["layer"].get<std::string>()),
                       r["unit"].get<std::string>(), w["status"].get<std::string>(), number(r["cycles"], ""),
                       number(r["onHwNs"], ""), number(r["utilPct"], "{:.4f}"), number(r["dramReadBytes"], ""),
                       number(r["dramWriteBytes"], ""), number(r["energyPj"], "{:.1f}"),
                       number(w["areaUm2"], "{:.1f}"), figure("rowHitPct", "{:.2f}"), figure("activates", ""),
                       figure("refreshes", ""), figure("readLatencyCycles", "{:.2f}"),
                       figure("writeLatencyCycles", "{:.2f}"), figure("bankLevelParallelism", "{:.3f}"),
                       csvField(w["error"].get<std::string>()));
  });
  return out;
}

std::string resultsJsonLines(const SweepPlan& plan, const std::vector<json>& pointFiles) {
  std::string out;
  forEachRow(plan, pointFiles, [&](size_t p, const json& w, const json& r) {
    ordered_json line = {{"point", plan.points[p].id}};
    for (const auto& [param, value] : plan.points[p].values) line[param] = paramValueJson(param, value);
    line["backend"] = plan.backend;
    line["workload"] = w["workload"];
    line["layer"] = r["layer"];
    line["unit"] = r["unit"];
    line["status"] = w["status"];
    line["cycles"] = r["cycles"];
    line["on_hw_ns"] = r["onHwNs"];
    line["util_pct"] = r["utilPct"];
    line["dram_read_bytes"] = r["dramReadBytes"];
    line["dram_write_bytes"] = r["dramWriteBytes"];
    line["energy_pj"] = r["energyPj"];
    line["area_um2"] = w["areaUm2"];
    const json dram = r.value("dram", json(nullptr));
    for (const auto& [key, field] : {std::pair{"dram_row_hit_pct", "rowHitPct"}, std::pair{"dram_activates", "activates"},
                                     std::pair{"dram_refreshes", "refreshes"},
                                     std::pair{"dram_read_latency_cycles", "readLatencyCycles"},
                                     std::pair{"dram_write_latency_cycles", "writeLatencyCycles"},
                                     std::pair{"dram_bank_parallelism", "bankLevelParallelism"}}) {
      line[key] = dram.is_null() ? json(nullptr) : dram[field];
    }
    line["error"] = w["error"];
    out += line.dump() + "\n";
  });
  return out;
}

}  // namespace weft::tool
