// weft's figures for a layer table set beside SCALE-Sim's COMPUTE_REPORT.csv for the same table
// (`weft layers --compare-to`): per layer both simulators' cycles and utilization, the ratio
// weft cycles / SCALE-Sim cycles and which is faster, and totals over the layers both have;
// as a terminal table, CSV and JSON.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "ScaleSimReport.h"

namespace weft::tool {

// One layer as weft ran it, in SCALE-Sim's terms (LayersCommand.cpp computes them).
struct WeftLayerFigures {
  std::string name;
  uint64_t cycles = 0, stallCycles = 0, macs = 0;
  double overallUtilPct = 0, mappingEfficiencyPct = 0;
};

struct ComparedLayer {
  size_t index = 0;  // the table's row (SCALE-Sim's LayerID)
  ScaleSimLayer scalesim;
  WeftLayerFigures weft;
  double cyclesRatio = 0;  // weft cycles / SCALE-Sim cycles: below 1, weft is faster
};

struct MacMismatch {
  size_t index = 0;
  std::string name;
  double scalesimMacs = 0;  // SCALE-Sim's utilization x cycles x weft's PEs
  uint64_t weftMacs = 0;
};

struct ScaleSimComparison {
  std::string reportPath, table, hw, backend;
  unsigned rows = 0, cols = 0;  // weft's array
  size_t tableLayers = 0;
  std::vector<ComparedLayer> layers;
  std::vector<std::pair<size_t, std::string>> missing;  // the table's layers the report lacks
  // Over the compared layers: cycles, and utilization as all their MACs over all their cycles
  // (SCALE-Sim's from its per-layer utilization weighted by its cycles).
  uint64_t scalesimCycles = 0, weftCycles = 0;
  double scalesimUtilPct = 0, weftUtilPct = 0, cyclesRatio = 0;
  // Layers whose SCALE-Sim cycles and utilization imply another MAC count than weft's layer
  // has on weft's array. SCALE-Sim's convolutions have ceil((H - Fh + S) / S) output rows and
  // columns, weft's (NNAPI VALID padding) floor((H - Fh) / S) + 1, so a strided layer can
  // differ by a row and a column; more than that means a report of another table or array size.
  std::vector<MacMismatch> macMismatches;
};

// `weft` holds every layer of the table, in order; the report's LayerIDs index it.
ScaleSimComparison compareWithScaleSim(const ScaleSimReport& report, const std::vector<WeftLayerFigures>& weft,
                                       unsigned rows, unsigned cols);

// "weft 1.25x", "SCALE-Sim 1.25x" (how many times fewer cycles the faster one takes), "same", or
// "-" for no ratio (0 weft cycles).
std::string fasterOf(double cyclesRatio);

void printComparison(const ScaleSimComparison& c, std::ostream& out);
std::string comparisonCsv(const ScaleSimComparison& c);
nlohmann::ordered_json comparisonJson(const ScaleSimComparison& c);

}  // namespace weft::tool
