// The JEDEC timing of a device as "command X at a bank makes command Y wait N cycles", by scope:
// the same bank, every bank of its bank group, every bank of its rank, the other ranks. The
// relations are the standard ones (and DRAMsim3's, timing.cc): e.g. RD -> WR on the same rank
// waits RL + burst - WL + tRTRS (the bus turns around), WR -> RD waits WL + burst + tWTR_S/L,
// ACT -> ACT waits tRRD_S/L, tRC on the same bank.
//
// Scopes nest (a bank is in its group, its group in its rank), and a constraint stored for a
// scope applies to everything inside it; that is exact because a wider scope never asks for
// more than a narrower one (tCCD_L >= tCCD_S and the like, checked by validateDevice()).
#pragma once

#include <cstdint>
#include <initializer_list>

#include "weft/sim/dram/device.h"

namespace weft::sim::dram {

// What a bank may be asked to do next (the ready times the controller keeps).
enum Target : uint8_t { kTAct, kTPre, kTRd, kTWr, kTRef, kTRefb, kTargets };
// What the controller issues.
enum CommandKind : uint8_t { kAct, kPre, kRd, kWr, kRda, kWra, kRef, kRefb, kKinds };

inline bool isColumn(CommandKind k) { return k == kRd || k == kWr || k == kRda || k == kWra; }

struct Delay {
  Target target;
  uint32_t cycles;
};

// At most one delay per Target: a fixed array, read in the controller's innermost loop.
struct Delays {
  Delays() = default;
  Delays(std::initializer_list<Delay> list) {
    for (const Delay& d : list) items[n++] = d;
  }
  const Delay* begin() const { return items; }
  const Delay* end() const { return items + n; }
  bool empty() const { return n == 0; }

  Delay items[kTargets] = {};
  uint32_t n = 0;
};

struct TimingTable {
  explicit TimingTable(const DeviceSpec& spec);

  Delays sameBank[kKinds], sameGroup[kKinds], sameRank[kKinds], otherRanks[kKinds];
  bool groups = true;      // false: one bank group a rank, its delays folded into sameRank
  uint32_t readDelay = 0;  // RD to its last data beat
  uint32_t tFAW = 0, t32AW = 0;
};

}  // namespace weft::sim::dram
