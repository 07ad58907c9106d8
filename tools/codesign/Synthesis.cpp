#include "Synthesis.h"

#include "weft/common/file_lock.h"
#include "weft/common/files.h"
#include "weft/common/fnv1a.h"
#include "weft/common/log_tail.h"
#include "weft/common/process.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <filesystem>
#include <functional>
#include <fstream>
#include <memory>
#include <mutex>
#include <optional>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "weft/common/locations.h"


#ifndef WEFT_RTL_FILES
#define WEFT_RTL_FILES ""
#endif
#ifndef WEFT_RTL_DIGEST
#define WEFT_RTL_DIGEST "unknown"
#endif

namespace weft::codesign {
namespace fs = std::filesystem;
namespace {

// NanGate 45 nm Open Cell Library (NangateOpenCellLibrary_typical.lib), X1 drive strength,
// um^2. A yosys gate without a library cell of its own costs the cells that build it.
constexpr double kInv = 0.532, kBuf = 0.798, kNand2 = 0.798, kNor2 = 0.798, kAnd2 = 1.064, kOr2 = 1.064;
constexpr double kXor2 = 1.596, kXnor2 = 1.596, kMux2 = 1.862, kAoi21 = 1.064, kOai21 = 1.064, kAoi22 = 1.330;
constexpr double kOai22 = 1.330, kDff = 4.522, kDffr = 5.320, kDffrs = 6.384, kDlh = 2.394;
constexpr double kFa = 4.256, kHa = 2.660;
// Bumped when price() changes, so cached results are priced again.
constexpr const char* kPricing = "coarse-nangate45-v1";

// The cache key's digest of the flow: FNV-1a from the basis these keys were first made with, so
// that results cached before stay valid.
std::string flowDigest(const std::string& text) {
  return fmt::format("{:016x}", common::fnv1a(text, common::kFnv1aTruncatedBasis)).substr(0, 12);
}

// What a failed yosys run says: its first ERROR line, else its last line.
std::string lastLine(const std::string& path) {
  const auto scan = common::scanLog(path, [](const std::string& l) { return l.find("ERROR") != std::string::npos; });
  return scan.matching.empty() ? scan.lastNonEmpty : scan.matching.front();
}

// The first "... is implicitly declared" warning of a yosys log, or "".
std::string implicitDeclaration(const std::string& log) {
  const auto scan =
      common::scanLog(log, [](const std::string& l) { return l.find("is implicitly declared") != std::string::npos; });
  return scan.matching.empty() ? std::string() : scan.matching.front();
}

// The memories the SRAM model counts (Energy.h memories()): the scratchpads and parameter
// memory (weft_ram), the input scratchpad and accumulator banks and the lookup table.
constexpr const char* kSramSelection =
    "t:$mem_v2 *weft_ram/mem_q *weft_acc/bank_q *weft_in_spad/bank_q *weft_vec_lut*/row_q %u %u %u %i";

struct CacheKey {
  std::string rtlKey, rtlDigest, flow;
  std::string fileName() const { return fmt::format("logic_{}_{}_{}.json", rtlKey, rtlDigest, flow); }
};

LogicArea finish(LogicArea a);

// Which yosys synthesizes: the program it runs, its size and modification time. Part of the
// cache key, so that a result is reused only from the same yosys (the rtl.synth tests keep their
// results in a cache shared by every build of the machine).
std::string toolIdentity(const std::string& program) {
  const std::string path = common::findOnPath(program);
  struct stat st {};
  if (path.empty() || ::stat(path.c_str(), &st) != 0) return "missing:" + program;
  return fmt::format("{}:{}:{}", path, static_cast<uint64_t>(st.st_size), static_cast<int64_t>(st.st_mtime));
}

nlohmann::ordered_json toJson(const LogicArea& a) {
  nlohmann::ordered_json cells = nlohmann::ordered_json::object(), um2 = nlohmann::ordered_json::object();
  for (const auto& [type, n] : a.cellsByType) cells[type] = n;
  for (const auto& [type, x] : a.um2ByType) um2[type] = x;
  return {{"um2", a.um2}, {"cells", a.cells}, {"srams", a.srams}, {"uncounted", a.uncounted},
          {"cellsByType", cells}, {"um2ByType", um2}};
}

std::optional<LogicArea> readCache(const std::string& path, const CacheKey& key) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  try {
    const auto doc = nlohmann::json::parse(in);
    if (doc.at("rtlKey") != key.rtlKey || doc.at("rtlDigest") != key.rtlDigest || doc.at("flow") != key.flow) {
      return std::nullopt;
    }
    const auto& l = doc.at("logic");
    LogicArea a;
    a.um2 = l.at("um2").get<double>();
    a.cells = l.at("cells").get<uint64_t>();
    a.srams = l.at("srams").get<uint64_t>();
    a.uncounted = l.at("uncounted").get<uint64_t>();
    for (const auto& [type, n] : l.at("cellsByType").items()) a.cellsByType[type] = n.get<uint64_t>();
    for (const auto& [type, x] : l.at("um2ByType").items()) a.um2ByType[type] = x.get<double>();
    a = finish(a);
    if (!a.synthesized || !(a.um2 > 0)) return std::nullopt;
    a.fromCache = true;
    return a;
  } catch (const std::exception&) {
    return std::nullopt;  // not JSON, or not ours: synthesize again
  }
}

std::mutex& memoMutex() {
  static std::mutex m;
  return m;
}
std::map<std::string, LogicArea>& memo() {
  static std::map<std::string, LogicArea> m;
  return m;
}

}  // namespace

