#include "ScaleSimReport.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>
#include "weft/common/files.h"

namespace weft::tool {
namespace {

constexpr const char* kExpectedHeader =
    "LayerID, Total Cycles, Stall Cycles, Overall Util %, Mapping Efficiency %, Compute Util %,";

enum class Column { kLayerId, kTotalCycles, kStallCycles, kOverallUtil, kMappingEfficiency, kComputeUtil, kName };

struct ColumnName {
  Column column;
  const char* name;  // as SCALE-Sim (or weft, for "Layer name") writes it
  bool required;
};

// The comparison needs a layer's identity, cycles and utilization; the rest is carried along
// when present, so that a report trimmed in a spreadsheet still compares.
constexpr ColumnName kColumns[] = {
    {Column::kLayerId, "LayerID", true},
    {Column::kTotalCycles, "Total Cycles", true},
    {Column::kStallCycles, "Stall Cycles", false},
    {Column::kOverallUtil, "Overall Util %", true},
    {Column::kMappingEfficiency, "Mapping Efficiency %", false},
    {Column::kComputeUtil, "Compute Util %", false},
    {Column::kName, "Layer name", false},
};

std::string trim(const std::string& s) {
  size_t a = 0, b = s.size();
  while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
  while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
  return s.substr(a, b - a);
}

// Lower case with runs of spaces made one, so that "Total  cycles" names the same column.
std::string normalized(const std::string& s) {
  std::string out;
  for (char c : trim(s)) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      if (!out.empty() && out.back() != ' ') out += ' ';
    } else {
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
  }
  return out;
}

// One CSV line: cells split at commas outside double quotes, quotes removed, each trimmed.
// SCALE-Sim never quotes, but a spreadsheet that saved the file may.
std::vector<std::string> splitCells(const std::string& line) {
  std::vector<std::string> cells;
  std::string cell;
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (c == '"') {
      if (quoted && i + 1 < line.size() && line[i + 1] == '"') {
        cell += '"';
        ++i;
      } else {
        quoted = !quoted;
      }
    } else if (c == ',' && !quoted) {
      cells.push_back(trim(cell));
      cell.clear();
    } else {
      cell += c;
    }
  }
  cells.push_back(trim(cell));
  return cells;
}

bool allEmpty(const std::vector<std::string>& cells) {
  return std::all_of(cells.begin(), cells.end(), [](const std::string& c) { return c.empty(); });
}

class RowReader {
 public:
  RowReader(const std::string& source, size_t line, const std::vector<std::string>& cells)
      : source_(source), line_(line), cells_(cells) {}

  const std::string& cell(size_t index) const {
    static const std::string kEmpty;
    return index < cells_.size() ? cells_[index] : kEmpty;
  }

  [[noreturn]] void fail(size_t index, const std::string& column, const std::string& what) const {
    const std::string named = column.empty() ? "" : fmt::format(" ('{}')", column);
    throw ScaleSimReportError(fmt::format("{}: line {}, column {}{}: {}", source_, line_, index + 1, named, what));
  }

  // A finite, non-negative number as Python's str() writes it ("56.01", "100.0", "5e-05").
  double number(size_t index, const std::string& column) const {
    const std::string& c = cell(index);
    if (c.empty()) fail(index, column, "empty, a number is expected");
    double v = 0;
    const auto [end, ec] = std::from_chars(c.data(), c.data() + c.size(), v);
    if (ec != std::errc() || end != c.data() + c.size() || !std::isfinite(v)) {
      fail(index, column, fmt::format("'{}' is not a number", c));
    }
    if (v < 0) fail(index, column, fmt::format("'{}' is negative", c));
    return v;
  }

  // A count: an integer, also when written as a float with no fraction ("8227.0").
  uint64_t count(size_t index, const std::string& column) const {
    const double v = number(index, column);
    if (v != std::floor(v) || v > 9007199254740992.0) {
      fail(index, column, fmt::format("'{}' is not a whole number", cell(index)));
    }
    return static_cast<uint64_t>(v);
  }

 private:
  const std::string& source_;
  size_t line_;
  const std::vector<std::string>& cells_;
};

}  // namespace

