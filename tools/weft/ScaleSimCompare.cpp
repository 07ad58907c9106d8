#include "ScaleSimCompare.h"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <cmath>
#include <optional>
#include <stdexcept>
#include <type_traits>

namespace weft::tool {
namespace {

// SCALE-Sim prints utilization with Python's full float precision, so the MACs it implies
// agree with the layer's to far better than this unless the layer or the array differs.
constexpr double kMacTolerance = 0.005;

std::string pct(double v) { return fmt::format("{:.1f}", v); }

template <typename T>
nlohmann::ordered_json orNull(const std::optional<T>& v) {
  return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(nullptr);
}

template <typename T>
std::string csvCell(const std::optional<T>& v) {
  if (!v) return "";
  if constexpr (std::is_floating_point_v<T>) return fmt::format("{:.4f}", *v);
  return fmt::format("{}", *v);
}

}  // namespace

std::string fasterOf(double cyclesRatio) {
  if (!(cyclesRatio > 0) || !std::isfinite(cyclesRatio)) return "-";  // a layer weft measured no cycles for
  if (cyclesRatio == 1) return "same";
  return cyclesRatio < 1 ? fmt::format("weft {:.2f}x", 1 / cyclesRatio) : fmt::format("SCALE-Sim {:.2f}x", cyclesRatio);
}

ScaleSimComparison compareWithScaleSim(const ScaleSimReport& report, const std::vector<WeftLayerFigures>& weft,
                                       unsigned rows, unsigned cols) {
  ScaleSimComparison c;
  c.reportPath = report.path;
  c.rows = rows, c.cols = cols;
  c.tableLayers = weft.size();
  const double pes = double(rows) * cols;
  std::vector<bool> present(weft.size(), false);
  double scalesimMacs = 0, weftMacs = 0;
  for (const ScaleSimLayer& s : report.layers) {
    // parseComputeReport checked the IDs against the same table.
    if (s.id >= weft.size()) throw std::logic_error("compareWithScaleSim: LayerID beyond the table");
    present[s.id] = true;
    ComparedLayer l;
    l.index = s.id;
    l.scalesim = s;
    l.weft = weft[s.id];
    l.cyclesRatio = double(l.weft.cycles) / double(s.totalCycles);
    const double implied = s.overallUtilPct / 100 * double(s.totalCycles) * pes;
    if (l.weft.macs > 0 && std::abs(implied - double(l.weft.macs)) > kMacTolerance * double(l.weft.macs)) {
      c.macMismatches.push_back({s.id, l.weft.name, implied, l.weft.macs});
    }
    c.scalesimCycles += s.totalCycles;
    c.weftCycles += l.weft.cycles;
    scalesimMacs += s.overallUtilPct / 100 * double(s.totalCycles);  // in PE-cycles: the array size cancels
    weftMacs += double(l.weft.macs) / pes;
    c.layers.push_back(std::move(l));
  }
  for (size_t i = 0; i < weft.size(); ++i) {
    if (!present[i]) c.missing.emplace_back(i, weft[i].name);
  }
  c.scalesimUtilPct = c.scalesimCycles > 0 ? 100 * scalesimMacs / double(c.scalesimCycles) : 0;
  c.weftUtilPct = c.weftCycles > 0 ? 100 * weftMacs / double(c.weftCycles) : 0;
  c.cyclesRatio = c.scalesimCycles > 0 ? double(c.weftCycles) / double(c.scalesimCycles) : 0;
  return c;
}

void printComparison(const ScaleSimComparison& c, std::ostream& out) {
  fmt::print(out, "\nweft ({}, {}x{}, {} backend) beside SCALE-Sim ({}): {} of the table's {} layers\n\n", c.hw,
             c.rows, c.cols, c.backend, c.reportPath, c.layers.size(), c.tableLayers);
  const char* row = "{:>3}  {:<16} {:>16} {:>6} {:>12} {:>6}  {:>14}  {}\n";
  fmt::print(out, fmt::runtime(row), "#", "layer", "SCALE-Sim cycles", "util%", "weft cycles", "util%", "weft/SCALE-Sim",
             "faster");
  for (const ComparedLayer& l : c.layers) {
    fmt::print(out, fmt::runtime(row), l.index, l.weft.name, l.scalesim.totalCycles, pct(l.scalesim.overallUtilPct),
               l.weft.cycles, pct(l.weft.overallUtilPct), fmt::format("{:.3f}", l.cyclesRatio), fasterOf(l.cyclesRatio));
  }
  fmt::print(out, fmt::runtime(row), "", "total", c.scalesimCycles, pct(c.scalesimUtilPct), c.weftCycles,
             pct(c.weftUtilPct), fmt::format("{:.3f}", c.cyclesRatio), fasterOf(c.cyclesRatio));
  if (!c.missing.empty()) {
    std::vector<std::string> names;
    for (const auto& [index, name] : c.missing) names.push_back(fmt::format("{} {}", index, name));
    fmt::print(out, "\n{} of the table's layers not in SCALE-Sim's report (not compared, not in the totals): {}\n",
               c.missing.size(), fmt::join(names, ", "));
  }
  if (!c.macMismatches.empty()) {
    fmt::print(out, "\nMAC counts differ on {} layer{} (SCALE-Sim's: its utilization x cycles x {} PEs):\n",
               c.macMismatches.size(), c.macMismatches.size() == 1 ? "" : "s", c.rows * c.cols);
    for (const MacMismatch& m : c.macMismatches) {
      fmt::print(out, "{:>3}  {:<16} SCALE-Sim {:.0f}, weft {} ({:+.1f} %)\n", m.index, m.name, m.scalesimMacs,
                 m.weftMacs, 100 * (m.scalesimMacs / double(m.weftMacs) - 1));
    }
    fmt::print(out,
               "SCALE-Sim gives a convolution ceil((H - Fh + S) / S) output rows and columns, weft (NNAPI's VALID "
               "padding) floor((H - Fh) / S) + 1,\nso a strided layer may differ by a row and a column; more than "
               "that means a report of another table or array size.\n");
  }
}

std::string comparisonCsv(const ScaleSimComparison& c) {
  std::string out =
      "index,layer,scalesim_cycles,scalesim_stall_cycles,scalesim_overall_util_pct,scalesim_mapping_eff_pct,"
      "scalesim_compute_util_pct,weft_cycles,weft_stall_cycles,weft_overall_util_pct,weft_mapping_eff_pct,"
      "cycles_ratio,faster\n";
  for (const ComparedLayer& l : c.layers) {
    out += fmt::format("{},{},{},{},{:.4f},{},{},{},{},{:.4f},{:.4f},{:.6f},{}\n", l.index, l.weft.name,
                       l.scalesim.totalCycles, csvCell(l.scalesim.stallCycles), l.scalesim.overallUtilPct,
                       csvCell(l.scalesim.mappingEfficiencyPct), csvCell(l.scalesim.computeUtilPct), l.weft.cycles,
                       l.weft.stallCycles, l.weft.overallUtilPct, l.weft.mappingEfficiencyPct, l.cyclesRatio,
                       fasterOf(l.cyclesRatio));
  }
  // The totals row has no index, so that a reader of layers can drop it by that.
  out += fmt::format(",total,{},,{:.4f},,,{},,{:.4f},,{:.6f},{}\n", c.scalesimCycles, c.scalesimUtilPct, c.weftCycles,
                     c.weftUtilPct, c.cyclesRatio, fasterOf(c.cyclesRatio));
  return out;
}

nlohmann::ordered_json comparisonJson(const ScaleSimComparison& c) {
  nlohmann::ordered_json j;
  j["scalesimReport"] = c.reportPath;
  j["table"] = c.table;
  j["hw"] = c.hw;
  j["backend"] = c.backend;
  j["array"] = {{"rows", c.rows}, {"cols", c.cols}};
  j["tableLayers"] = c.tableLayers;
  j["layersCompared"] = c.layers.size();
  auto& layers = j["layers"] = nlohmann::ordered_json::array();
  for (const ComparedLayer& l : c.layers) {
    layers.push_back({{"index", l.index},
                      {"name", l.weft.name},
                      {"scalesim",
                       {{"cycles", l.scalesim.totalCycles},
                        {"stallCycles", orNull(l.scalesim.stallCycles)},
                        {"overallUtilPct", l.scalesim.overallUtilPct},
                        {"mappingEfficiencyPct", orNull(l.scalesim.mappingEfficiencyPct)},
                        {"computeUtilPct", orNull(l.scalesim.computeUtilPct)}}},
                      {"weft",
                       {{"cycles", l.weft.cycles},
                        {"stallCycles", l.weft.stallCycles},
                        {"macs", l.weft.macs},
                        {"overallUtilPct", l.weft.overallUtilPct},
                        {"mappingEfficiencyPct", l.weft.mappingEfficiencyPct}}},
                      {"cyclesRatio", l.cyclesRatio},
                      {"faster", fasterOf(l.cyclesRatio)}});
  }
  auto& missing = j["missing"] = nlohmann::ordered_json::array();
  for (const auto& [index, name] : c.missing) missing.push_back({{"index", index}, {"name", name}});
  j["total"] = {{"scalesimCycles", c.scalesimCycles}, {"weftCycles", c.weftCycles},
                {"scalesimOverallUtilPct", c.scalesimUtilPct}, {"weftOverallUtilPct", c.weftUtilPct},
                {"cyclesRatio", c.cyclesRatio}, {"faster", fasterOf(c.cyclesRatio)}};
  auto& mismatches = j["macMismatches"] = nlohmann::ordered_json::array();
  for (const MacMismatch& m : c.macMismatches) {
    mismatches.push_back(
        {{"index", m.index}, {"name", m.name}, {"scalesimMacs", m.scalesimMacs}, {"weftMacs", m.weftMacs}});
  }
  return j;
}

}  // namespace weft::tool