void forgetSynthesisResults() {
  std::lock_guard<std::mutex> lock(memoMutex());
  memo().clear();
}

double cellUm2(const std::string& type) {
  static const std::map<std::string, double> gates = {
      {"$_NOT_", kInv},    {"$_BUF_", kBuf},    {"$_NAND_", kNand2},           {"$_NOR_", kNor2},
      {"$_AND_", kAnd2},   {"$_OR_", kOr2},     {"$_XOR_", kXor2},             {"$_XNOR_", kXnor2},
      {"$_MUX_", kMux2},   {"$_NMUX_", kMux2 + kInv},
      {"$_ANDNOT_", kInv + kNor2},  // A & ~B = NOR(~A, B)
      {"$_ORNOT_", kInv + kNand2},  // A | ~B = NAND(~A, B)
      {"$_AOI3_", kAoi21}, {"$_OAI3_", kOai21}, {"$_AOI4_", kAoi22},           {"$_OAI4_", kOai22},
  };
  if (auto it = gates.find(type); it != gates.end()) return it->second;
  // Flip-flops: $_DFF_P_, $_DFF_PN0_ (async reset), $_DFFE_PP_ (enable), $_DFFE_PN0P_,
  // $_SDFF_PP0_ (sync reset), $_SDFFE_PP0P_, $_SDFFCE_PP0P_, $_DFFSR_PNN_, $_DFFSRE_PNNP_,
  // $_DLATCH_P_ ... An enable is a MUX2 in front of the flop, a synchronous reset an AND2.
  static const std::regex ff(R"(\$_(DFF|DFFE|SDFF|SDFFE|SDFFCE|DFFSR|DFFSRE|ALDFF|ALDFFE|DLATCH|DLATCHSR)_([PN01]+)_)");
  std::smatch m;
  if (!std::regex_match(type, m, ff)) return -1;
  const std::string kind = m[1], pol = m[2];
  const bool enable = kind.back() == 'E';
  if (kind == "DFF" || kind == "DFFE") {
    const double base = pol.size() == 1 || (kind == "DFFE" && pol.size() == 2) ? kDff : kDffr;
    return base + (enable ? kMux2 : 0);
  }
  if (kind.rfind("SDFF", 0) == 0) return kDff + kAnd2 + (enable ? kMux2 : 0);
  if (kind.rfind("DFFSR", 0) == 0 || kind.rfind("ALDFF", 0) == 0) return kDffrs + (enable ? kMux2 : 0);
  if (kind == "DLATCH") return pol.size() == 1 ? kDlh : kDlh + kAnd2;
  return kDlh + kOr2 + kAnd2;  // DLATCHSR
}

