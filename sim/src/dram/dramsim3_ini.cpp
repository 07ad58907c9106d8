#include "weft/sim/dram/dramsim3_ini.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

#include "weft/sim/dram/errors.h"

namespace weft::sim::dram {

namespace {

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string trim(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

struct Entry {
  std::string section, name;  // as spelled in the file
  std::string value;          // without comment and surrounding blanks
  int line = 0;
};

// The file as inih (DRAMsim3's INI reader) sees it, minus its silent acceptance of broken lines.
class IniFile {
 public:
  IniFile(const std::string& text, std::string fileName) : file_(std::move(fileName)) {
    std::istringstream in(text);
    std::string raw, section;
    int lineNo = 0;
    while (std::getline(in, raw)) {
      ++lineNo;
      if (lineNo == 1 && raw.compare(0, 3, "\xEF\xBB\xBF") == 0) raw.erase(0, 3);  // UTF-8 BOM
      const std::string line = trim(raw);
      if (line.empty() || line[0] == ';' || line[0] == '#') continue;
      if (line[0] == '[') {
        const size_t close = line.find(']');
        if (close == std::string::npos) {
          throw DramInputError(fmt::format("{}:{}: '{}': a section header needs its closing ']'", file_, lineNo, line));
        }
        section = trim(line.substr(1, close - 1));
        continue;
      }
      const size_t eq = line.find_first_of("=:");
      if (eq == std::string::npos) {
        throw DramInputError(fmt::format(
            "{}:{}: '{}' is neither a [section], a name = value pair nor a comment", file_, lineNo, line));
      }
      if (section.empty()) {
        throw DramInputError(fmt::format("{}:{}: '{}' comes before any [section]", file_, lineNo, line));
      }
      Entry e;
      e.section = section;
      e.name = trim(line.substr(0, eq));
      // A ';' never belongs to a value here: DRAMsim3's files write both "1 ; comment" and "1; comment".
      e.value = trim(line.substr(eq + 1, line.find(';', eq + 1) - eq - 1));
      e.line = lineNo;
      const std::string key = lower(section) + "=" + lower(e.name);
      auto [it, inserted] = entries_.emplace(key, e);
      if (!inserted && it->second.value != e.value) {
        throw DramInputError(fmt::format("{}:{}: [{}] {} = {} contradicts line {} ({} = {})", file_, lineNo, section,
                                         e.name, e.value, it->second.line, it->second.name, it->second.value));
      }
    }
  }

  const Entry* find(const std::string& section, const std::string& name) const {
    const auto it = entries_.find(lower(section) + "=" + lower(name));
    return it == entries_.end() ? nullptr : &it->second;
  }
  bool hasSection(const std::string& section) const {
    const std::string prefix = lower(section) + "=";
    const auto it = entries_.lower_bound(prefix);
    return it != entries_.end() && it->first.compare(0, prefix.size(), prefix) == 0;
  }
  const std::string& file() const { return file_; }
  std::string at(const Entry& e) const {
    return fmt::format("{}:{}: [{}] {} = {}", file_, e.line, e.section, e.name, e.value);
  }

 private:
  std::string file_;
  std::map<std::string, Entry> entries_;
};

// Typed fields with DRAMsim3's defaults; every default taken for a field that matters is noted.
class Fields {
 public:
  Fields(const IniFile& ini, std::vector<std::string>& notes) : ini_(ini), notes_(notes) {}

  bool has(const char* section, const char* name) const { return ini_.find(section, name) != nullptr; }

  // Absent: an error. Left blank ("tRFC ="): DRAMsim3's default, noted.
  uint32_t required(const char* section, const char* name, uint32_t dsDefault, uint32_t min = 1) {
    const Entry* e = ini_.find(section, name);
    if (e == nullptr) {
      throw DramInputError(fmt::format("{}: [{}] {} is missing (a device needs it; DRAMsim3 would guess {})",
                                       ini_.file(), section, name, dsDefault));
    }
    if (e->value.empty()) return blank(*e, dsDefault);
    return integer(*e, min);
  }
  // `noteIfAbsent`: say which default was taken (a field a reader expects to be set).
  uint32_t optional(const char* section, const char* name, uint32_t dflt, bool noteIfAbsent = false,
                    const std::string& why = "") {
    const Entry* e = ini_.find(section, name);
    if (e == nullptr) {
      if (noteIfAbsent) {
        notes_.push_back(fmt::format("[{}] {} absent: DRAMsim3's default {} used{}", section, name, dflt, why));
      }
      return dflt;
    }
    if (e->value.empty()) return blank(*e, dflt);
    return integer(*e, 0);
  }
  double real(const char* section, const char* name, double dflt) {
    const Entry* e = ini_.find(section, name);
    if (e == nullptr) return dflt;
    if (e->value.empty()) return blank(*e, dflt);
    const std::string number = numberPart(*e);
    char* end = nullptr;
    errno = 0;
    const double v = std::strtod(number.c_str(), &end);
    if (number.empty() || *end != '\0' || errno != 0 || !(v >= 0)) {
      throw DramInputError(fmt::format("{}: not a non-negative number", ini_.at(*e)));
    }
    return v;
  }
  bool boolean(const char* section, const char* name, bool dflt) {
    const Entry* e = ini_.find(section, name);
    if (e == nullptr) return dflt;
    const std::string v = lower(e->value);
    if (v == "true" || v == "yes" || v == "on" || v == "1") return true;
    if (v == "false" || v == "no" || v == "off" || v == "0") return false;
    throw DramInputError(fmt::format("{}: not a boolean (true/false, yes/no, on/off, 1/0)", ini_.at(*e)));
  }
  std::string text(const char* section, const char* name, const std::string& dflt, bool required = false) {
    const Entry* e = ini_.find(section, name);
    if (e == nullptr) {
      if (required) {
        throw DramInputError(fmt::format("{}: [{}] {} is missing (a device needs it)", ini_.file(), section, name));
      }
      return dflt;
    }
    return e->value;
  }
  // One of `accepted` (exact spelling, as DRAMsim3 compares them).
  std::string choice(const char* section, const char* name, const std::string& dflt,
                     const std::vector<std::string>& accepted) {
    const Entry* e = ini_.find(section, name);
    if (e == nullptr) return dflt;
    if (std::find(accepted.begin(), accepted.end(), e->value) == accepted.end()) {
      std::string list;
      for (const auto& a : accepted) list += (list.empty() ? "" : ", ") + a;
      throw DramInputError(fmt::format("{}: not one of {}", ini_.at(*e), list));
    }
    return e->value;
  }
  Rational decimal(const char* section, const char* name) {
    const Entry* e = ini_.find(section, name);
    if (e == nullptr || e->value.empty()) {
      throw DramInputError(fmt::format("{}: [{}] {} is missing (a device needs it)", ini_.file(), section, name));
    }
    try {
      const Rational r = Rational::parseDecimal(numberPart(*e));
      if (r.isZero()) throw std::invalid_argument("zero");
      return r;
    } catch (const std::invalid_argument&) {
      throw DramInputError(fmt::format("{}: a clock period is a positive plain decimal in ns (e.g. 0.625)", ini_.at(*e)));
    }
  }

 private:
  uint32_t blank(const Entry& e, uint32_t dflt) {
    notes_.push_back(fmt::format("{}:{}: [{}] {} is blank: DRAMsim3's default {} used", ini_.file(), e.line, e.section,
                                 e.name, dflt));
    return dflt;
  }
  double blank(const Entry& e, double dflt) {
    notes_.push_back(fmt::format("{}:{}: [{}] {} is blank: DRAMsim3's default {} used", ini_.file(), e.line, e.section,
                                 e.name, dflt));
    return dflt;
  }
  // The number at the start of a value; a remark after it and a blank ("0.666 (1/1.5)") is
  // ignored, as DRAMsim3 ignores it, and noted. "12abc" stays one (bad) number.
  std::string numberPart(const Entry& e) {
    const size_t blankAt = e.value.find_first_of(" \t");
    if (blankAt == std::string::npos) return e.value;
    notes_.push_back(fmt::format("{}:{}: [{}] {}: '{}' after the number ignored, as DRAMsim3 does", ini_.file(), e.line,
                                 e.section, e.name, e.value.substr(e.value.find_first_not_of(" \t", blankAt))));
    return e.value.substr(0, blankAt);
  }
  uint32_t integer(const Entry& e, uint32_t min) {
    const std::string v = numberPart(e);
    char* end = nullptr;
    errno = 0;
    const bool hex = v.size() > 2 && v[0] == '0' && (v[1] == 'x' || v[1] == 'X');
    const long long n = std::strtoll(v.c_str(), &end, hex ? 16 : 10);
    if (v.empty() || *end != '\0' || errno != 0) {
      throw DramInputError(fmt::format("{}: not a whole number", ini_.at(e)));
    }
    if (n < static_cast<long long>(min) || n > 0x7fffffffLL) {
      throw DramInputError(fmt::format("{}: must be at least {} (and below 2^31)", ini_.at(e), min));
    }
    return static_cast<uint32_t>(n);
  }

  const IniFile& ini_;
  std::vector<std::string>& notes_;
};

Protocol protocolOf(const IniFile& ini, Fields& f) {
  static const std::pair<const char*, Protocol> names[] = {
      {"DDR3", Protocol::kDDR3},     {"DDR4", Protocol::kDDR4},     {"GDDR5", Protocol::kGDDR5},
      {"GDDR5X", Protocol::kGDDR5X}, {"GDDR6", Protocol::kGDDR6},   {"LPDDR", Protocol::kLPDDR},
      {"LPDDR3", Protocol::kLPDDR3}, {"LPDDR4", Protocol::kLPDDR4}, {"HBM", Protocol::kHBM},
      {"HBM2", Protocol::kHBM2},     {"HMC", Protocol::kHMC}};
  const std::string p = f.text("dram_structure", "protocol", "", /*required=*/true);
  for (const auto& [name, proto] : names) {
    if (p == name) return proto;
  }
  throw DramInputError(fmt::format("{}: [dram_structure] protocol = {}: not one DRAMsim3 knows (DDR3, DDR4, GDDR5, "
                                   "GDDR5X, GDDR6, LPDDR, LPDDR3, LPDDR4, HBM, HBM2, HMC)",
                                   ini.file(), p));
}

}  // namespace

DeviceSpec parseDramsim3Ini(const std::string& text, const std::string& fileName) {
  const IniFile ini(text, fileName);
  DeviceSpec spec;
  spec.name = fileName.substr(fileName.find_last_of('/') == std::string::npos ? 0 : fileName.find_last_of('/') + 1);
  spec.source = fmt::format("{} (DRAMsim3 .ini)", fileName);
  Fields f(ini, spec.notes);
  Organization& o = spec.org;
  Timing& t = spec.timing;
  ControllerPolicy& c = spec.controller;

  // [dram_structure]
  o.protocol = protocolOf(ini, f);
  const bool gddr = isGddr(o.protocol), hbm = isHbm(o.protocol), hmc = o.protocol == Protocol::kHMC;
  o.bankGroups = f.required("dram_structure", "bankgroups", 2);
  o.banksPerGroup = f.required("dram_structure", "banks_per_group", 2);
  if (!f.boolean("dram_structure", "bankgroup_enable", true)) {  // GDDR5/6: all banks in one group
    o.banksPerGroup *= o.bankGroups;
    o.bankGroups = 1;
  }
  o.rows = f.required("dram_structure", "rows", 1 << 16);
  o.columns = f.required("dram_structure", "columns", 1 << 10);
  o.deviceWidth = f.required("dram_structure", "device_width", 8);
  if (hmc) {
    // DRAMsim3: an HMC "burst" is one block (block_size bytes over the vault's 32-bit TSVs).
    o.burstLength = f.optional("hmc", "block_size", 64) * 8 / o.deviceWidth;
    spec.notes.push_back("HMC: its vaults run as channels behind the JEDEC controller; DRAMsim3's links and crossbar "
                         "(the [hmc] section) are not modeled");
  } else {
    o.burstLength = f.required("dram_structure", "BL", 8);
  }
  switch (o.protocol) {
    case Protocol::kGDDR5: t.burstCycles = o.burstLength / 4; break;
    case Protocol::kGDDR5X: t.burstCycles = o.burstLength / 8; break;
    case Protocol::kGDDR6: t.burstCycles = o.burstLength / 16; break;
    default: t.burstCycles = o.burstLength / 2; break;
  }
  if (t.burstCycles == 0) {
    throw DramInputError(fmt::format("{}: [dram_structure] BL = {} moves no data on {} (a burst must last a cycle)",
                                     fileName, o.burstLength, protocolName(o.protocol)));
  }
  if (gddr) o.columns *= o.burstLength;  // DRAMsim3 counts physical (device-width) columns
  if (hbm) o.columns *= 2;

  // [system]
  const uint32_t channelMiB = f.required("system", "channel_size", 1024);
  o.channels = f.required("system", "channels", 1);
  o.busWidth = f.required("system", "bus_width", 64);
  c.addressMapping = f.text("system", "address_mapping", "", /*required=*/true);
  c.queueStructure = f.choice("system", "queue_structure", "PER_BANK", {"PER_BANK", "PER_RANK"}) == "PER_RANK"
                         ? QueueStructure::kPerRank
                         : QueueStructure::kPerBank;
  c.pagePolicy = f.choice("system", "row_buf_policy", "OPEN_PAGE", {"OPEN_PAGE", "CLOSE_PAGE"}) == "CLOSE_PAGE"
                     ? PagePolicy::kClosed
                     : PagePolicy::kOpen;
  const std::string refresh = f.choice("system", "refresh_policy", "RANK_LEVEL_STAGGERED",
                                       {"RANK_LEVEL_STAGGERED", "RANK_LEVEL_SIMULTANEOUS", "BANK_LEVEL_STAGGERED"});
  c.refreshPolicy = refresh == "RANK_LEVEL_SIMULTANEOUS" ? RefreshPolicy::kRankSimultaneous
                    : refresh == "BANK_LEVEL_STAGGERED"  ? RefreshPolicy::kBankStaggered
                                                         : RefreshPolicy::kRankStaggered;
  c.commandQueueSize = f.optional("system", "cmd_queue_size", 16, true);
  c.transactionQueueSize = f.optional("system", "trans_queue_size", 32, true);
  c.unifiedQueue = f.boolean("system", "unified_queue", false);
  c.dualCommandIssue = hbm && f.boolean("dram_structure", "hbm_dual_cmd", true);
  if (c.commandQueueSize == 0 || c.transactionQueueSize == 0) {
    throw DramInputError(fmt::format("{}: [system] cmd_queue_size and trans_queue_size must be at least 1", fileName));
  }
  if (f.boolean("system", "enable_self_refresh", false)) {
    spec.notes.push_back("[system] enable_self_refresh: self-refresh is not modeled; ranks stay in standby");
  }

  // Ranks from the channel size, as DRAMsim3 does (one rank when the channel is smaller).
  if (o.deviceWidth == 0 || o.busWidth % o.deviceWidth != 0) {
    throw DramInputError(fmt::format("{}: [system] bus_width = {} is not a whole number of {}-bit devices", fileName,
                                     o.busWidth, o.deviceWidth));
  }
  o.ranks = 1;
  const uint64_t channelBytes = uint64_t{channelMiB} << 20;
  const uint64_t rankBytes = o.rankBytes();
  if (rankBytes == 0) throw DramInputError(fmt::format("{}: the device description gives an empty rank", fileName));
  if (rankBytes > channelBytes) {
    spec.notes.push_back(fmt::format("[system] channel_size = {} MiB is smaller than one rank ({} MiB): one rank, as "
                                     "DRAMsim3 does",
                                     channelMiB, rankBytes >> 20));
  } else {
    o.ranks = static_cast<uint32_t>(channelBytes / rankBytes);
    if (channelBytes % rankBytes != 0) {
      spec.notes.push_back(fmt::format("[system] channel_size = {} MiB is not whole ranks of {} MiB: {} ranks", channelMiB,
                                       rankBytes >> 20, o.ranks));
    }
  }

  // [timing]
  t.tCKns = f.decimal("timing", "tCK");
  t.AL = f.optional("timing", "AL", 0);
  t.CL = f.required("timing", "CL", 12);
  t.CWL = f.required("timing", "CWL", 12);
  const bool separateRcd = f.has("timing", "tRCDRD") && f.has("timing", "tRCDWR");
  if (gddr || hbm) {
    t.tRCDRD = f.required("timing", "tRCDRD", 24);
    t.tRCDWR = f.required("timing", "tRCDWR", 20);
  } else if (!f.has("timing", "tRCD") && separateRcd) {
    t.tRCDRD = f.required("timing", "tRCDRD", 24);
    t.tRCDWR = f.required("timing", "tRCDWR", 20);
    spec.notes.push_back(fmt::format("[timing] tRCD absent on {}: tRCDRD and tRCDWR used (DRAMsim3 would take its "
                                     "default tRCD = 10 and ignore them)",
                                     protocolName(o.protocol)));
  } else {
    t.tRCDRD = t.tRCDWR = f.required("timing", "tRCD", 10);
  }
  t.tRP = f.required("timing", "tRP", 10);
  t.tRAS = f.required("timing", "tRAS", 24);
  t.tRC = f.optional("timing", "tRC", t.tRAS + t.tRP);  // DRAMsim3 always derives it
  t.tRFC = f.required("timing", "tRFC", 74);
  const std::string refiHint = f.has("timing", "REFI") ? " (the file's REFI is not a field DRAMsim3 reads)" : "";
  t.tREFI = f.optional("timing", "tREFI", 7800, true, refiHint);
  const std::string rtpHint =
      f.has("timing", "tRTP_L") ? " (the file's tRTP_L / tRTP_S are not fields DRAMsim3 reads)" : "";
  t.tRTP = f.optional("timing", "tRTP", 5, true, rtpHint);
  t.tRTRS = f.optional("timing", "tRTRS", 2, o.ranks > 1);
  t.tCCD_S = f.optional("timing", "tCCD_S", 4, true);
  t.tCCD_L = f.optional("timing", "tCCD_L", 6, o.bankGroups > 1);
  t.tRRD_S = f.optional("timing", "tRRD_S", 4, true);
  t.tRRD_L = f.optional("timing", "tRRD_L", 4, o.bankGroups > 1);
  t.tWTR_S = f.optional("timing", "tWTR_S", 5, true);
  t.tWTR_L = f.optional("timing", "tWTR_L", 5, o.bankGroups > 1);
  t.tWR = f.optional("timing", "tWR", 10, true);
  t.tFAW = f.optional("timing", "tFAW", 50, true);
  t.tPPD = f.optional("timing", "tPPD", 0);
  t.t32AW = gddr ? f.optional("timing", "t32AW", 330, true) : 0;
  const bool bankRefresh = c.refreshPolicy == RefreshPolicy::kBankStaggered;
  t.tRFCb = f.optional("timing", "tRFCb", 20, bankRefresh);
  t.tREFIb = f.optional("timing", "tREFIb", 1950, bankRefresh);

  // [power]: one rail, DRAMsim3's defaults for absent currents.
  PowerRail rail;
  if (!ini.hasSection("power")) spec.notes.push_back("[power] absent: DRAMsim3's default currents used");
  rail.vdd = f.real("power", "VDD", 1.2);
  rail.idd0 = f.real("power", "IDD0", 48);
  rail.idd2p = f.real("power", "IDD2P", 25);
  rail.idd2n = f.real("power", "IDD2N", 34);
  rail.idd3p = f.real("power", "IDD3P", 37);
  rail.idd3n = f.real("power", "IDD3N", 43);
  rail.idd4w = f.real("power", "IDD4W", 123);
  rail.idd4r = f.real("power", "IDD4R", 135);
  rail.idd5ab = f.real("power", "IDD5AB", 250);
  rail.idd5pb = f.real("power", "IDD5PB", 5);
  rail.idd6 = f.real("power", "IDD6x", 31);
  spec.power = {rail};

  validateDevice(spec, fileName);
  return spec;
}

DeviceSpec readDramsim3Ini(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw DramInputError(fmt::format("{}: cannot open the device description", path));
  std::ostringstream text;
  text << in.rdbuf();
  return parseDramsim3Ini(text.str(), path);
}

}  // namespace weft::sim::dram
