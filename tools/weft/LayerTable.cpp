#include "LayerTable.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <stdexcept>

#include "JsonFields.h"
#include "LayerFields.h"
#include "LayerSpec.h"
#include "SingleLayer.h"
#include "weft/common/files.h"

namespace weft::tool {
namespace {

using namespace json_fields;

constexpr const char* kAcceptedFormats =
    "a layer set (.json, traces/README.md) or a SCALE-Sim table (.csv): a conv table with the header "
    "'Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, Channels, Num Filter, Strides' "
    "or a GEMM table with the header 'Layer, M, N, K'";

std::string readFile(const std::string& path) {
  auto text = common::readFile(path);
  if (!text) throw NetworkError(fmt::format("cannot read layer table '{}'", path));
  return std::move(*text);
}

std::string trim(const std::string& s) {
  size_t a = 0, b = s.size();
  while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
  while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
  return s.substr(a, b - a);
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::vector<std::string> splitCsv(const std::string& line) {
  std::vector<std::string> cells;
  std::string cell;
  std::istringstream in(line);
  while (std::getline(in, cell, ',')) cells.push_back(trim(cell));
  if (!line.empty() && line.back() == ',') cells.emplace_back();
  return cells;
}

uint32_t positive(const std::string& cell, const std::string& column, const std::string& where) {
  try {
    size_t used = 0;
    const long long v = std::stoll(cell, &used);
    if (used == cell.size() && v >= 1 && v <= 0xFFFFFFFFll) return static_cast<uint32_t>(v);
  } catch (const std::exception&) {
  }
  throw NetworkError(fmt::format("{}: {} '{}' is not a positive integer", where, column, cell));
}

// ---- layer sets ----

// A `networks` entry's "ops": the op names to take (default CONV_2D and FULLY_CONNECTED), or
// "all".
std::set<LayerOp> networkOps(const json& n, const std::string& where) {
  if (!n.contains("ops")) return {LayerOp::kConv2d, LayerOp::kFullyConnected};
  if (n["ops"] == "all") {
    std::set<LayerOp> all;
    // kSlice is the last LayerOp.
    for (int op = 0; op <= static_cast<int>(LayerOp::kSlice); ++op) all.insert(static_cast<LayerOp>(op));
    return all;
  }
  std::set<LayerOp> ops;
  for (const auto& name : get<std::vector<std::string>>(n, "ops", where)) ops.insert(parseOp(name, where + " ops"));
  if (ops.empty()) throw NetworkError(where + ": \"ops\" is empty (list op names, or \"all\")");
  return ops;
}

LayerShape shapeFromJson(const json& j, size_t index) {
  LayerShape s;
  s.name = get<std::string>(j, "name", fmt::format("layer set entry {}", index));
  const std::string where = fmt::format("layer set entry {} ({})", index, s.name);
  const auto op = get<std::string>(j, "op", where);
  std::set<std::string> known = {"name", "op", "type", "input", "activation", "inputZeroPoint", "weightZeroPoint", "seed"};
  for (const char* k : op == "CONV_2D" ? std::vector<const char*>{"filters", "kernel", "stride", "padding"}
                                       : std::vector<const char*>{"units"}) {
    known.insert(k);
  }
  rejectUnknownFields(j, known, where);
  const auto input = dimensions(j, "input", where);
  if (op == "CONV_2D") {
    s.op = LayerOp::kConv2d;
    if (input.size() != 4) throw NetworkError(where + ": a CONV_2D input is [batch, height, width, channels]");
    s.batch = input[0], s.height = input[1], s.width = input[2], s.channels = input[3];
    s.filters = static_cast<uint32_t>(integerIn(j, "filters", 1, int64_t{1} << 24, where));
    const auto kernel = dimensions(j, "kernel", where);
    if (kernel.size() != 2) throw NetworkError(where + ": \"kernel\" is [height, width]");
    s.filterH = kernel[0], s.filterW = kernel[1];
    s.stride = j.contains("stride") ? static_cast<int>(integerIn(j, "stride", 1, kMaxWindowField, where)) : 1;
    s.padding = j.contains("padding") ? parsePadding(j["padding"], where) : Padding{Padding::Scheme::kValid};
  } else if (op == "FULLY_CONNECTED") {
    s.op = LayerOp::kFullyConnected;
    if (input.size() != 2) throw NetworkError(where + ": a FULLY_CONNECTED input is [batch, inputs]");
    s.batch = input[0], s.channels = input[1];
    s.filters = static_cast<uint32_t>(integerIn(j, "units", 1, int64_t{1} << 24, where));
  } else {
    throw std::logic_error("shapeFromJson: " + op);  // parseLayerSet sends other ops to parseLayerSpec
  }
  s.isSigned = signedType(j, where);
  const int32_t lo = s.isSigned ? -128 : 0, mid = lo + 128;
  s.activation = activationCode(j.contains("activation") ? get<std::string>(j, "activation", where) : "NONE", where);
  s.inputZeroPoint = j.contains("inputZeroPoint") ? static_cast<int32_t>(integerIn(j, "inputZeroPoint", lo, lo + 255, where)) : mid;
  s.weightZeroPoint = j.contains("weightZeroPoint") ? static_cast<int32_t>(integerIn(j, "weightZeroPoint", lo, lo + 255, where)) : mid;
  s.seed = j.contains("seed") ? get<uint64_t>(j, "seed", where) : uint64_t{1000} + 16 * index;
  checkLayerShape(s);  // now, not when the layer's turn comes
  return s;
}

LayerTable parseLayerSet(const std::string& text, const std::string& path) {
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::exception& e) {
    throw NetworkError(fmt::format("{}: not valid JSON: {}", path, e.what()));
  }
  if (get<int>(doc, "format", path) != 1) throw NetworkError(path + ": only layer set format 1 is known");
  LayerTable table;
  table.name = get<std::string>(doc, "name", path);
  table.format = "layer set";
  const auto dir = std::filesystem::path(path).parent_path();
  if (doc.contains("networks")) {
    for (const json& n : doc["networks"]) {
      const std::string where = path + " networks";
      auto net = std::make_shared<Network>(loadNetwork((dir / get<std::string>(n, "path", where)).string()));
      const auto ops = networkOps(n, where);
      // Tells apart layers of several networks that share names ("softmax").
      const std::string prefix = n.contains("prefix") ? get<std::string>(n, "prefix", where) : "";
      for (size_t i = 0; i < net->layers.size(); ++i) {
        if (ops.count(net->layers[i].op) == 0) continue;
        const uint64_t seed = 1000 + 16 * table.layers.size();
        table.layers.push_back({prefix + net->layers[i].name, [net, i, seed](TensorValues values) { return singleLayerNetwork(*net, i, seed, values); }});
      }
    }
  }
  if (doc.contains("layers")) {
    const json& layers = doc["layers"];
    if (!layers.is_array()) throw NetworkError(path + ": \"layers\" must be an array");
    for (size_t i = 0; i < layers.size(); ++i) {
      const json& entry = layers[i];
      const std::string op = entry.is_object() && entry.contains("op") && entry["op"].is_string() ? entry["op"] : "";
      if (op == "CONV_2D" || op == "FULLY_CONNECTED") {
        const LayerShape s = shapeFromJson(entry, i);
        table.layers.push_back({s.name, [s](TensorValues values) { return singleLayerNetwork(s, values); }});
      } else {
        auto spec = std::make_shared<LayerSpec>(parseLayerSpec(entry, i));
        table.layers.push_back({spec->network.name, [spec](TensorValues values) { return buildLayer(*spec, values); }});
      }
    }
  }
  if (table.layers.empty()) throw NetworkError(path + ": the layer set has no layers (\"networks\" and \"layers\" are empty)");
  std::set<std::string> names;
  for (const auto& l : table.layers) {
    if (!names.insert(l.name).second) throw NetworkError(fmt::format("{}: two layers are named '{}'", path, l.name));
  }
  return table;
}

}  // namespace

// ---- SCALE-Sim tables ----

LayerTable parseScaleSimTable(const std::string& text, const std::string& name) {
  LayerTable table;
  table.name = name;
  // A table saved by a Windows editor or a spreadsheet starts with a UTF-8 byte-order mark.
  std::istringstream in(text.rfind("\xEF\xBB\xBF", 0) == 0 ? text.substr(3) : text);
  std::string line;
  size_t lineNo = 0;
  enum class Kind { kUnknown, kConv, kGemm } kind = Kind::kUnknown;
  while (std::getline(in, line)) {
    ++lineNo;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const auto cells = splitCsv(line);
    if (std::all_of(cells.begin(), cells.end(), [](const std::string& c) { return c.empty(); })) continue;
    const std::string where = fmt::format("{} line {}", name, lineNo);
    if (kind == Kind::kUnknown) {
      auto header = [&](size_t i) { return i < cells.size() ? lower(cells[i]) : std::string(); };
      if (header(0) == "layer name" && header(1) == "ifmap height" && header(7) == "strides") {
        kind = Kind::kConv;
        table.format = "SCALE-Sim conv table";
      } else if (header(0) == "layer" && header(1) == "m" && header(2) == "n" && header(3) == "k") {
        kind = Kind::kGemm;
        table.format = "SCALE-Sim GEMM table";
      } else {
        throw NetworkError(fmt::format("{}: unknown table header '{}'; accepted: {}", where, line, kAcceptedFormats));
      }
      continue;
    }
    LayerShape s;
    s.name = cells[0];
    s.seed = 1000 + 16 * table.layers.size();
    if (s.name.empty()) throw NetworkError(where + ": the layer has no name");
    if (kind == Kind::kConv) {
      if (cells.size() < 8) throw NetworkError(where + ": a conv row has 8 columns (name, IFMAP H, W, filter H, W, channels, filters, stride)");
      s.op = LayerOp::kConv2d;
      s.height = positive(cells[1], "IFMAP Height", where);
      s.width = positive(cells[2], "IFMAP Width", where);
      s.filterH = positive(cells[3], "Filter Height", where);
      s.filterW = positive(cells[4], "Filter Width", where);
      s.channels = positive(cells[5], "Channels", where);
      s.filters = positive(cells[6], "Num Filter", where);
      s.stride = static_cast<int>(positive(cells[7], "Strides", where));
    } else {
      if (cells.size() < 4) throw NetworkError(where + ": a GEMM row has 4 columns (name, M, N, K)");
      // SCALE-Sim's mapping: an M x K input against K x N weights, an M x N output.
      s.op = LayerOp::kFullyConnected;
      s.batch = positive(cells[1], "M", where);
      s.filters = positive(cells[2], "N", where);
      s.channels = positive(cells[3], "K", where);
    }
    checkLayerShape(s);  // e.g. a filter larger than its input: now, not when the layer's turn comes
    table.layers.push_back({s.name, [s](TensorValues values) { return singleLayerNetwork(s, values); }});
  }
  if (kind == Kind::kUnknown) throw NetworkError(fmt::format("{}: empty table; accepted: {}", name, kAcceptedFormats));
  if (table.layers.empty()) throw NetworkError(name + ": the table has a header but no layers");
  return table;
}

LayerTable loadLayerTable(const std::string& path) {
  const std::string text = readFile(path);
  const std::string ext = lower(std::filesystem::path(path).extension().string());
  if (ext == ".json") return parseLayerSet(text, path);
  if (ext == ".csv") return parseScaleSimTable(text, std::filesystem::path(path).stem().string());
  throw NetworkError(fmt::format("'{}': unknown layer table format '{}'; accepted: {}", path, ext, kAcceptedFormats));
}

}  // namespace weft::tool
