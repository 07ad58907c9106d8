#include "weft/sim/dram/trace_replay.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <sstream>

#include "weft/sim/dram/errors.h"
#include "weft/sim/dram/memory_system.h"

namespace weft::sim::dram {

namespace {

bool isBlank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

int hexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// The operations DRAMsim3's reader knows (common.cc); it reads anything else as a read, which
// here is an error instead.
int operationOf(std::string_view op) {
  if (op == "READ" || op == "read" || op == "P_MEM_RD" || op == "P_FETCH") return 0;
  if (op == "WRITE" || op == "write" || op == "P_MEM_WR" || op == "BOFF") return 1;
  return -1;
}

}  // namespace

std::vector<TraceRecord> parseTrace(std::string_view text, const std::string& fileName, uint64_t capacityBytes) {
  std::vector<TraceRecord> records;
  records.reserve(static_cast<size_t>(std::count(text.begin(), text.end(), '\n')) + 1);
  const char* p = text.data();
  const char* const end = p + text.size();
  uint64_t lineNo = 0;
  while (p < end) {
    ++lineNo;
    const char* eol = static_cast<const char*>(memchr(p, '\n', static_cast<size_t>(end - p)));
    if (eol == nullptr) eol = end;
    const std::string_view line(p, static_cast<size_t>(eol - p));
    const char* q = p;
    p = eol + 1;
    while (q < eol && isBlank(*q)) ++q;
    if (q == eol || *q == '#') continue;
    const auto bad = [&](const std::string& what) {
      std::string shown(line.substr(0, 80));
      while (!shown.empty() && shown.back() == '\r') shown.pop_back();
      return DramInputError(fmt::format("{}:{}: '{}': {} (a line is '0x<address> READ|WRITE <cycle>')", fileName,
                                        lineNo, shown, what));
    };
    // Address, hex.
    if (eol - q > 1 && q[0] == '0' && (q[1] == 'x' || q[1] == 'X')) q += 2;
    uint64_t addr = 0;
    int digits = 0;
    for (int d; q < eol && (d = hexDigit(*q)) >= 0; ++q) {
      if (++digits > 16) throw bad("the address does not fit in 64 bits");
      addr = addr << 4 | static_cast<uint64_t>(d);
    }
    if (digits == 0) throw bad("no hexadecimal address");
    if (q < eol && !isBlank(*q)) throw bad("the address is not hexadecimal");
    while (q < eol && isBlank(*q)) ++q;
    // Operation.
    const char* opStart = q;
    while (q < eol && !isBlank(*q)) ++q;
    if (q == opStart) throw bad("no operation");
    const int op = operationOf(std::string_view(opStart, static_cast<size_t>(q - opStart)));
    if (op < 0) throw bad("the operation is neither READ nor WRITE");
    while (q < eol && isBlank(*q)) ++q;
    // Cycle, decimal.
    uint64_t cycle = 0;
    digits = 0;
    for (; q < eol && *q >= '0' && *q <= '9'; ++q) {
      if (++digits > 19) throw bad("the cycle does not fit in 64 bits");
      cycle = cycle * 10 + static_cast<uint64_t>(*q - '0');
    }
    if (digits == 0) throw bad("no decimal cycle");
    while (q < eol && isBlank(*q)) ++q;
    if (q != eol) throw bad("unexpected text after the cycle");
    if (capacityBytes != 0 && addr >= capacityBytes) {
      throw bad(fmt::format("address {:#x} is beyond the device ({} bytes: addresses below {:#x})", addr, capacityBytes,
                            capacityBytes));
    }
    records.push_back(TraceRecord{addr, cycle, op == 1});
  }
  return records;
}

std::vector<TraceRecord> readTrace(const std::string& path, uint64_t capacityBytes) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) throw DramInputError(fmt::format("{}: cannot open the trace", path));
  std::string text(static_cast<size_t>(in.tellg()), '\0');
  in.seekg(0);
  if (!in.read(text.data(), static_cast<std::streamsize>(text.size()))) {
    throw DramInputError(fmt::format("{}: cannot read the trace", path));
  }
  return parseTrace(text, path, capacityBytes);
}

