// The named devices, each with its source. Timings are in cycles of the device's own clock as
// the source gives them (rounded up from ns by the source); where a source lacked a value, the
// comment says what stands in for it. sim/dram/README.md tabulates the same.
#include <fmt/format.h>

#include <cctype>

#include "weft/sim/dram/device.h"
#include "weft/sim/dram/errors.h"

namespace weft::sim::dram {

namespace {

PowerRail rail(const char* name, double vdd, double idd0, double idd2n, double idd2p, double idd3n, double idd3p,
               double idd4r, double idd4w, double idd5ab, double idd5pb, double idd6) {
  PowerRail r;
  r.name = name;
  r.vdd = vdd;
  r.idd0 = idd0;
  r.idd2n = idd2n;
  r.idd2p = idd2p;
  r.idd3n = idd3n;
  r.idd3p = idd3p;
  r.idd4r = idd4r;
  r.idd4w = idd4w;
  r.idd5ab = idd5ab;
  r.idd5pb = idd5pb;
  r.idd6 = idd6;
  return r;
}

// LPDDR4-3200 x16 currents per rail from DRAMSys' configs/memspec/JEDEC_8Gb_LPDDR4-3200_16bit.json
// (idd*1 on VDD1, idd*2 on VDD2; the refresh current is its idd5 burst value). The LPDDR4X and
// LPDDR5 presets reuse them at their own voltages: no open source gives their IDDs.
std::vector<PowerRail> lpddr4Rails(double vdd2) {
  return {rail("VDD1", 1.8, 3.5, 2.0, 1.2, 2.25, 1.2, 2.25, 2.25, 10.0, 2.5, 0.3),
          rail("VDD2", vdd2, 45.0, 27.0, 3.0, 30.0, 9.0, 275.0, 210.0, 90.0, 30.0, 0.5)};
}

// JESD79-4 DDR4-3200AA (22-22-22). Organization, cycles and IDD currents are those of DRAMsim3's
// configs/DDR4_8Gb_x16_3200.ini (8 Gb x16 parts, Micron MT40A512M16): 4 devices make the 64-bit
// channel, 2 ranks of 4 GiB. tCK is 0.625 ns exactly (the file rounds it to 0.63). The address
// mapping interleaves the two bank groups every 64 bytes so that a stream alternates them at
// tCCD_S (the file's rochrababgco keeps a stream in one bank, at tCCD_L).
DeviceSpec ddr4_3200() {
  DeviceSpec s;
  s.name = "ddr4-3200";
  s.source = "JESD79-4 DDR4-3200AA; DRAMsim3 configs/DDR4_8Gb_x16_3200.ini (Micron MT40A512M16)";
  s.org = {Protocol::kDDR4, /*channels=*/1, /*ranks=*/2, /*bankGroups=*/2, /*banksPerGroup=*/4, /*rows=*/65536,
           /*columns=*/1024, /*deviceWidth=*/16, /*busWidth=*/64, /*burstLength=*/8};
  Timing& t = s.timing;
  t.tCKns = Rational::of(625, 1000);
  t.burstCycles = 4;
  t.AL = 0, t.CL = 22, t.CWL = 16, t.tRCDRD = t.tRCDWR = 22, t.tRP = 22, t.tRAS = 52, t.tRC = 74;
  t.tRRD_S = 9, t.tRRD_L = 11, t.tCCD_S = 4, t.tCCD_L = 8, t.tFAW = 48, t.t32AW = 0;
  t.tWR = 24, t.tWTR_S = 4, t.tWTR_L = 12, t.tRTP = 12, t.tRTRS = 1;
  t.tRFC = 560, t.tREFI = 12480, t.tRFCb = 0, t.tREFIb = 0, t.tPPD = 0;
  s.power = {rail("VDD", 1.2, 95, 37, 25, 56, 47, 302, 278, 280, 0, 30)};
  s.controller.addressMapping = "rorabachcobg";
  return s;
}

// JESD209-4 LPDDR4-3200, one x16 channel of an 8 Gb die; cycles from DRAMSys'
// configs/memspec/JEDEC_8Gb_LPDDR4-3200_16bit.json (RL 28, WL 14 set A, per-bank tRP).
// Four channels make a phone's 64-bit interface (4 GiB). No bank groups.
DeviceSpec lpddr4_3200() {
  DeviceSpec s;
  s.name = "lpddr4-3200";
  s.source = "JESD209-4 LPDDR4-3200; DRAMSys configs/memspec/JEDEC_8Gb_LPDDR4-3200_16bit.json";
  s.org = {Protocol::kLPDDR4, 4, 1, 1, 8, 65536, 1024, 16, 16, 16};
  Timing& t = s.timing;
  t.tCKns = Rational::of(625, 1000);
  t.burstCycles = 8;
  t.AL = 0, t.CL = 28, t.CWL = 14, t.tRCDRD = t.tRCDWR = 29, t.tRP = 29, t.tRAS = 68, t.tRC = 97;
  t.tRRD_S = t.tRRD_L = 16, t.tCCD_S = t.tCCD_L = 8, t.tFAW = 64, t.t32AW = 0;
  t.tWR = 29, t.tWTR_S = t.tWTR_L = 16, t.tRTP = 12, t.tRTRS = 1;
  t.tRFC = 448, t.tREFI = 6246, t.tRFCb = 224, t.tREFIb = 780, t.tPPD = 4;
  s.power = lpddr4Rails(1.1);
  s.controller.addressMapping = "rorabachco";
  return s;
}

// JESD209-4-1 LPDDR4X-4266 (the LPDDR4 core at 0.6 V I/O), one x16 channel of a 16 Gb die;
// cycles from DRAMSys' configs/memspec/JEDEC_1Gbx16_LPDDR4-4266.json (tCK 0.469 ns, RL 36,
// WL 18). That file has no currents: the LPDDR4-3200 ones stand in (VDDQ, which LPDDR4X
// lowers, is outside the IDD method), an underestimate at the higher clock. 4 x16 channels.
DeviceSpec lpddr4x_4266() {
  DeviceSpec s;
  s.name = "lpddr4x-4266";
  s.source = "JESD209-4-1 LPDDR4X-4266; DRAMSys configs/memspec/JEDEC_1Gbx16_LPDDR4-4266.json; currents of "
             "lpddr4-3200 (estimate)";
  s.org = {Protocol::kLPDDR4, 4, 1, 1, 8, 131072, 1024, 16, 16, 16};
  Timing& t = s.timing;
  t.tCKns = Rational::of(469, 1000);
  t.burstCycles = 8;
  t.AL = 0, t.CL = 36, t.CWL = 18, t.tRCDRD = t.tRCDWR = 39, t.tRP = 39, t.tRAS = 90, t.tRC = 129;
  t.tRRD_S = t.tRRD_L = 22, t.tCCD_S = t.tCCD_L = 8, t.tFAW = 86, t.t32AW = 0;
  t.tWR = 39, t.tWTR_S = t.tWTR_L = 22, t.tRTP = 17, t.tRTRS = 1;
  t.tRFC = 812, t.tREFI = 8341, t.tRFCb = 406, t.tREFIb = 1042, t.tPPD = 4;
  s.power = lpddr4Rails(1.1);
  s.notes.push_back("lpddr4x-4266: IDD currents are LPDDR4-3200's (no published LPDDR4X-4266 set in an open source)");
  s.controller.addressMapping = "rorabachco";
  return s;
}

// JESD209-5 LPDDR5-6400 in bank-group mode (4 groups of 4 banks), BL16, one x16 channel of an
// 8 Gb die. The clock is CK = 800 MHz (tCK 1.25 ns); data runs on WCK at 4:1, 8 beats per CK,
// so a BL16 burst takes 2 cycles. Cycles from gem5's LPDDR5_6400_1x16_BG_BL16
// (src/mem/DRAMInterface.py): RL 17, tRCD/tRP 18 ns, tRAS 42 ns, tWR 34 ns, tCCD_L 4, tRRD 5 ns,
// tFAW 20 ns, tWTR 6.25/12 ns, tRTP 4, tRFCab 210 ns, tREFI 3.9 us, tPPD 2, tCS 2 (tRTRS);
// WL 11 from Ramulator 2.0's LPDDR5_6400 preset (gem5 assumes WL = RL); tRFCpb 120 ns from the
// same; tRC = tRAS + tRPpb. Currents: LPDDR4-3200's at LPDDR5's VDD2H = 1.05 V (estimate).
// Bank groups interleave every 32 bytes (bg lowest) so a stream runs at tCCD_S.
DeviceSpec lpddr5_6400() {
  DeviceSpec s;
  s.name = "lpddr5-6400";
  s.source = "JESD209-5 LPDDR5-6400 BG mode; gem5 LPDDR5_6400_1x16_BG_BL16; Ramulator 2.0 LPDDR5_6400 (WL, tRFCpb); "
             "currents of lpddr4-3200 at 1.05 V (estimate)";
  s.org = {Protocol::kLPDDR5, 4, 1, 4, 4, 32768, 1024, 16, 16, 16};
  Timing& t = s.timing;
  t.tCKns = Rational::of(125, 100);
  t.burstCycles = 2;
  t.AL = 0, t.CL = 17, t.CWL = 11, t.tRCDRD = t.tRCDWR = 15, t.tRP = 15, t.tRAS = 34, t.tRC = 49;
  t.tRRD_S = t.tRRD_L = 4, t.tCCD_S = 2, t.tCCD_L = 4, t.tFAW = 16, t.t32AW = 0;
  t.tWR = 28, t.tWTR_S = 5, t.tWTR_L = 10, t.tRTP = 4, t.tRTRS = 2;
  t.tRFC = 168, t.tREFI = 3120, t.tRFCb = 96, t.tREFIb = 390, t.tPPD = 2;
  s.power = lpddr4Rails(1.05);
  s.notes.push_back("lpddr5-6400: IDD currents are LPDDR4-3200's at VDD2H = 1.05 V (no open LPDDR5 IDD set)");
  s.controller.addressMapping = "rorabachcobg";
  return s;
}

// JESD235 HBM2, 8 channels of 128 bits at 2 Gb/s per pin (tCK 1 ns), a 4-high stack of 8 Gb
// dies: DRAMsim3's configs/HBM2_8Gb_x128.ini, except tRTP = 6 (its tRTP_L; DRAMsim3 does not
// read tRTP_L/tRTP_S and falls back to 5). A row command and a column command may issue in the
// same cycle.
DeviceSpec hbm2() {
  DeviceSpec s;
  s.name = "hbm2";
  s.source = "JESD235 HBM2; DRAMsim3 configs/HBM2_8Gb_x128.ini";
  s.org = {Protocol::kHBM2, 8, 1, 4, 4, 32768, 128, 128, 128, 4};
  Timing& t = s.timing;
  t.tCKns = Rational::of(1, 1);
  t.burstCycles = 2;
  t.AL = 0, t.CL = 14, t.CWL = 4, t.tRCDRD = t.tRCDWR = 14, t.tRP = 14, t.tRAS = 34, t.tRC = 48;
  t.tRRD_S = 4, t.tRRD_L = 6, t.tCCD_S = 1, t.tCCD_L = 2, t.tFAW = 30, t.t32AW = 0;
  t.tWR = 16, t.tWTR_S = 6, t.tWTR_L = 8, t.tRTP = 6, t.tRTRS = 2;
  t.tRFC = 260, t.tREFI = 3900, t.tRFCb = 0, t.tREFIb = 0, t.tPPD = 0;
  s.power = {rail("VDD", 1.2, 65, 40, 28, 55, 40, 390, 500, 250, 0, 31)};
  s.controller.addressMapping = "rorabgbachco";
  s.controller.dualCommandIssue = true;
  return s;
}

// JESD250 GDDR6, DRAMsim3's configs/GDDR6_8Gb_x16.ini: a 128-bit channel of 8 x16 devices,
// 16 banks without bank groups, BL16 on a data clock 16 beats per tCK (a burst is one cycle),
// tCK 0.66 ns; tRTP = 3 (its tRTP_L; DRAMsim3 falls back to 5).
DeviceSpec gddr6() {
  DeviceSpec s;
  s.name = "gddr6";
  s.source = "JESD250 GDDR6; DRAMsim3 configs/GDDR6_8Gb_x16.ini";
  s.org = {Protocol::kGDDR6, 1, 1, 1, 16, 16384, 2048, 16, 128, 16};
  Timing& t = s.timing;
  t.tCKns = Rational::of(66, 100);
  t.burstCycles = 1;
  t.AL = 0, t.CL = 24, t.CWL = 16, t.tRCDRD = 24, t.tRCDWR = 20, t.tRP = 24, t.tRAS = 54, t.tRC = 78;
  t.tRRD_S = t.tRRD_L = 9, t.tCCD_S = t.tCCD_L = 3, t.tFAW = 32, t.t32AW = 420;
  t.tWR = 16, t.tWTR_S = t.tWTR_L = 7, t.tRTP = 3, t.tRTRS = 1;
  t.tRFC = 126, t.tREFI = 11862, t.tRFCb = 30, t.tREFIb = 238, t.tPPD = 2;
  s.power = {rail("VDD", 1.35, 71, 60, 45, 61, 50, 248, 231, 286, 45, 35)};
  s.controller.addressMapping = "rochrababgco";
  return s;
}

struct Preset {
  const char* name;
  DeviceSpec (*make)();
};
constexpr Preset kPresets[] = {{"ddr4-3200", ddr4_3200},     {"lpddr4-3200", lpddr4_3200},
                               {"lpddr4x-4266", lpddr4x_4266}, {"lpddr5-6400", lpddr5_6400},
                               {"hbm2", hbm2},                 {"gddr6", gddr6}};

}  // namespace

std::vector<std::string> presetNames() {
  std::vector<std::string> names;
  for (const auto& p : kPresets) names.emplace_back(p.name);
  return names;
}

DeviceSpec preset(const std::string& name) {
  std::string lowered;
  for (const char c : name) lowered += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const auto& p : kPresets) {
    if (lowered == p.name) {
      DeviceSpec s = p.make();
      validateDevice(s, s.name);
      return s;
    }
  }
  std::string names;
  for (const auto& p : kPresets) names += (names.empty() ? "" : ", ") + std::string(p.name);
  throw DramInputError(fmt::format("DRAM preset '{}': not one of {}", name, names));
}

}  // namespace weft::sim::dram
