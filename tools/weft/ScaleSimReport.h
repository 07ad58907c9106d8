// SCALE-Sim v2's COMPUTE_REPORT.csv, read so that `weft layers --compare-to` can set SCALE-Sim's
// figures beside weft's for the same table. SCALE-Sim writes it in simulator.py
// (generate_reports): the header
//   LayerID, Total Cycles, Stall Cycles, Overall Util %, Mapping Efficiency %, Compute Util %,
// then one row a layer, "<id>, <cycles>, <stall>, <util>, <mapping>, <compute util>," with
// Python's str() of each number (so "100.0" and "5e-05" occur). weft's own COMPUTE_REPORT form
// adds a "Layer name" column, which is checked against the table when present.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace weft::tool {

// Bad input: the message names the file, the line and the column.
struct ScaleSimReportError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct ScaleSimLayer {
  size_t id = 0;                // LayerID: the table's row, from 0
  uint64_t totalCycles = 0;
  double overallUtilPct = 0;
  // The columns not needed for the comparison: absent when the file has no such column.
  std::optional<uint64_t> stallCycles;
  std::optional<double> mappingEfficiencyPct, computeUtilPct;
  std::optional<std::string> name;  // "Layer name" (weft's form of the report)
  size_t line = 0;                  // where it was read, for messages
};

struct ScaleSimReport {
  std::string path;
  std::vector<ScaleSimLayer> layers;  // in LayerID order; IDs are distinct but may have gaps
};

// `text` is the file's contents (a UTF-8 byte-order mark, CR LF line ends, spaces around cells,
// empty trailing cells and blank lines are accepted); `source` names it in messages. Every
// LayerID must name one of the table's layers (below `tableNames.size()`), at most once.
ScaleSimReport parseComputeReport(const std::string& text, const std::string& source,
                                  const std::vector<std::string>& tableNames);

ScaleSimReport loadComputeReport(const std::string& path, const std::vector<std::string>& tableNames);

}  // namespace weft::tool
