#include "weft/sim/dram/trace_replay.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <cstddef>
#include <cstring>
#include <exception>
#include <mutex>
#include <optional>
#include <system_error>
#include <thread>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

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

// hexDigit as a table, for the common lines' fast path: -1 for what is not a hex digit.
struct HexTable {
  int8_t value[256];
  constexpr HexTable() : value() {
    for (int c = 0; c < 256; ++c) {
      value[c] = static_cast<int8_t>(c >= '0' && c <= '9' ? c - '0'
                                     : c >= 'a' && c <= 'f' ? c - 'a' + 10
                                     : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                                            : -1);
    }
  }
};
constexpr HexTable kHex;

bool startsWith(const char* p, const char* end, std::string_view word) {
  return static_cast<size_t>(end - p) >= word.size() && std::memcmp(p, word.data(), word.size()) == 0;
}

// The line at `p` if it is written the way traces almost always are, `0x<hex> READ|WRITE
// <decimal>\n` with single spaces and the address within `capacity` (0: any): true, the record
// and the start of the next line. Anything else (comments, blanks, other spellings, errors):
// false, and the general reader takes the line. One pass over the characters, no line search.
// `Checked` false: the caller knows at least kUncheckedRoom bytes follow `p`, more than the
// longest line this accepts reads (0x, 17 hex digits, " WRITE ", 19 digits and one more), so
// the end need not be tested at each character; the result is the same either way.
constexpr ptrdiff_t kUncheckedRoom = 64;

template <bool Checked>
bool parseCommonLine(const char* p, const char* end, uint64_t capacity, TraceRecord& out, const char*& next) {
  if (Checked && end - p < 2) return false;
  if (p[0] != '0' || (p[1] | 0x20) != 'x') return false;
  p += 2;
  uint64_t addr = 0;
  const char* digits = p;
  for (int d; (!Checked || p < end) && p - digits <= 16 && (d = kHex.value[static_cast<uint8_t>(*p)]) >= 0; ++p) {
    addr = addr << 4 | static_cast<uint64_t>(d);
  }
  if (p == digits || p - digits > 16 || (Checked && p == end) || *p != ' ') return false;
  ++p;
  bool isWrite;
  if (Checked ? startsWith(p, end, "READ ") : std::memcmp(p, "READ ", 5) == 0) {
    isWrite = false;
    p += 5;
  } else if (Checked ? startsWith(p, end, "WRITE ") : std::memcmp(p, "WRITE ", 6) == 0) {
    isWrite = true;
    p += 6;
  } else {
    return false;
  }
  uint64_t cycle = 0;
  digits = p;
  for (; (!Checked || p < end) && static_cast<unsigned>(*p - '0') <= 9 && p - digits < 19; ++p) {
    cycle = cycle * 10 + static_cast<uint64_t>(*p - '0');
  }
  if (p == digits || ((!Checked || p < end) && *p != '\n') || (capacity != 0 && addr >= capacity)) return false;
  out = TraceRecord{addr, cycle, isWrite};
  next = !Checked || p < end ? p + 1 : end;
  return true;
}

// The operations DRAMsim3's reader knows (common.cc); it reads anything else as a read, which
// here is an error instead.
int operationOf(std::string_view op) {
  if (op == "READ" || op == "read" || op == "P_MEM_RD" || op == "P_FETCH") return 0;
  if (op == "WRITE" || op == "write" || op == "P_MEM_WR" || op == "BOFF") return 1;
  return -1;
}

}  // namespace

