// DRAM timing: the single definition, used by the RTL harness (behind its TLM target) and by
// the cycle-approximate model. Parameters come from hw::HwConfig: DramBytesPerCycle (B/c,
// bandwidth shared by reads and writes), DramLatencyCycles (L) and DramBurstBytes (G).
//
// The timing rule. One channel serves requests one at a time, in the order they are
// presented; callers present requests in nondecreasing issue cycle (the RTL does so by
// construction, the approximate model by its event order). For a request of n bytes at
// address a, issued at cycle t:
//
//   bursts = floor((a + n - 1) / G) - floor(a / G) + 1      aligned G-byte bursts it touches
//   hold   = ceil(bursts * G / B)                            cycles it occupies the channel
//   start  = max(t, channelFree)                             it starts service
//   channelFree = start + hold                               the next request may start
//
//   read:  the first data beat may be delivered at start + L (the caller delivers the
//          following beats one per cycle, as the DRAM port of the RTL does);
//   write: t is the cycle the last data beat was accepted; acknowledged at start + L.
//
// So a stream of requests is bandwidth-bound at B bytes per cycle of whole bursts, a lone
// request costs L cycles, and a 16-byte request in a 32-byte burst costs the channel a whole
// burst. Every request costs O(1). The model performs the data access at once (functional),
// exactly like a TLM-2.0 loosely-timed target that annotates its delay.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "weft/hw/config.h"
#include "weft/sim/dram_port.h"
#include "weft/sim/dram_storage.h"

namespace weft::sim {

namespace dram {
struct DeviceSpec;
}
class CycleDram;
struct DramActivity;

struct DramTiming {
  uint32_t bytesPerCycle = 16;
  uint32_t latencyCycles = 100;
  uint32_t burstBytes = 32;
  // Dram other than "simple": the cycle-level device (cycle_dram.h) and what the crossing to it
  // needs; the rule above then gives way to cycle_dram.h's. nullptr: the rule above.
  std::shared_ptr<const dram::DeviceSpec> device;
  uint64_t clockMHz = 1000;
  uint32_t busBytes = 16;

  // Throws dram::DramInputError for a DRAM the configuration describes badly (dramDeviceFor).
  static DramTiming fromConfig(const hw::HwConfig& config);
};

// Traffic and channel occupancy, for reports and tests.
struct DramStats {
  uint64_t reads = 0, writes = 0;
  uint64_t bytesRead = 0, bytesWritten = 0;
  uint64_t busyCycles = 0;  // sum of `hold` over every request
};

class DramModel : public IDramPort {
 public:
  DramModel(DramStorage& storage, const DramTiming& timing);
  ~DramModel();

  // IDramPort: bounds-checked (std::out_of_range, changing neither data nor timing state),
  // performs the access, answers the cycle of the rule above.
  uint64_t read(uint64_t addr, uint8_t* dst, uint32_t bytes, uint64_t issueCycle) override;
  uint64_t write(uint64_t addr, const uint8_t* src, uint32_t bytes, uint64_t issueCycle) override;

  // The timing of a request without touching data (the approximate model moves its data
  // through the functional model). Same rule and same state as read()/write(). Inline: the
  // approximate model times every request of a program through them.
  uint64_t timeRead(uint64_t addr, uint32_t bytes, uint64_t issueCycle) {
    ++stats_.reads;
    stats_.bytesRead += bytes;
    if (cycle_) return serveCycle(false, addr, bytes, issueCycle);
    return serve(false, addr, bytes, issueCycle);
  }
  uint64_t timeWrite(uint64_t addr, uint32_t bytes, uint64_t issueCycle) {
    ++stats_.writes;
    stats_.bytesWritten += bytes;
    if (cycle_) return serveCycle(true, addr, bytes, issueCycle);
    return serve(true, addr, bytes, issueCycle);
  }

  // The end of a program (the interrupt rose in cycle t): a cycle-level DRAM writes the posted
  // writes it still holds (cycle_dram.h). Nothing for the simple pipe. Both backends call it
  // at the same point, so their DRAMs stay identical.
  void endProgram(uint64_t cycle);
  // The caller's cycle that is the cycle-level DRAM's time 0 (the RTL harness's model counts
  // its reset pulse, the approximate model does not): issue cycles and answers are shifted by
  // it, so both backends present the same DRAM cycles. No effect on the simple pipe.
  void setCycleOrigin(uint64_t cycle) { origin_ = cycle; }
  // The cycle-level DRAM, or nullptr (Dram "simple").
  CycleDram* cycleDram() { return cycle_.get(); }
  // Its statistics and energy so far; false (and nothing written) for the simple pipe.
  bool activity(DramActivity& out);

  // Cycles a request of `bytes` at `addr` holds the channel.
  uint64_t holdCycles(uint64_t addr, uint32_t bytes) const {
    const uint64_t g = timing_.burstBytes;
    const uint64_t last = addr + (bytes > 0 ? bytes : 1) - 1;
    // Bursts are a power of two (hw/spec/params.json): shifts, not divisions.
    const uint64_t bursts = burstShift_ >= 0 ? (last >> burstShift_) - (addr >> burstShift_) + 1 : last / g - addr / g + 1;
    if (bursts < holdByBursts_.size()) return holdByBursts_[bursts];
    return (bursts * g + timing_.bytesPerCycle - 1) / timing_.bytesPerCycle;
  }

  // Forgets the channel's occupancy (a new device time base) and the statistics.
  void reset();

  // Sees every request after it is timed: for timelines and for lining the RTL's requests up
  // against the approximate model's. Arguments: write?, address, bytes, issue cycle, answer.
  using Observer = std::function<void(bool, uint64_t, uint32_t, uint64_t, uint64_t)>;
  void setObserver(Observer observer) { observer_ = std::move(observer); }

  const DramTiming& timing() const { return timing_; }
  void setTiming(const DramTiming& timing);
  uint64_t channelFreeCycle() const { return channelFree_; }
  const DramStats& stats() const { return stats_; }
  DramStorage& storage() { return *storage_; }
  void setStorage(DramStorage& storage) { storage_ = &storage; }

 private:
  uint64_t serve(bool write, uint64_t addr, uint32_t bytes, uint64_t issueCycle) {
    const uint64_t hold = holdCycles(addr, bytes);
    const uint64_t start = issueCycle > channelFree_ ? issueCycle : channelFree_;
    channelFree_ = start + hold;
    stats_.busyCycles += hold;
    const uint64_t answer = start + timing_.latencyCycles;
    if (observer_) observer_(write, addr, bytes, issueCycle, answer);
    return answer;
  }

  uint64_t serveCycle(bool write, uint64_t addr, uint32_t bytes, uint64_t issueCycle);

  DramStorage* storage_;
  DramTiming timing_;
  std::unique_ptr<CycleDram> cycle_;
  uint64_t origin_ = 0;
  // hold for 0..N bursts, precomputed: the division is most of a request's cost otherwise.
  std::vector<uint64_t> holdByBursts_;
  int burstShift_ = -1;  // log2(burstBytes), or -1 if it is not a power of two
  uint64_t channelFree_ = 0;
  DramStats stats_;
  Observer observer_;
};

}  // namespace weft::sim
