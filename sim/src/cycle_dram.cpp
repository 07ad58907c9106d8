#include "weft/sim/cycle_dram.h"

#include "weft/common/files.h"
#include "weft/hw/generated.h"
#include "weft/sim/dram_counters.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <stdexcept>


namespace weft::sim {

namespace {

// WEFT_DRAM_TRACE: one file per process, created at the first use.
std::FILE* processTraceFile() {
  static std::mutex m;
  static std::FILE* file = nullptr;
  static std::string openedPath;
  const char* path = std::getenv("WEFT_DRAM_TRACE");
  if (path == nullptr || *path == '\0') return nullptr;
  std::lock_guard<std::mutex> lock(m);
  if (file != nullptr && openedPath == path) return file;
  if (file != nullptr) std::fclose(file);
  file = std::fopen(path, "w");
  if (file == nullptr) throw std::runtime_error(fmt::format("WEFT_DRAM_TRACE: cannot create {}", path));
  openedPath = path;
  return file;
}

uint32_t log2Of(uint32_t v) {
  uint32_t s = 0;
  while ((uint32_t{1} << s) < v) ++s;
  return s;
}

}  // namespace

CycleDram::CycleDram(std::shared_ptr<const dram::DeviceSpec> device, uint64_t clockMHz, uint32_t busBytes)
    : device_(std::move(device)),
      memory_(*device_),
      toDram_(dram::ClockCrossing::acceleratorToDram(clockMHz, device_->timing.tCKns)),
      fromDram_(toDram_.reverse()),
      requestBytes_(device_->org.requestBytes()),
      requestShift_(log2Of(device_->org.requestBytes())),
      busBytes_(busBytes) {
  memory_.recordCompletions(true);
  memory_.recordWriteCompletions(false);  // a write's acknowledgement is known at its entry
}

// The process's trace file (WEFT_DRAM_TRACE, fixed for the process's life), or nullptr.
std::FILE* traceFile() {
  static std::FILE* const file = processTraceFile();
  return file;
}

std::vector<DramCommandEvent> CycleDram::takeCommands() {
  commands_.clear();
  memory_.takeCommands(commands_);
  const double acceleratorCyclesPerDramCycle = fromDram_.ratio().toDouble();
  std::vector<DramCommandEvent> out;
  out.reserve(commands_.size());
  for (const dram::CommandRecord& c : commands_) {
    out.push_back({c.cycle, static_cast<double>(c.cycle) * acceleratorCyclesPerDramCycle, static_cast<uint8_t>(c.kind),
                   c.channel, c.rank, c.bankGroup, c.bank, c.row, c.addr});
  }
  commands_.clear();
  commands_.shrink_to_fit();
  return out;
}

void CycleDram::beginProgram() {
  inProgram_ = true;
  const char* path = std::getenv("WEFT_DRAM_STATS");
  if (path == nullptr || *path == '\0' || statsPath_ == path) return;
  // A file named anew counts from here: the counters' growth over the programs run while it is
  // named, not since this DRAM was built (a process may run many workloads on one device).
  statsPath_ = path;
  statsBase_ = dramCounters(activity());
}

uint64_t CycleDram::read(uint64_t addr, uint32_t bytes, uint64_t issueCycle) {
  if (!inProgram_) beginProgram();
  const uint64_t d = dramCycle(issueCycle);
  const uint64_t first = addr >> requestShift_;
  const uint64_t last = (addr + std::max<uint32_t>(bytes, 1) - 1) >> requestShift_;
  const uint64_t base = nextId_;
  for (uint64_t tx = first; tx <= last; ++tx) {
    const uint64_t at = memory_.offer({nextId_++, tx << requestShift_, false}, d);
    if (tracing_) trace_.push_back({tx << requestShift_, at, false});
    if (traceFile() != nullptr) fmt::print(traceFile(), "{:#x} READ {}\n", tx << requestShift_, at);
  }
  const uint64_t n = last - first + 1;
  // Every transaction of the request gets its column command (or is served from a pending
  // write). Only this request's reads are undecided, and no write leaves a record, so what
  // decideReads() hands over is this request's reads, in no particular order (the answer is
  // their latest).
  completions_.clear();
  memory_.decideReads(completions_);
  // A read served from a pending write is decided at its entry, which may be now(): it is
  // visible one cycle later, so the model moves on a cycle (the rule of takeCompletions(),
  // which hands over only what was decided before now()).
  bool decidedAtNow = false;
  uint64_t answer = 0;
  uint64_t found = 0;
  for (const auto& c : completions_) {
    if (c.isWrite || c.id < base) continue;
    ++found;
    decidedAtNow |= c.decidedCycle >= memory_.now();
    const uint64_t txAddr = (first + (c.id - base)) << requestShift_;
    const uint64_t beat = (std::max(txAddr, addr) - addr) / busBytes_;
    const uint64_t ready = fromDram_.atOrAfter(c.doneCycle + 1);
    answer = std::max(answer, ready > beat ? ready - beat : 0);
  }
  if (found != n) {
    throw std::logic_error(fmt::format("cycle DRAM: {} of {} transactions of a read at {:#x} completed", found, n, addr));
  }
  if (decidedAtNow) memory_.advanceTo(memory_.now() + 1);
  return answer;
}

uint64_t CycleDram::write(uint64_t addr, uint32_t bytes, uint64_t issueCycle) {
  if (!inProgram_) beginProgram();
  const uint64_t d = dramCycle(issueCycle);
  const uint64_t first = addr >> requestShift_;
  const uint64_t last = (addr + std::max<uint32_t>(bytes, 1) - 1) >> requestShift_;
  uint64_t entered = 0;
  for (uint64_t tx = first; tx <= last; ++tx) {
    entered = memory_.offer({nextId_++, tx << requestShift_, true}, d);
    if (tracing_) trace_.push_back({tx << requestShift_, entered, true});
    if (traceFile() != nullptr) fmt::print(traceFile(), "{:#x} WRITE {}\n", tx << requestShift_, entered);
  }
  if (addr >= snapshotBase_ && addr - snapshotBase_ < snapshotBytes_ && (addr - snapshotBase_) % hw::kSnapshotBytes == 0) {
    checkpoints_.push_back({static_cast<uint32_t>((addr - snapshotBase_) / hw::kSnapshotBytes), dramCounters(activity())});
  }
  // Posted: acknowledged the DRAM cycle after it entered; its completion record is not needed.
  return fromDram_.atOrAfter(entered + 1);
}

void CycleDram::endProgram(uint64_t cycle) {
  if (!inProgram_) beginProgram();  // a program without DRAM traffic
  inProgram_ = false;
  memory_.advanceTo(dramCycle(cycle));
  memory_.drainWrites();
  completions_.clear();
  memory_.takeCompletions(completions_);  // forget the writes' records
  completions_.clear();
  if (traceFile() != nullptr) std::fflush(traceFile());
  if (const char* path = std::getenv("WEFT_DRAM_STATS"); path != nullptr && *path != '\0') {
    std::string json = "{";
    const auto counters = dramCounters(activity());
    for (size_t i = 0; i < counters.size(); ++i) {
      const auto& [name, value] = counters[i];
      const uint64_t base = path == statsPath_ && i < statsBase_.size() ? statsBase_[i].second : 0;
      json += fmt::format("{}\"{}\": {}", json.size() > 1 ? ", " : "", name, value - std::min(value, base));
    }
    json += "}\n";
    // Whole or not at all: a reader never sees half a file. A failed write leaves the previous
    // counters (the tool then reports no growth); the program itself is unaffected, so it is said
    // on stderr rather than failing the execution.
    if (const std::string error = common::tryWriteFileAtomically(path, json); !error.empty()) {
      fmt::print(stderr, "weft: WEFT_DRAM_STATS: {}\n", error);
    }
  }
}

std::vector<std::pair<std::string, uint64_t>> dramCounters(const DramActivity& a) {
  const auto& s = a.stats;
  return {{"DRAM_READS", s.reads},
          {"DRAM_WRITES", s.writes},
          {"DRAM_ROW_HITS", s.rowHits},
          {"DRAM_ROW_MISSES", s.rowMisses},
          {"DRAM_ROW_CONFLICTS", s.rowConflicts},
          {"DRAM_ACTIVATES", s.activates},
          {"DRAM_PRECHARGES", s.precharges + s.autoPrecharges},
          {"DRAM_REFRESHES", s.refreshes + s.bankRefreshes},
          {"DRAM_READ_LATENCY_SUM", s.readLatencySum},
          {"DRAM_READS_DONE", s.readsDone},
          {"DRAM_WRITE_LATENCY_SUM", s.writeLatencySum},
          {"DRAM_WRITE_COMMANDS", s.writeCommands},
          {"DRAM_BANK_BUSY_SUM", s.bankBusySum},
          {"DRAM_BUSY_CYCLES", s.busyCycles},
          {"DRAM_CYCLES", a.dramCycles},
          {"DRAM_ENERGY_PJ", static_cast<uint64_t>(a.energy.total() + 0.5)},
          {"DRAM_TIME_ENERGY_PJ", static_cast<uint64_t>(a.energy.background + a.energy.refresh + 0.5)}};
}

DramActivity CycleDram::activity() {
  DramActivity a;
  a.stats = memory_.stats();
  a.energy = dram::computeEnergy(*device_, a.stats);
  a.dramCycles = memory_.now();
  a.tckNs = device_->timing.tCK();
  a.requestBytes = requestBytes_;
  return a;
}

}  // namespace weft::sim