bool TraceReader::next(TraceRecord& out) {
  if (end_ - p_ >= kUncheckedRoom ? parseCommonLine<false>(p_, end_, capacity_, out, p_)
                                  : p_ < end_ && parseCommonLine<true>(p_, end_, capacity_, out, p_)) {
    ++line_;
    return true;
  }
  while (p_ < end_) {
    ++line_;
    const char* eol = static_cast<const char*>(memchr(p_, '\n', static_cast<size_t>(end_ - p_)));
    if (eol == nullptr) eol = end_;
    const std::string_view line(p_, static_cast<size_t>(eol - p_));
    const char* q = p_;
    p_ = eol + 1;
    while (q < eol && isBlank(*q)) ++q;
    if (q == eol || *q == '#') continue;
    const auto bad = [&](const std::string& what) {
      std::string shown(line.substr(0, 80));
      while (!shown.empty() && shown.back() == '\r') shown.pop_back();
      return DramInputError(fmt::format("{}:{}: '{}': {} (a line is '0x<address> READ|WRITE <cycle>')", file_, line_,
                                        shown, what));
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
    if (capacity_ != 0 && addr >= capacity_) {
      throw bad(fmt::format("address {:#x} is beyond the device ({} bytes: addresses below {:#x})", addr, capacity_,
                            capacity_));
    }
    out = TraceRecord{addr, cycle, op == 1};
    return true;
  }
  return false;
}

std::vector<TraceRecord> parseTrace(std::string_view text, const std::string& fileName, uint64_t capacityBytes) {
  std::vector<TraceRecord> records;
  records.reserve(static_cast<size_t>(std::count(text.begin(), text.end(), '\n')) + 1);
  TraceReader reader(text, fileName, capacityBytes);
  for (TraceRecord r; reader.next(r);) records.push_back(r);
  return records;
}

namespace {

// A trace's text for as long as this lives: a regular file mapped read-only; anything else that
// reads (a pipe, `<(zcat trace.gz)`, /dev/stdin) read whole into memory.
class TraceText {
 public:
  explicit TraceText(const std::string& path) {
    fd_ = ::open(path.c_str(), O_RDONLY);
    if (fd_ < 0) throw DramInputError(fmt::format("{}: cannot open the trace: {}", path, std::strerror(errno)));
    struct stat st{};
    if (::fstat(fd_, &st) != 0) fail(path, "cannot open the trace");
    if (S_ISDIR(st.st_mode)) fail(path, "cannot open the trace: it is a directory", false);
    if (!S_ISREG(st.st_mode)) {
      readAll(path);
      return;
    }
    size_ = static_cast<size_t>(st.st_size);
    if (size_ > 0) {
      void* m = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd_, 0);
      if (m == MAP_FAILED) fail(path, "cannot read the trace");
      data_ = static_cast<const char*>(m);
      ::madvise(m, size_, MADV_SEQUENTIAL);
    }
  }
  ~TraceText() {
    if (data_ != nullptr) ::munmap(const_cast<char*>(data_), size_);
    ::close(fd_);
  }
  TraceText(const TraceText&) = delete;
  TraceText& operator=(const TraceText&) = delete;
  std::string_view text() const {
    if (data_ == nullptr) return read_;
    return {data_, size_};
  }

 private:
  [[noreturn]] void fail(const std::string& path, const char* what, bool withErrno = true) {
    const std::string reason = withErrno ? fmt::format(": {}", std::strerror(errno)) : "";
    ::close(fd_);
    throw DramInputError(fmt::format("{}: {}{}", path, what, reason));
  }
  void readAll(const std::string& path) {
    char buffer[1 << 16];
    for (;;) {
      const ssize_t n = ::read(fd_, buffer, sizeof buffer);
      if (n == 0) return;
      if (n < 0) {
        if (errno == EINTR) continue;
        fail(path, "cannot read the trace");
      }
      read_.append(buffer, static_cast<size_t>(n));
    }
  }

  int fd_ = -1;
  const char* data_ = nullptr;  // the mapping, or null
  size_t size_ = 0;
  std::string read_;  // the text of a file that is not mapped
};

// DRAMsim3's driver: in order, one transaction a cycle, none before the cycle after its own.
template <typename Next>
ReplayResult replay(const DeviceSpec& spec, Next next, const CommandSink& commands) {
  MemorySystem memory(spec);
  memory.recordCompletions(false);  // the statistics are all a replay reports
  memory.recordCommands(static_cast<bool>(commands));
  std::vector<CommandRecord> block;
  const auto handOver = [&] {  // those of the cycles simulated so far, every channel's
    block.clear();
    memory.takeCommands(block);
    if (!block.empty()) commands(block);
  };
  constexpr uint64_t kBlockTransactions = 4096;
  ReplayResult result;
  uint64_t lastEntry = 0, n = 0;
  for (TraceRecord r; next(r); ++n) {
    const uint64_t from = std::max(r.cycle + 1, n == 0 ? 0 : lastEntry + 1);
    lastEntry = memory.offer(Transaction{n, r.addr, r.isWrite}, from);
    if (commands && n % kBlockTransactions == kBlockTransactions - 1) handOver();
  }
  result.dramCycles = memory.drain();
  memory.advanceTo(result.dramCycles);
  if (commands) handOver();
  result.device = spec.name;
  result.tCKns = spec.timing.tCK();
  result.requestBytes = spec.org.requestBytes();
  result.transactions = n;
  result.stats = memory.stats();
  result.energy = computeEnergy(spec, result.stats);
  return result;
}

}  // namespace

std::vector<TraceRecord> readTrace(const std::string& path, uint64_t capacityBytes) {
  const TraceText file(path);
  return parseTrace(file.text(), path, capacityBytes);
}

ReplayResult replayTrace(const DeviceSpec& spec, const std::vector<TraceRecord>& trace, const CommandSink& commands) {
  size_t i = 0;
  return replay(
      spec,
      [&](TraceRecord& r) {
        if (i == trace.size()) return false;
        r = trace[i++];
        return true;
      },
      commands);
}