SynthesisSetup SynthesisSetup::fromBuild() {
  SynthesisSetup s;
  const char* yosys = std::getenv("WEFT_YOSYS");
  s.yosys = (yosys != nullptr && *yosys != '\0') ? yosys : "yosys";
  // The RTL of this build, found from where this program is (weft/common/locations.h): the source
  // tree in a build, share/weft/rtl-project in an installed tree; the generated package first.
  const common::WeftTree tree =
      common::findWeftTree(common::directoryOfCode(reinterpret_cast<const void*>(&SynthesisSetup::fromBuild)));
  s.sources.push_back(tree.rtlPackage());
  std::stringstream list(WEFT_RTL_FILES);
  for (std::string f; std::getline(list, f, '|');) {
    if (!f.empty()) s.sources.push_back(tree.rtlProjectRoot() + "/rtl/" + f);
  }
  s.rtlDigest = WEFT_RTL_DIGEST;
  const char* cache = std::getenv("WEFT_AREA_CACHE");
  const std::string userCache = common::userCacheDirectory();
  s.cacheDir = cache != nullptr         ? cache
               : tree.buildTree         ? tree.buildTree->areaCacheDir
               : userCache.empty()      ? std::string()
                                        : userCache + "/area";
  return s;
}

std::string dissolvePackages(const std::vector<std::string>& sources) {
  static const std::regex drop(R"(^\s*(package\s+\w+\s*;|endpackage\b|import\s+\w+::\*\s*;).*$)");
  static const std::regex scope(R"(\b\w+_pkg::)");
  std::string out;
  for (const auto& path : sources) {
    std::ifstream in(path);
    if (!in) throw std::runtime_error("cannot read " + path);
    out += "// " + path + "\n";
    for (std::string line; std::getline(in, line);) {
      if (std::regex_match(line, drop)) {
        out += "\n";  // keep the line numbers of yosys's messages
        continue;
      }
      out += std::regex_replace(line, scope, "") + "\n";
    }
  }
  return out;
}

std::string yosysScript(const hw::HwConfig& hw, const std::string& source, const std::string& netlist) {
  std::string chparam = "chparam";
  for (const auto& p : hw.verilatorParams()) {  // -GName=value
    const auto eq = p.find('=');
    chparam += fmt::format(" -set {} {}", p.substr(2, eq - 2), p.substr(eq + 1));
  }
  // The script's text is part of the cache key (synthesizeLogic), so its first comment keeps the
  // folder this code had when the flow was last changed (now tools/codesign): rewording it would
  // synthesize every configuration again on every machine for an unchanged netlist.
  return fmt::format(
      "# The logic of weft_top at {} (driver/codesign/README.md): yosys's coarse-grained\n"
      "# synthesis (synth up to fine:), priced per cell by Synthesis.cpp.\n"
      "read_verilog -sv {}\n"
      "{} weft_top\n"
      "synth -top weft_top -run begin:fine\n"
      "# The SRAM model counts these memories; they stay $mem_v2 cells. Other memories become flops.\n"
      "setattr -set weft_sram 1 {}\n"
      "memory_map t:$mem_v2 a:weft_sram %d\n"
      "opt -fast\n"
      "maccmap -unmap\n"
      "opt_clean\n"
      "write_rtlil {}\n",
      hw.rtlKey(), source, chparam, kSramSelection, netlist);
}