ReplayResult replayTrace(const DeviceSpec& spec, const std::vector<TraceRecord>& trace) {
  MemorySystem memory(spec);
  memory.recordCompletions(false);  // the statistics are all a replay reports
  uint64_t lastEntry = 0;
  for (size_t i = 0; i < trace.size(); ++i) {
    const TraceRecord& r = trace[i];
    // One transaction a cycle, none before the cycle after its own (DRAMsim3's driver).
    const uint64_t from = std::max(r.cycle + 1, i == 0 ? 0 : lastEntry + 1);
    lastEntry = memory.offer(Transaction{i, r.addr, r.isWrite}, from);
  }
  ReplayResult result;
  result.dramCycles = memory.drain();
  memory.advanceTo(result.dramCycles);
  result.device = spec.name;
  result.tCKns = spec.timing.tCK();
  result.requestBytes = spec.org.requestBytes();
  result.transactions = trace.size();
  result.stats = memory.stats();
  result.energy = computeEnergy(spec, result.stats);
  return result;
}

double ReplayResult::bandwidthGBps() const {
  if (dramCycles == 0) return 0;
  return double(transactions) * requestBytes / (double(dramCycles) * tCKns);
}

nlohmann::json ReplayResult::toJson() const {
  const DramStats& s = stats;
  nlohmann::json j;
  j["device"] = device;
  j["tck_ns"] = tCKns;
  j["request_bytes"] = requestBytes;
  j["transactions"] = transactions;
  j["reads"] = s.reads;
  j["writes"] = s.writes;
  j["dram_cycles"] = dramCycles;
  j["average_read_latency_cycles"] = s.averageReadLatency();
  j["row_hits"] = s.rowHits;
  j["row_misses"] = s.rowMisses;
  j["row_conflicts"] = s.rowConflicts;
  j["row_hit_rate"] = s.rowHitRate();
  j["activates"] = s.activates;
  j["precharges"] = s.precharges;
  j["auto_precharges"] = s.autoPrecharges;
  j["refreshes"] = s.refreshes + s.bankRefreshes;
  j["read_commands"] = s.readCommands;
  j["write_commands"] = s.writeCommands;
  j["reads_forwarded"] = s.readsForwarded;
  j["reads_merged"] = s.readsMerged;
  j["writes_merged"] = s.writesMerged;
  j["bank_level_parallelism"] = s.bankLevelParallelism();
  j["energy_pj"] = energy.total();
  j["energy_breakdown_pj"] = {{"activate", energy.activate}, {"precharge", energy.precharge},
                              {"read", energy.read},         {"write", energy.write},
                              {"refresh", energy.refresh},   {"background", energy.background}};
  j["bandwidth_gbps"] = bandwidthGBps();
  return j;
}

std::string ReplayResult::toText() const {
  const DramStats& s = stats;
  std::string t;
  t += fmt::format("device            {} (tCK {} ns, {} B a transaction)\n", device, tCKns, requestBytes);
  t += fmt::format("transactions      {} ({} reads, {} writes)\n", transactions, s.reads, s.writes);
  t += fmt::format("dram cycles       {} ({:.1f} ns)\n", dramCycles, double(dramCycles) * tCKns);
  t += fmt::format("read latency      {:.2f} cycles on average\n", s.averageReadLatency());
  t += fmt::format("row buffer        {} hits, {} misses, {} conflicts ({:.1f} % hits)\n", s.rowHits, s.rowMisses,
                   s.rowConflicts, 100.0 * s.rowHitRate());
  t += fmt::format("commands          {} ACT, {} PRE, {} RD, {} WR, {} REF\n", s.activates,
                   s.precharges + s.autoPrecharges, s.readCommands, s.writeCommands, s.refreshes + s.bankRefreshes);
  t += fmt::format("bank parallelism  {:.2f} banks busy on average\n", s.bankLevelParallelism());
  t += fmt::format("bandwidth         {:.2f} GB/s\n", bandwidthGBps());
  t += fmt::format("energy            {:.1f} nJ (activate {:.1f}, precharge {:.1f}, read {:.1f}, write {:.1f}, "
                   "refresh {:.1f}, background {:.1f})\n",
                   energy.total() / 1e3, energy.activate / 1e3, energy.precharge / 1e3, energy.read / 1e3,
                   energy.write / 1e3, energy.refresh / 1e3, energy.background / 1e3);
  return t;
}

}  // namespace weft::sim::dram