ScaleSimReport parseComputeReport(const std::string& text, const std::string& source,
                                  const std::vector<std::string>& tableNames) {
  std::string body = text;
  if (body.rfind("\xEF\xBB\xBF", 0) == 0) body.erase(0, 3);  // the UTF-8 byte-order mark of Windows editors
  std::istringstream in(body);
  std::string line;
  size_t lineNo = 0;

  // The header: the first line that is not blank.
  std::map<Column, size_t> where;  // column -> its index in the file
  while (where.empty() && std::getline(in, line)) {
    ++lineNo;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const auto cells = splitCells(line);
    if (allEmpty(cells)) continue;
    for (size_t i = 0; i < cells.size(); ++i) {
      for (const ColumnName& c : kColumns) {
        if (normalized(cells[i]) != normalized(c.name)) continue;
        if (where.count(c.column) != 0) {
          throw ScaleSimReportError(fmt::format("{}: line {}: column '{}' appears twice (columns {} and {})", source,
                                                lineNo, c.name, where[c.column] + 1, i + 1));
        }
        where[c.column] = i;
      }
    }
    std::vector<std::string> missing;
    for (const ColumnName& c : kColumns) {
      if (c.required && where.count(c.column) == 0) missing.push_back(fmt::format("'{}'", c.name));
    }
    if (!missing.empty()) {
      throw ScaleSimReportError(fmt::format(
          "{}: line {}: no column {} in the header '{}': a SCALE-Sim COMPUTE_REPORT.csv starts '{}'", source, lineNo,
          fmt::join(missing, ", "), trim(line), kExpectedHeader));
    }
  }
  if (where.empty()) throw ScaleSimReportError(fmt::format("{}: empty, not a SCALE-Sim COMPUTE_REPORT.csv", source));

  // Cells past the header's last named column would be read as nothing; a decimal comma
  // ("51,6") is the usual cause, and it shifts every later cell of the row.
  size_t headerCells = 0;
  {
    const auto cells = splitCells(line);
    for (size_t i = 0; i < cells.size(); ++i) {
      if (!cells[i].empty()) headerCells = i + 1;
    }
  }

  ScaleSimReport report;
  report.path = source;
  std::map<size_t, size_t> lineOfId;
  while (std::getline(in, line)) {
    ++lineNo;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const auto cells = splitCells(line);
    if (allEmpty(cells)) continue;
    const RowReader row(source, lineNo, cells);
    for (size_t i = headerCells; i < cells.size(); ++i) {
      if (!cells[i].empty()) {
        row.fail(i, "",
                 fmt::format("'{}' beyond the header's {} columns (a decimal comma?)", cells[i], headerCells));
      }
    }
    auto column = [&](Column c) { return where.count(c) != 0 ? std::optional<size_t>(where.at(c)) : std::nullopt; };

    ScaleSimLayer layer;
    layer.line = lineNo;
    const size_t idColumn = where.at(Column::kLayerId);
    layer.id = row.count(idColumn, "LayerID");
    if (layer.id >= tableNames.size()) {
      row.fail(idColumn, "LayerID",
               fmt::format("layer {}, but the table has {} layer{} (LayerID 0 to {}): is the report for this table?",
                           layer.id, tableNames.size(), tableNames.size() == 1 ? "" : "s",
                           tableNames.empty() ? 0 : tableNames.size() - 1));
    }
    if (const auto seen = lineOfId.find(layer.id); seen != lineOfId.end()) {
      row.fail(idColumn, "LayerID", fmt::format("layer {} again (first on line {})", layer.id, seen->second));
    }
    lineOfId[layer.id] = lineNo;
    layer.totalCycles = row.count(where.at(Column::kTotalCycles), "Total Cycles");
    if (layer.totalCycles == 0) row.fail(where.at(Column::kTotalCycles), "Total Cycles", "0 cycles");
    layer.overallUtilPct = row.number(where.at(Column::kOverallUtil), "Overall Util %");
    // Optional columns: an empty cell is as good as no column (a row cut short).
    if (const auto i = column(Column::kStallCycles); i && !row.cell(*i).empty()) {
      layer.stallCycles = row.count(*i, "Stall Cycles");
    }
    if (const auto i = column(Column::kMappingEfficiency); i && !row.cell(*i).empty()) {
      layer.mappingEfficiencyPct = row.number(*i, "Mapping Efficiency %");
    }
    if (const auto i = column(Column::kComputeUtil); i && !row.cell(*i).empty()) {
      layer.computeUtilPct = row.number(*i, "Compute Util %");
    }
    if (const auto i = column(Column::kName); i && !row.cell(*i).empty()) {
      layer.name = row.cell(*i);
      if (*layer.name != tableNames[layer.id]) {
        row.fail(*i, "Layer name",
                 fmt::format("'{}', but the table's layer {} is '{}'", *layer.name, layer.id, tableNames[layer.id]));
      }
    }
    report.layers.push_back(std::move(layer));
  }
  if (report.layers.empty()) throw ScaleSimReportError(fmt::format("{}: a header but no layers", source));
  std::sort(report.layers.begin(), report.layers.end(),
            [](const ScaleSimLayer& a, const ScaleSimLayer& b) { return a.id < b.id; });
  return report;
}

ScaleSimReport loadComputeReport(const std::string& path, const std::vector<std::string>& tableNames) {
  const auto text = common::readFile(path);
  if (!text) throw ScaleSimReportError(fmt::format("{}: cannot read it (SCALE-Sim's COMPUTE_REPORT.csv)", path));
  return parseComputeReport(*text, path, tableNames);
}

}  // namespace weft::tool