namespace {

struct Cell {
  std::string type;
  std::map<std::string, int64_t> params;
  int64_t p(const char* name) const {
    auto it = params.find(name);
    return it == params.end() ? 0 : it->second;
  }
};

// A parameter value of an RTLIL file: decimal, or a sized binary constant (32'0101).
std::optional<int64_t> paramValue(const std::string& v) {
  if (v.empty()) return std::nullopt;
  if (const auto q = v.find('\''); q != std::string::npos) {
    int64_t x = 0;
    for (size_t i = q + 1; i < v.size(); ++i) {
      if (v[i] != '0' && v[i] != '1') return std::nullopt;
      x = (x << 1) | (v[i] - '0');
      if (x > (int64_t{1} << 40)) return std::nullopt;
    }
    return x;
  }
  try {
    size_t used = 0;
    const int64_t x = std::stoll(v, &used);
    return used == v.size() ? std::optional<int64_t>(x) : std::nullopt;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

LogicArea finish(LogicArea a) {
  a.synthesized = a.cells > 0;
  if (!a.synthesized) {
    a.note = "the synthesized netlist has no logic cells";
    return a;
  }
  a.note = fmt::format("yosys coarse synthesis of weft_top, {} cells at NanGate 45 nm gate areas", a.cells);
  if (a.uncounted > 0) a.note += fmt::format(", {} cells of unknown types not counted", a.uncounted);
  return a;
}

int64_t ceilLog2(int64_t n) {
  int64_t l = 0;
  while ((int64_t{1} << l) < n) ++l;
  return l;
}

struct Price {
  double um2 = 0;
  bool known = true;
  bool sram = false;
};

// Gate equivalents of one coarse cell, NanGate 45 nm X1 areas (README.md).
Price price(const Cell& c) {
  const int64_t a = c.p("A_WIDTH"), b = c.p("B_WIDTH"), y = c.p("Y_WIDTH"), w = c.p("WIDTH"), s = c.p("S_WIDTH");
  const std::string& t = c.type;
  const double fa = kFa;
  if (t == "$mem_v2" || t == "$mem") return {0, true, true};
  if (t == "$not") return {y * kInv};
  if (t == "$pos" || t == "$buf") return {0};
  if (t == "$neg") return {y * kHa};
  if (t == "$and" || t == "$or") return {y * kAnd2};
  if (t == "$xor" || t == "$xnor" || t == "$bweqx") return {y * kXor2};
  if (t == "$reduce_and" || t == "$reduce_or" || t == "$reduce_bool" || t == "$logic_not") {
    return {std::max<int64_t>(a - 1, 0) * kNand2};
  }
  if (t == "$reduce_xor" || t == "$reduce_xnor") return {std::max<int64_t>(a - 1, 0) * kXor2};
  if (t == "$logic_and" || t == "$logic_or") return {std::max<int64_t>(a + b - 2, 0) * kNand2 + kAnd2};
  if (t == "$eq" || t == "$ne" || t == "$eqx" || t == "$nex") {
    const int64_t n = std::max(a, b);
    return {n * kXnor2 + std::max<int64_t>(n - 1, 0) * kNand2};
  }
  if (t == "$lt" || t == "$le" || t == "$gt" || t == "$ge") return {std::max(a, b) * (kXnor2 + kAoi21)};
  if (t == "$add" || t == "$sub" || t == "$alu") return {y * fa};
  if (t == "$mul") {
    // An array multiplier: an AND2 and a full adder per partial-product bit below Y_WIDTH.
    int64_t bits = 0;
    for (int64_t i = 0; i < a; ++i) bits += std::max<int64_t>(0, std::min(b, y - i));
    return {bits * (kAnd2 + fa)};
  }
  if (t == "$div" || t == "$mod" || t == "$divfloor" || t == "$modfloor") {
    return {a * b * (fa + kMux2)};  // restoring array divider: A_WIDTH rows of a B_WIDTH subtract and mux
  }
  if (t == "$shl" || t == "$shr" || t == "$sshl" || t == "$sshr" || t == "$shift" || t == "$shiftx") {
    return {y * std::min(b, std::max<int64_t>(ceilLog2(a), 1)) * kMux2};  // a log shifter
  }
  if (t == "$mux") return {w * kMux2};
  if (t == "$pmux") return {w * s * kAnd2};  // one-hot AND-OR
  if (t == "$bmux") return {w * ((int64_t{1} << std::min<int64_t>(s, 30)) - 1) * kMux2};
  if (t == "$demux") return {w * (int64_t{1} << std::min<int64_t>(s, 30)) * kAnd2};
  // Registers: WIDTH flops; an enable is a MUX2 in front, a synchronous reset an AND2.
  if (t == "$dff" || t == "$ff") return {w * kDff};
  if (t == "$dffe") return {w * (kDff + kMux2)};
  if (t == "$adff") return {w * kDffr};
  if (t == "$adffe") return {w * (kDffr + kMux2)};
  if (t == "$sdff") return {w * (kDff + kAnd2)};
  if (t == "$sdffe" || t == "$sdffce") return {w * (kDff + kAnd2 + kMux2)};
  if (t == "$dffsr" || t == "$aldff") return {w * kDffrs};
  if (t == "$dffsre" || t == "$aldffe") return {w * (kDffrs + kMux2)};
  if (t == "$dlatch") return {w * kDlh};
  if (t == "$adlatch" || t == "$dlatchsr") return {w * (kDlh + kAnd2)};
  if (t.rfind("$_", 0) == 0) {
    const double g = cellUm2(t);
    return g < 0 ? Price{0, false} : Price{g};
  }
  return {0, false};
}

}  // namespace

LogicArea parseNetlist(const std::string& rtlil) {
  LogicArea a;
  std::map<std::string, std::vector<Cell>> modules;
  std::string top, module, pendingAttr;
  std::vector<Cell>* cells = nullptr;
  Cell* cell = nullptr;
  std::istringstream in(rtlil);
  bool topNext = false;
  for (std::string line; std::getline(in, line);) {
    std::istringstream words(line);
    std::string kw;
    words >> kw;
    if (kw == "attribute") {
      std::string name, value;
      words >> name >> value;
      if (cells == nullptr && name == "\\top" && value != "0") topNext = true;
    } else if (kw == "module") {
      words >> module;
      cells = &modules[module];
      if (topNext) top = module;
      topNext = false;
    } else if (kw == "cell" && cells != nullptr) {
      std::string type;
      words >> type;
      cells->push_back({type, {}});
      cell = &cells->back();
    } else if (kw == "parameter" && cell != nullptr) {
      std::string name, value;
      words >> name >> value;
      if (auto v = paramValue(value)) cell->params[name.substr(1)] = *v;
    } else if (kw == "end") {
      if (cell != nullptr) {
        cell = nullptr;
      } else {
        cells = nullptr;
      }
    }
  }
  if (top.empty()) {
    a.note = "the netlist has no top module";
    return a;
  }
  // Cells of the whole hierarchy: a submodule's cells once per instance.
  std::map<std::string, std::pair<uint64_t, double>> byType;  // type -> (count, um2)
  std::function<void(const std::string&, uint64_t, int)> walk = [&](const std::string& m, uint64_t copies,
                                                                    int depth) {
    if (depth > 64) return;
    for (const Cell& c : modules[m]) {
      if (modules.count(c.type) != 0) {
        walk(c.type, copies, depth + 1);
        continue;
      }
      const Price p = price(c);
      if (p.sram) {
        a.srams += copies;
      } else if (!p.known) {
        a.uncounted += copies;
      } else {
        a.cells += copies;
      }
      auto& [n, um2] = byType[c.type];
      n += copies;
      um2 += p.um2 * static_cast<double>(copies);
    }
  };
  walk(top, 1, 0);
  for (const auto& [type, v] : byType) {
    a.cellsByType[type] = v.first;
    a.um2ByType[type] = v.second;
    a.um2 += v.second;
  }
  return finish(a);
}

LogicArea synthesizeLogic(const hw::HwConfig& hw, const SynthesisSetup& setup) {
  LogicArea fail;
  if (setup.yosys == "none" || setup.yosys == "0") {
    fail.note = "logic not synthesized (WEFT_YOSYS=" + setup.yosys + ")";
    return fail;
  }
  if (setup.sources.empty()) {
    fail.note = "logic not synthesized (this build does not know its RTL sources)";
    return fail;
  }
  const CacheKey key{hw.rtlKey(), setup.rtlDigest,
                     flowDigest(yosysScript(hw, "<source>", "<netlist>") + kPricing + toolIdentity(setup.yosys))};
  const std::string memoKey = setup.yosys + "|" + setup.cacheDir + "/" + key.fileName();
  {
    std::lock_guard<std::mutex> lock(memoMutex());
    if (auto it = memo().find(memoKey); it != memo().end()) return it->second;
  }
  auto remember = [&](LogicArea a) {
    std::lock_guard<std::mutex> lock(memoMutex());
    memo()[memoKey] = a;
    return a;
  };

  std::error_code ec;
  const bool cached = !setup.cacheDir.empty();
  const std::string cachePath = cached ? (fs::path(setup.cacheDir) / key.fileName()).string() : "";
  if (cached) {
    if (auto a = readCache(cachePath, key)) return remember(*a);
  }
  if (!common::onPath(setup.yosys)) {
    fail.note = fmt::format("logic not synthesized (no yosys: '{}' is not on PATH; set WEFT_YOSYS)", setup.yosys);
    return remember(fail);
  }

  // One synthesis per key at a time; whoever waited finds the result in the cache.
  std::unique_ptr<common::FileLock> lock;
  if (cached) {
    fs::create_directories(setup.cacheDir, ec);
    lock = std::make_unique<common::FileLock>((fs::path(setup.cacheDir) / ("." + key.fileName() + ".lock")).string());
    if (auto a = readCache(cachePath, key)) return remember(*a);
  }
  std::string work = (fs::path(cached ? setup.cacheDir : fs::temp_directory_path().string()) /
                      fmt::format("synth-{}-XXXXXX", key.rtlKey.substr(0, 40)))
                         .string();
  if (::mkdtemp(work.data()) == nullptr) {
    fail.note = "logic not synthesized (cannot create a work directory for yosys)";
    return remember(fail);
  }
  const std::string source = work + "/weft_top.sv", script = work + "/synth.ys", netlist = work + "/weft_top.il",
                    log = work + "/yosys.log";
  try {
    std::ofstream(source) << dissolvePackages(setup.sources);
  } catch (const std::exception& e) {
    fail.note = fmt::format("logic not synthesized ({})", e.what());
    fs::remove_all(work, ec);
    return remember(fail);
  }
  std::ofstream(script) << yosysScript(hw, source, netlist);
  std::fprintf(stderr,
               "weft: synthesizing the logic of configuration '%s' with yosys for its area (a minute or "
               "two, once per RTL parameter set; WEFT_YOSYS=none skips it)\n",
               hw.name().c_str());
  std::remove(log.c_str());  // runLogged appends
  const int rc = common::runLogged({setup.yosys, "-q", "-s", script}, log);
  LogicArea a = rc == 0 ? parseNetlist(common::readFile(netlist).value_or("")) : LogicArea{};
  // yosys 0.23 reads some constructs it does not support as a new implicit wire, with only a
  // warning (rtl/README.md): such a netlist is wrong, so it counts as a failure.
  const std::string misread = rc == 0 ? implicitDeclaration(log) : std::string();
  if (!misread.empty()) {
    a.synthesized = false;
    a.note = "yosys misread the RTL (" + misread + "; rtl/README.md lists what yosys 0.23 reads)";
  }
  if (!a.synthesized) {
    // Keep the log where the note points.
    const std::string kept = cached ? (fs::path(setup.cacheDir) / (key.fileName() + ".log")).string()
                                    : (fs::temp_directory_path() / ("weft-" + key.fileName() + ".log")).string();
    fs::copy_file(log, kept, fs::copy_options::overwrite_existing, ec);
    fail.note = rc == 0 ? fmt::format("logic not synthesized ({}; log: {})", a.note, kept)
                        : fmt::format("logic not synthesized (yosys exited with {}: {}; log: {})", rc,
                                      lastLine(log), kept);
    fs::remove_all(work, ec);
    return remember(fail);
  }
  if (cached) {
    nlohmann::ordered_json doc = {{"rtlKey", key.rtlKey},
                                  {"rtlDigest", key.rtlDigest},
                                  {"flow", key.flow},
                                  {"config", hw.name()},
                                  {"logic", toJson(a)}};
    common::tryWriteFileAtomically(cachePath, doc.dump(1) + "\n");  // a cache: a failed write costs a synthesis
  }
  fs::remove_all(work, ec);
  return remember(a);
}

}  // namespace weft::codesign
