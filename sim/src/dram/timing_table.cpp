#include "timing_table.h"

#include <algorithm>

namespace weft::sim::dram {

namespace {
uint32_t atLeast0(int64_t v) { return v < 0 ? 0 : static_cast<uint32_t>(v); }
}  // namespace

TimingTable::TimingTable(const DeviceSpec& spec) {
  const Timing& t = spec.timing;
  const Organization& o = spec.org;
  const int64_t burst = t.burstCycles, RL = t.readLatency(), WL = t.writeLatency();
  const int64_t readDelay = RL + burst, writeDelay = WL + burst;
  // Without bank groups every bank is "another group": the _S values apply throughout.
  const bool groups = o.bankGroups > 1;
  const int64_t ccdL = groups ? t.tCCD_L : t.tCCD_S, wtrL = groups ? t.tWTR_L : t.tWTR_S;
  const int64_t rrdL = groups ? t.tRRD_L : t.tRRD_S;
  // DDR parts post the column command AL early; GDDR and HBM give tRCDRD/tRCDWR as such.
  const bool postedCas = !isGddr(o.protocol) && !isHbm(o.protocol);
  const int64_t actToRd = int64_t{t.tRCDRD} - (postedCas ? t.AL : 0);
  const int64_t actToWr = int64_t{t.tRCDWR} - (postedCas ? t.AL : 0);

  const uint32_t rdToRdL = atLeast0(std::max(burst, ccdL)), rdToRdS = atLeast0(std::max<int64_t>(burst, t.tCCD_S));
  const uint32_t rdToRdO = atLeast0(burst + t.tRTRS);
  const uint32_t rdToWr = atLeast0(RL + burst - WL + t.tRTRS);  // the same across ranks
  const uint32_t wrToRdL = atLeast0(writeDelay + wtrL), wrToRdS = atLeast0(writeDelay + t.tWTR_S);
  const uint32_t wrToRdO = atLeast0(writeDelay + burst + t.tRTRS - readDelay);
  const uint32_t wrToWrL = atLeast0(std::max(burst, ccdL)), wrToWrS = atLeast0(std::max<int64_t>(burst, t.tCCD_S));
  const uint32_t wrToWrO = atLeast0(burst);
  const uint32_t rdToPre = atLeast0(int64_t{t.AL} + t.tRTP);
  const uint32_t wrToPre = atLeast0(WL + burst + t.tWR);
  const uint32_t rdaToAct = atLeast0(int64_t{t.AL} + burst + t.tRTP + t.tRP);  // DRAMsim3's reading
  const uint32_t rdaToRef = rdToPre + t.tRP;
  const uint32_t wraToAct = wrToPre + t.tRP;
  const bool ppd = t.tPPD > 0 && (isGddr(o.protocol) || o.protocol == Protocol::kLPDDR4 ||
                                  o.protocol == Protocol::kLPDDR5);

  for (const CommandKind k : {kRd, kRda}) {
    sameGroup[k] = {{kTRd, rdToRdL}, {kTWr, rdToWr}};
    sameRank[k] = {{kTRd, rdToRdS}, {kTWr, rdToWr}};
    otherRanks[k] = {{kTRd, rdToRdO}, {kTWr, rdToWr}};
  }
  for (const CommandKind k : {kWr, kWra}) {
    sameGroup[k] = {{kTRd, wrToRdL}, {kTWr, wrToWrL}};
    sameRank[k] = {{kTRd, wrToRdS}, {kTWr, wrToWrS}};
    otherRanks[k] = {{kTRd, wrToRdO}, {kTWr, wrToWrO}};
  }
  sameBank[kRd] = {{kTPre, rdToPre}};
  sameBank[kWr] = {{kTPre, wrToPre}};
  sameBank[kRda] = {{kTAct, rdaToAct}, {kTRef, rdaToRef}, {kTRefb, rdaToRef}};
  sameBank[kWra] = {{kTAct, wraToAct}, {kTRef, wraToAct}, {kTRefb, wraToAct}};

  sameBank[kAct] = {{kTAct, t.tRC}, {kTRd, atLeast0(actToRd)}, {kTWr, atLeast0(actToWr)}, {kTPre, t.tRAS}};
  sameGroup[kAct] = {{kTAct, atLeast0(rrdL)}};
  sameRank[kAct] = {{kTAct, t.tRRD_S}, {kTRefb, t.tRC}};

  sameBank[kPre] = {{kTAct, t.tRP}, {kTRef, t.tRP}, {kTRefb, t.tRP}};
  if (ppd) sameRank[kPre] = {{kTPre, t.tPPD}};

  sameRank[kRef] = {{kTAct, t.tRFC}, {kTRef, t.tRFC}, {kTRefb, t.tRFC}};

  sameBank[kRefb] = {{kTAct, t.tRFCb}, {kTRefb, t.tRFCb}};
  sameRank[kRefb] = {{kTAct, t.tRRD_S}, {kTRefb, t.tRRD_S}};

  // One bank group: the group is the rank, so its delays are the rank's (the larger of the two
  // for each Target) and the controller keeps no group ready times (groups stays false).
  this->groups = groups;
  if (!groups) {
    for (int k = 0; k < kKinds; ++k) {
      for (const Delay& g : sameGroup[k]) {
        Delays& r = sameRank[k];
        Delay* same = nullptr;
        for (uint32_t i = 0; i < r.n; ++i) {
          if (r.items[i].target == g.target) same = &r.items[i];
        }
        if (same != nullptr) {
          same->cycles = std::max(same->cycles, g.cycles);
        } else {
          r.items[r.n++] = g;
        }
      }
      sameGroup[k] = {};
    }
  }

  this->readDelay = atLeast0(readDelay);
  tFAW = t.tFAW;
  t32AW = isGddr(o.protocol) ? t.t32AW : 0;
}

}  // namespace weft::sim::dram
