// A DRAM device and its controller, as the cycle-level model needs them: organization, JEDEC
// timing in DRAM clock cycles, IDD currents for the energy, and the controller's policies.
// Built from a named preset (presets.cpp cites each source) or read from a DRAMsim3 `.ini`
// file (dramsim3_ini.h); `loadDevice` takes either.
//
// Timing parameters are in cycles of the DRAM clock (period tCK). Derived relations follow the
// JEDEC standards and DRAMsim3's reading of them: read latency RL = AL + CL, write latency
// WL = AL + CWL, a burst occupies the data bus `burstCycles` (BL/2 for DDR parts, fewer for
// GDDR's faster data clock), tRC >= tRAS + tRP.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "weft/sim/dram/rational.h"

namespace weft::sim::dram {

enum class Protocol { kDDR3, kDDR4, kGDDR5, kGDDR5X, kGDDR6, kLPDDR, kLPDDR3, kLPDDR4, kLPDDR5, kHBM, kHBM2, kHMC };
const char* protocolName(Protocol p);
bool isGddr(Protocol p);
bool isHbm(Protocol p);

struct Organization {
  Protocol protocol = Protocol::kDDR4;
  uint32_t channels = 1;
  uint32_t ranks = 1;          // per channel
  uint32_t bankGroups = 1;     // per rank; 1 when the part has none (or they are disabled)
  uint32_t banksPerGroup = 8;
  uint32_t rows = 65536;       // per bank
  // Columns per row, each deviceWidth bits (DRAMsim3's convention: GDDR's and HBM's columns
  // already multiplied by their prefetch, so a row holds columns * deviceWidth / 8 bytes).
  uint32_t columns = 1024;
  uint32_t deviceWidth = 16;   // bits per device
  uint32_t busWidth = 64;      // bits per channel
  uint32_t burstLength = 8;    // beats per column access

  uint32_t banks() const { return bankGroups * banksPerGroup; }  // per rank
  uint32_t devicesPerRank() const { return busWidth / deviceWidth; }
  // Bytes one transaction moves: one burst across the channel.
  uint32_t requestBytes() const { return busWidth / 8 * burstLength; }
  uint64_t rowBytesPerRank() const { return uint64_t{columns} * deviceWidth / 8 * devicesPerRank(); }
  uint64_t rankBytes() const { return rowBytesPerRank() * rows * banks(); }
  uint64_t channelBytes() const { return rankBytes() * ranks; }
  uint64_t capacityBytes() const { return channelBytes() * channels; }
};

// In DRAM cycles unless said otherwise.
struct Timing {
  Rational tCKns = Rational::of(1, 1);  // clock period, ns, exact
  uint32_t burstCycles = 4;             // data-bus cycles of one burst
  uint32_t AL = 0, CL = 22, CWL = 16;
  uint32_t tRCDRD = 22, tRCDWR = 22;    // ACT to RD / to WR (the same tRCD on DDR and LPDDR parts)
  uint32_t tRP = 22, tRAS = 52, tRC = 74;
  uint32_t tRRD_S = 4, tRRD_L = 4;      // ACT to ACT, other / same bank group
  uint32_t tCCD_S = 4, tCCD_L = 4;      // column to column, other / same bank group
  uint32_t tFAW = 0;                    // four-activate window (0: none)
  uint32_t t32AW = 0;                   // GDDR's 32-activate window (0: none)
  uint32_t tWR = 15, tWTR_S = 4, tWTR_L = 4, tRTP = 8;
  uint32_t tRTRS = 1;                   // rank-to-rank data-bus switch
  uint32_t tRFC = 350, tREFI = 7800;    // all-bank refresh
  uint32_t tRFCb = 0, tREFIb = 0;       // per-bank refresh (0: unused)
  uint32_t tPPD = 0;                    // PRE to PRE, other banks (LPDDR4, GDDR)

  uint32_t readLatency() const { return AL + CL; }
  uint32_t writeLatency() const { return AL + CWL; }
  uint32_t readDelay() const { return readLatency() + burstCycles; }   // RD to last data
  uint32_t writeDelay() const { return writeLatency() + burstCycles; } // WR to last data
  double tCK() const { return tCKns.toDouble(); }
};

// IDD currents (mA) of one device at one supply voltage (V). DRAMsim3's files give one rail
// (VDD); LPDDR4/5 presets give VDD1 and VDD2 as DRAMPower does, and energy sums the rails.
struct PowerRail {
  std::string name = "VDD";
  double vdd = 1.2;
  double idd0 = 0, idd2n = 0, idd2p = 0, idd3n = 0, idd3p = 0;
  double idd4r = 0, idd4w = 0, idd5ab = 0, idd5pb = 0, idd6 = 0;
};

enum class PagePolicy { kOpen, kClosed };
enum class QueueStructure { kPerBank, kPerRank };
enum class RefreshPolicy { kRankStaggered, kRankSimultaneous, kBankStaggered };

struct ControllerPolicy {
  std::string addressMapping = "rochrababgco";  // see address_mapping.h
  PagePolicy pagePolicy = PagePolicy::kOpen;
  QueueStructure queueStructure = QueueStructure::kPerBank;
  RefreshPolicy refreshPolicy = RefreshPolicy::kRankStaggered;
  uint32_t transactionQueueSize = 32;  // the read queue's and the write queue's entries (each)
  uint32_t commandQueueSize = 8;       // per bank (or per rank)
  bool unifiedQueue = false;           // one transaction queue for reads and writes, no draining
  // Write draining: the controller switches to writes when the write queue is full (the high
  // watermark, 0 = the queue's size), or when it holds more than the low watermark and no
  // command is waiting; it then drains the writes it holds at that moment.
  uint32_t writeHighWatermark = 0;
  uint32_t writeLowWatermark = 8;
  // A row held open for pending hits yields to a waiting miss after this many column accesses.
  uint32_t rowHitCap = 4;
  // HBM: a row command and a column command may issue in the same cycle (separate buses).
  bool dualCommandIssue = false;

  uint32_t writeHigh() const { return writeHighWatermark == 0 ? transactionQueueSize : writeHighWatermark; }
};

struct DeviceSpec {
  std::string name;    // preset name or file name
  std::string source;  // where the numbers come from
  Organization org;
  Timing timing;
  std::vector<PowerRail> power;
  ControllerPolicy controller;
  // Not errors, worth a user's eye: fields absent from a file that took DRAMsim3's default,
  // structure DRAMsim3 adapts silently (e.g. fewer ranks than the channel size asks for).
  std::vector<std::string> notes;

  // Every channel's data bus busy: a transaction a burst per channel, in GB/s.
  double peakGBps() const { return double(org.channels) * org.requestBytes() / (timing.burstCycles * timing.tCK()); }
};

// The JEDEC relations and the model's structural needs (powers of two for the address bits,
// a mapping naming every field once, tRC >= tRAS + tRP, tREFI > tRFC, ...). Throws
// DramInputError naming `where`, the field and the rule.
void validateDevice(const DeviceSpec& spec, const std::string& where);

// Preset names, lower case, e.g. "ddr4-3200", "lpddr4-3200", "hbm2".
std::vector<std::string> presetNames();
// The preset (case-insensitive name), or DramInputError listing the accepted names.
DeviceSpec preset(const std::string& name);
// A preset name, else a path to a DRAMsim3 .ini file. DramInputError on anything else.
DeviceSpec loadDevice(const std::string& nameOrPath);

}  // namespace weft::sim::dram