std::string dramsim3CommandLine(const CommandRecord& c, const AddressMapping& mapping) {
  static constexpr const char* kNames[] = {"activate", "precharge", "read",   "write",
                                           "read_p",   "write_p",   "refresh", "refresh_bank"};
  // DRAMsim3: std::left << std::setw(18) << clk << " " and then
  // "{:<20} {:>3} {:>3} {:>3} {:>3} {:>#8x} {:>#8x}" of the command.
  constexpr const char* kLine = "{:<18} {:<20} {:>3} {:>3} {:>3} {:>3} {:>#8x} {:>#8x}";
  if (c.forRefresh) {
    // DRAMsim3's refresh commands carry no address: channel, row and column -1, and an all-bank
    // refresh's bank group and bank too.
    const bool rank = c.kind == CommandRecord::kRefresh;
    return fmt::format(kLine, c.cycle, kNames[c.kind], -1, c.rank, rank ? -1 : int64_t{c.bankGroup},
                       rank ? -1 : int64_t{c.bank}, -1, -1);
  }
  const Coordinates at = mapping.decode(c.addr);
  return fmt::format(kLine, c.cycle, kNames[c.kind], c.channel, c.rank, c.bankGroup, c.bank, at.row, at.column);
}

namespace {

// A TraceReader on a thread of its own, a few blocks of records ahead of the replay, which takes
// them in file order: reading and parsing (an eighth of a replay of the accelerator's traces)
// run beside the model on a second core. A DramInputError reaches the replay where the line
// that raised it comes, after every record before it, as from a reader on the same thread.
class ReaderThread {
 public:
  ReaderThread(std::string_view text, const std::string& path, uint64_t capacityBytes)
      : reader_(text, path, capacityBytes), thread_([this] { produce(); }) {}
  ~ReaderThread() {
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    changed_.notify_all();
    thread_.join();
  }
  ReaderThread(const ReaderThread&) = delete;
  ReaderThread& operator=(const ReaderThread&) = delete;

  bool next(TraceRecord& r) {
    while (at_ == taken_.records.size()) {
      if (taken_.error) std::rethrow_exception(taken_.error);
      if (taken_.last) return false;
      take();
    }
    r = taken_.records[at_++];
    return true;
  }

 private:
  struct Block {
    std::vector<TraceRecord> records;
    std::exception_ptr error;  // raised after the records
    bool last = false;         // nothing follows
  };
  static constexpr size_t kBlockRecords = 8192, kBlocksAhead = 4;

  void produce() {
    for (bool more = true; more;) {
      Block b;
      try {
        b.records.reserve(kBlockRecords);
        TraceRecord r;
        while (b.records.size() < kBlockRecords && (more = reader_.next(r))) b.records.push_back(r);
      } catch (...) {
        b.error = std::current_exception();
        more = false;
      }
      b.last = !more;
      std::unique_lock<std::mutex> lock(mutex_);
      changed_.wait(lock, [&] { return stop_ || ready_.size() < kBlocksAhead; });
      if (stop_) return;
      ready_.push_back(std::move(b));
      changed_.notify_all();
    }
  }

  void take() {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [&] { return !ready_.empty(); });
    taken_ = std::move(ready_.front());
    ready_.erase(ready_.begin());
    at_ = 0;
    changed_.notify_all();
  }

  TraceReader reader_;  // the producer's alone
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<Block> ready_;  // guarded by mutex_
  bool stop_ = false;         // guarded by mutex_
  Block taken_;               // the consumer's alone
  size_t at_ = 0;
  std::thread thread_;  // last: starts once the members above exist
};

// Below this a second thread's start costs more than the parsing it takes over.
constexpr size_t kThreadedReadBytes = size_t{1} << 20;

}  // namespace

ReplayResult replayTraceFile(const DeviceSpec& spec, const std::string& path, const CommandSink& commands) {
  const TraceText file(path);
  std::optional<ReaderThread> threaded;
  if (file.text().size() >= kThreadedReadBytes && std::thread::hardware_concurrency() > 1) {
    try {
      threaded.emplace(file.text(), path, spec.org.capacityBytes());
    } catch (const std::system_error&) {  // no thread to be had: read on this one
    }
  }
  if (threaded) return replay(spec, [&](TraceRecord& r) { return threaded->next(r); }, commands);
  TraceReader reader(file.text(), path, spec.org.capacityBytes());
  return replay(spec, [&](TraceRecord& r) { return reader.next(r); }, commands);
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
  j["average_write_latency_cycles"] = s.averageWriteLatency();
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
  if (s.readsDone > 0) {
    t += fmt::format("read latency      {:.2f} cycles on average\n", s.averageReadLatency());
  } else {
    t += "read latency      none (no read in the trace)\n";
  }
  if (s.writeCommands > 0) {
    t += fmt::format("write latency     {:.2f} cycles on average (entry to WR command)\n", s.averageWriteLatency());
  } else if (s.writes > 0) {
    // A posted write is done when the controller takes it; none was written by the last one.
    t += "write latency     none: every write was still queued when the last transaction completed\n";
  } else {
    t += "write latency     none (no write in the trace)\n";
  }
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
