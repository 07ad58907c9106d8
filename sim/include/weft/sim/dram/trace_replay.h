// DRAMsim3's trace format and its trace driver, so that a trace runs the same way on both
// simulators. A line is `<address> <operation> <cycle>`: the address in hex (`0x` optional),
// READ or WRITE (DRAMsim3's other spellings P_MEM_RD, P_MEM_WR, BOFF, read, write too), the
// cycle in decimal DRAM cycles. Blank lines and lines starting with `#` are skipped.
//
// Replay as DRAMsim3's TraceBasedCPU does: in file order, one transaction a cycle; the
// transaction of a line with cycle t is offered from cycle t on and enters the controller the
// first cycle after that its queue has room (DRAMsim3's driver hands it over after the memory's
// clock tick, so it enters at t + 1 at the earliest). Latency counts from that entry.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "weft/sim/dram/address_mapping.h"
#include "weft/sim/dram/device.h"
#include "weft/sim/dram/memory_system.h"
#include "weft/sim/dram/stats.h"

namespace weft::sim::dram {

struct TraceRecord {
  uint64_t addr = 0;
  uint64_t cycle = 0;
  bool isWrite = false;
};

// The records of a trace text one at a time. next() throws DramInputError naming the file and
// line and what is wrong with it; `capacityBytes` (0: no check) rejects addresses beyond the
// device.
class TraceReader {
 public:
  TraceReader(std::string_view text, std::string fileName, uint64_t capacityBytes = 0)
      : p_(text.data()), end_(text.data() + text.size()), file_(std::move(fileName)), capacity_(capacityBytes) {}
  bool next(TraceRecord& out);

 private:
  const char* p_;
  const char* end_;
  std::string file_;
  uint64_t capacity_;
  uint64_t line_ = 0;
};

std::vector<TraceRecord> parseTrace(std::string_view text, const std::string& fileName, uint64_t capacityBytes = 0);
std::vector<TraceRecord> readTrace(const std::string& path, uint64_t capacityBytes = 0);

struct ReplayResult {
  std::string device;
  double tCKns = 0;
  uint32_t requestBytes = 0;
  uint64_t transactions = 0;
  uint64_t dramCycles = 0;  // the cycle at which the last transaction completed
  DramStats stats;          // background counted up to dramCycles
  DramEnergy energy;

  // Bytes moved per second while the trace ran, in GB/s (10^9 bytes), as DRAMsim3's
  // average_bandwidth: transactions * request bytes / (dramCycles * tCK).
  double bandwidthGBps() const;
  nlohmann::json toJson() const;
  std::string toText() const;
};

// The controllers' commands as a replay issues them, handed over in blocks, every block's in
// cycle order (channel order within a cycle) and after the block before it. Recording them
// changes no figure of the replay.
using CommandSink = std::function<void(const std::vector<CommandRecord>&)>;

ReplayResult replayTrace(const DeviceSpec& spec, const std::vector<TraceRecord>& trace,
                         const CommandSink& commands = {});
// The same from a file, read as it goes (mapped, not copied): a bad line stops the replay with
// its DramInputError, after whatever came before it ran.
ReplayResult replayTraceFile(const DeviceSpec& spec, const std::string& path, const CommandSink& commands = {});

// A command as a line of DRAMsim3's command trace (its CMD_TRACE build, `ch_<n>cmd.trace`):
// the cycle, the command (read, read_p, write, write_p, activate, precharge, refresh_bank,
// refresh), channel, rank, bank group, bank, and the row and column of the command's address in
// hex, in DRAMsim3's columns. A refresh's commands have no address: row and column 0.
std::string dramsim3CommandLine(const CommandRecord& c, const AddressMapping& mapping);

}  // namespace weft::sim::dram
