#include "weft/sim/dram/device.h"

#include <fmt/format.h>

#include <sys/stat.h>

#include <cctype>

#include "weft/sim/dram/address_mapping.h"
#include "weft/sim/dram/dramsim3_ini.h"
#include "weft/sim/dram/errors.h"

namespace weft::sim::dram {

const char* protocolName(Protocol p) {
  switch (p) {
    case Protocol::kDDR3: return "DDR3";
    case Protocol::kDDR4: return "DDR4";
    case Protocol::kGDDR5: return "GDDR5";
    case Protocol::kGDDR5X: return "GDDR5X";
    case Protocol::kGDDR6: return "GDDR6";
    case Protocol::kLPDDR: return "LPDDR";
    case Protocol::kLPDDR3: return "LPDDR3";
    case Protocol::kLPDDR4: return "LPDDR4";
    case Protocol::kLPDDR5: return "LPDDR5";
    case Protocol::kHBM: return "HBM";
    case Protocol::kHBM2: return "HBM2";
    case Protocol::kHMC: return "HMC";
  }
  return "?";
}

bool isGddr(Protocol p) { return p == Protocol::kGDDR5 || p == Protocol::kGDDR5X || p == Protocol::kGDDR6; }
bool isHbm(Protocol p) { return p == Protocol::kHBM || p == Protocol::kHBM2; }

namespace {

void require(bool ok, const std::string& where, const std::string& rule) {
  if (!ok) throw DramInputError(fmt::format("{}: {}", where, rule));
}

}  // namespace

void validateDevice(const DeviceSpec& spec, const std::string& where) {
  const Organization& o = spec.org;
  const Timing& t = spec.timing;
  const ControllerPolicy& c = spec.controller;
  require(o.deviceWidth > 0 && o.busWidth >= o.deviceWidth && o.busWidth % o.deviceWidth == 0, where,
          fmt::format("bus_width = {} must be a whole number of device_width = {} devices", o.busWidth, o.deviceWidth));
  require(o.burstLength > 0 && o.columns >= o.burstLength, where,
          fmt::format("columns = {} must hold at least one burst of BL = {}", o.columns, o.burstLength));
  require(o.ranks >= 1 && o.channels >= 1, where, "a device has at least one channel and one rank");
  try {
    AddressMapping(c.addressMapping, o);  // powers of two, every field once
  } catch (const DramInputError& e) {
    throw DramInputError(fmt::format("{}: {}", where, e.what()));
  }
  require(!t.tCKns.isZero(), where, "tCK must be positive");
  require(t.burstCycles >= 1, where, "a burst occupies the data bus at least one cycle");
  require(t.CL >= 1 && t.CWL >= 1, where, fmt::format("CL = {} and CWL = {} must be at least 1", t.CL, t.CWL));
  require(t.tRCDRD >= 1 && t.tRCDWR >= 1, where, "tRCD (tRCDRD, tRCDWR) must be at least 1");
  require(t.AL <= t.tRCDRD && t.AL <= t.tRCDWR, where,
          fmt::format("AL = {} exceeds tRCD: a posted column command would precede its row (JEDEC: AL <= tRCD)", t.AL));
  require(t.tRP >= 1 && t.tRAS >= 1, where, fmt::format("tRP = {} and tRAS = {} must be at least 1", t.tRP, t.tRAS));
  require(t.tRC >= t.tRAS + t.tRP, where,
          fmt::format("tRC = {} < tRAS + tRP = {} + {}: a bank cannot activate again before its row is restored and "
                      "precharged (JEDEC: tRC >= tRAS + tRP)",
                      t.tRC, t.tRAS, t.tRP));
  require(t.tRFC >= 1, where, "tRFC must be at least 1");
  require(t.tREFI > t.tRFC, where,
          fmt::format("tREFI = {} <= tRFC = {}: refresh would never finish (JEDEC: tREFI > tRFC)", t.tREFI, t.tRFC));
  require(t.tREFI / o.ranks >= 1, where, "tREFI is shorter than one cycle per rank");
  if (o.bankGroups > 1) {
    const auto order = [&](uint32_t l, uint32_t s, const char* name) {
      require(l >= s, where,
              fmt::format("{}_L = {} < {}_S = {}: the same bank group cannot be faster than another (JEDEC)", name, l,
                          name, s));
    };
    order(t.tCCD_L, t.tCCD_S, "tCCD");
    order(t.tRRD_L, t.tRRD_S, "tRRD");
    order(t.tWTR_L, t.tWTR_S, "tWTR");
  }
  if (c.refreshPolicy == RefreshPolicy::kBankStaggered) {
    require(t.tRFCb >= 1 && t.tREFIb > t.tRFCb, where,
            fmt::format("per-bank refresh needs tREFIb = {} > tRFCb = {} >= 1", t.tREFIb, t.tRFCb));
  }
  require(!spec.power.empty(), where, "no supply rail: energy needs VDD and the IDD currents");
  for (const auto& r : spec.power) require(r.vdd > 0, where, fmt::format("{} must be positive", r.name));
  require(c.transactionQueueSize >= 1 && c.commandQueueSize >= 1, where, "queues hold at least one entry");
  require(c.writeHigh() <= c.transactionQueueSize && c.writeLowWatermark < c.writeHigh(), where,
          fmt::format("write watermarks: low {} < high {} <= the write queue's {} entries", c.writeLowWatermark,
                      c.writeHigh(), c.transactionQueueSize));
  require(c.rowHitCap >= 1, where, "the row-hit cap must be at least 1");
}

DeviceSpec loadDevice(const std::string& nameOrPath) {
  std::string lowered;
  for (const char ch : nameOrPath) lowered += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  std::string names;
  for (const auto& name : presetNames()) {
    if (name == lowered) return preset(name);
    names += (names.empty() ? "" : ", ") + name;
  }
  struct stat st{};
  if (::stat(nameOrPath.c_str(), &st) == 0 && S_ISREG(st.st_mode)) return readDramsim3Ini(nameOrPath);
  throw DramInputError(
      fmt::format("DRAM '{}': neither a preset ({}) nor a DRAMsim3 .ini file that exists", nameOrPath, names));
}

}  // namespace weft::sim::dram
