// Device descriptions: the presets, DRAMsim3's .ini format as DRAMsim3 reads it, the rules a
// description must keep (with messages that say where and which), the address mappings.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <dirent.h>
#include <fstream>
#include <string>
#include <unistd.h>

#include "weft/sim/dram/address_mapping.h"
#include "weft/sim/dram/device.h"
#include "weft/sim/dram/dramsim3_ini.h"
#include "weft/sim/dram/errors.h"

namespace weft::sim::dram {
namespace {

// A DDR4 description in DRAMsim3's format, with values of our own (an 8 Gb x8 part).
const char* kGoodIni = R"([dram_structure]
protocol = DDR4
bankgroups = 4
banks_per_group = 4
rows = 65536
columns = 1024
device_width = 8
BL = 8

[timing]
; a comment line, and inline ones below
tCK = 0.75   ; 2666 MT/s
AL = 0
CL = 19
CWL = 14
tRCD = 19
tRP = 19
tRAS = 43
tRFC = 467
tREFI = 10400
tRRD_S = 4
tRRD_L = 7
tWTR_S = 4
tWTR_L = 10
tFAW = 28
tWR = 20
tRTP = 10
tCCD_S = 4
tCCD_L = 7
TRTRS = 1

[power]
VDD = 1.2
IDD0 = 58
IDD2P = 25
IDD2N = 34
IDD3P = 43
IDD3N = 44
IDD4W = 135
IDD4R = 145
IDD5AB = 250
IDD6x = 30

[system]
channel_size = 16384
channels = 2
bus_width = 64
address_mapping = rochrababgco
queue_structure = PER_BANK
refresh_policy = RANK_LEVEL_STAGGERED
row_buf_policy = OPEN_PAGE
cmd_queue_size = 8
trans_queue_size = 32

[other]
epoch_period = 100000
output_level = 1
)";

std::string replaceLine(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

// The error message of parsing `text`, or "" if it parsed.
std::string errorOf(const std::string& text) {
  try {
    parseDramsim3Ini(text, "dev.ini");
  } catch (const DramInputError& e) {
    return e.what();
  }
  return "";
}

TEST(DramPresets, EveryPresetIsValidAndCitesItsSource) {
  const auto names = presetNames();
  for (const char* expected : {"ddr4-3200", "lpddr4-3200", "lpddr4x-4266", "lpddr5-6400", "hbm2", "gddr6"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), expected), names.end()) << expected;
  }
  for (const auto& name : names) {
    const DeviceSpec s = preset(name);
    EXPECT_EQ(s.name, name);
    EXPECT_FALSE(s.source.empty()) << name;
    EXPECT_GE(s.timing.tRC, s.timing.tRAS + s.timing.tRP) << name;
    EXPECT_NO_THROW(validateDevice(s, name));
    EXPECT_NO_THROW(AddressMapping(s.controller.addressMapping, s.org)) << name;
  }
  EXPECT_EQ(preset("DDR4-3200").name, "ddr4-3200");  // case does not matter
}

TEST(DramPresets, Ddr4Is64BitChannelOfX16Devices) {
  const DeviceSpec s = preset("ddr4-3200");
  EXPECT_EQ(s.org.busWidth, 64u);
  EXPECT_EQ(s.org.deviceWidth, 16u);
  EXPECT_EQ(s.org.devicesPerRank(), 4u);
  EXPECT_EQ(s.org.requestBytes(), 64u);
  EXPECT_EQ(s.timing.tCKns, Rational::of(5, 8));
  EXPECT_EQ(s.org.capacityBytes(), uint64_t{8} << 30);
}

TEST(DramPresets, AnUnknownNameListsTheAcceptedOnes) {
  try {
    loadDevice("ddr9-9999");
    FAIL();
  } catch (const DramInputError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("ddr9-9999"), std::string::npos) << m;
    EXPECT_NE(m.find("lpddr4-3200"), std::string::npos) << m;
  }
}

TEST(DramIni, ReadsAFileAsDramsim3Does) {
  const DeviceSpec s = parseDramsim3Ini(kGoodIni, "good.ini");
  EXPECT_EQ(s.org.protocol, Protocol::kDDR4);
  EXPECT_EQ(s.org.channels, 2u);
  // 8 devices of 8 Gb make an 8 GiB rank; a 16 GiB channel holds 2.
  EXPECT_EQ(s.org.devicesPerRank(), 8u);
  EXPECT_EQ(s.org.ranks, 2u);
  EXPECT_EQ(s.org.banks(), 16u);
  EXPECT_EQ(s.timing.tCKns, Rational::of(3, 4));  // the inline comment is not part of it
  EXPECT_EQ(s.timing.burstCycles, 4u);            // BL/2
  EXPECT_EQ(s.timing.tRC, 19u + 43u);             // derived, as DRAMsim3 does
  EXPECT_EQ(s.timing.tRTRS, 1u);                  // names are case-insensitive
  EXPECT_EQ(s.timing.tRCDRD, 19u);
  EXPECT_EQ(s.timing.tRCDWR, 19u);
  ASSERT_EQ(s.power.size(), 1u);
  EXPECT_DOUBLE_EQ(s.power[0].idd4r, 145);
  EXPECT_EQ(s.controller.commandQueueSize, 8u);
  EXPECT_EQ(s.controller.pagePolicy, PagePolicy::kOpen);
  EXPECT_TRUE(s.notes.empty()) << s.notes.front();
}

TEST(DramIni, FieldsDramsim3DefaultsTakeItsDefaultAndSaySo) {
  std::string text = replaceLine(kGoodIni, "tRTP = 10\n", "");
  text = replaceLine(text, "tREFI = 10400\n", "REFI = 10400\n");
  text = replaceLine(text, "tRFC = 467", "tRFC =");             // blank: DRAMsim3 uses its default
  text = replaceLine(text, "tFAW = 28", "tFAW = 28 (4 x tRRD)");  // a remark after the number
  const DeviceSpec s = parseDramsim3Ini(text, "dev.ini");
  EXPECT_EQ(s.timing.tRTP, 5u);
  EXPECT_EQ(s.timing.tREFI, 7800u);
  EXPECT_EQ(s.timing.tRFC, 74u);
  EXPECT_EQ(s.timing.tFAW, 28u);
  std::string notes;
  for (const auto& n : s.notes) notes += n + "\n";
  EXPECT_NE(notes.find("tRTP absent: DRAMsim3's default 5"), std::string::npos) << notes;
  EXPECT_NE(notes.find("REFI is not a field DRAMsim3 reads"), std::string::npos) << notes;
  EXPECT_NE(notes.find("dev.ini:19: [timing] tRFC is blank"), std::string::npos) << notes;
  EXPECT_NE(notes.find("'(4 x tRRD)' after the number ignored"), std::string::npos) << notes;
}

TEST(DramIni, ProtocolsReadTheirOwnWay) {
  // HBM: columns count twice (prefetch), separate tRCDRD/tRCDWR, a row and a column command a cycle.
  std::string hbm = replaceLine(kGoodIni, "protocol = DDR4", "protocol = HBM");
  hbm = replaceLine(hbm, "tRCD = 19", "tRCDRD = 14\ntRCDWR = 10");
  hbm = replaceLine(hbm, "device_width = 8", "device_width = 128");
  hbm = replaceLine(hbm, "bus_width = 64", "bus_width = 128");
  hbm = replaceLine(hbm, "BL = 8", "BL = 4");
  hbm = replaceLine(hbm, "columns = 1024", "columns = 64");
  const DeviceSpec h = parseDramsim3Ini(hbm, "hbm.ini");
  EXPECT_EQ(h.org.columns, 128u);
  EXPECT_EQ(h.timing.burstCycles, 2u);
  EXPECT_EQ(h.timing.tRCDRD, 14u);
  EXPECT_EQ(h.timing.tRCDWR, 10u);
  EXPECT_TRUE(h.controller.dualCommandIssue);
  // GDDR6: a burst of 16 in one cycle, columns counted per beat, bank groups switched off.
  std::string g = replaceLine(kGoodIni, "protocol = DDR4", "protocol = GDDR6\nbankgroup_enable = false");
  g = replaceLine(g, "tRCD = 19", "tRCDRD = 24\ntRCDWR = 20");
  g = replaceLine(g, "BL = 8", "BL = 16");
  g = replaceLine(g, "columns = 1024", "columns = 64");
  g = replaceLine(g, "bus_width = 64", "bus_width = 128");
  const DeviceSpec gd = parseDramsim3Ini(g, "gddr6.ini");
  EXPECT_EQ(gd.timing.burstCycles, 1u);
  EXPECT_EQ(gd.org.columns, 64u * 16u);
  EXPECT_EQ(gd.org.bankGroups, 1u);
  EXPECT_EQ(gd.org.banksPerGroup, 16u);
  EXPECT_FALSE(gd.controller.dualCommandIssue);
}

TEST(DramIni, BadInputIsAnErrorNamingWhereAndTheRule) {
  const struct {
    std::string text;
    std::vector<std::string> says;
  } cases[] = {
      {replaceLine(kGoodIni, "protocol = DDR4\n", ""), {"dev.ini", "[dram_structure] protocol is missing"}},
      {replaceLine(kGoodIni, "tCK = 0.75   ; 2666 MT/s\n", ""), {"dev.ini", "[timing] tCK is missing"}},
      {replaceLine(kGoodIni, "CL = 19\n", ""), {"dev.ini", "[timing] CL is missing"}},
      {replaceLine(kGoodIni, "protocol = DDR4", "protocol = DDR7"), {"dev.ini", "DDR7", "not one DRAMsim3 knows"}},
      {replaceLine(kGoodIni, "CL = 19", "CL = fast"), {"dev.ini:14", "CL = fast", "not a whole number"}},
      {replaceLine(kGoodIni, "CL = 19", "CL = 19x"), {"dev.ini:14", "not a whole number"}},
      {replaceLine(kGoodIni, "tRP = 19", "tRP = 0"), {"dev.ini:17", "tRP = 0", "at least 1"}},
      {replaceLine(kGoodIni, "tRAS = 43", "tRAS = 43\ntRC = 50"), {"dev.ini", "tRC = 50 < tRAS + tRP = 43 + 19"}},
      {replaceLine(kGoodIni, "tREFI = 10400", "tREFI = 400"), {"tREFI = 400 <= tRFC = 467"}},
      {replaceLine(kGoodIni, "tCCD_L = 7", "tCCD_L = 2"), {"tCCD_L = 2 < tCCD_S = 4", "same bank group"}},
      {replaceLine(kGoodIni, "rows = 65536", "rows = 60000"), {"rows = 60000 is not a power of two"}},
      {replaceLine(kGoodIni, "rochrababgco", "rochrababgxx"), {"address mapping 'rochrababgxx'", "'xx' is not a field"}},
      {replaceLine(kGoodIni, "rochrababgco", "rochrababa"), {"'ba' appears twice"}},
      {replaceLine(kGoodIni, "rochrababgco", "rochrabgco"), {"field 'ba' is missing"}},
      {replaceLine(kGoodIni, "bus_width = 64", "bus_width = 60"), {"bus_width = 60", "8-bit devices"}},
      {replaceLine(kGoodIni, "tRAS = 43", "tRAS = 43\ntRAS = 44"), {"dev.ini:19", "contradicts line 18"}},
      {replaceLine(kGoodIni, "AL = 0", "AL is zero"), {"dev.ini:13", "'AL is zero' is neither a [section]"}},
      {replaceLine(kGoodIni, "[timing]", "[timing"), {"dev.ini:10", "closing ']'"}},
      {replaceLine(kGoodIni, "tCK = 0.75", "tCK = 7.5e-1"), {"dev.ini:12", "plain decimal"}},
      {replaceLine(kGoodIni, "row_buf_policy = OPEN_PAGE", "row_buf_policy = OPEN"), {"OPEN", "OPEN_PAGE, CLOSE_PAGE"}},
  };
  for (const auto& c : cases) {
    const std::string m = errorOf(c.text);
    ASSERT_FALSE(m.empty()) << "accepted: expected " << c.says.front();
    for (const auto& s : c.says) EXPECT_NE(m.find(s), std::string::npos) << "'" << s << "' not in: " << m;
  }
}

TEST(DramIni, AFileThatCannotBeReadIsNamed) {
  try {
    readDramsim3Ini("/nonexistent/dir/x.ini");
    FAIL();
  } catch (const DramInputError& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/dir/x.ini: cannot open"), std::string::npos) << e.what();
  }
}

TEST(DramIni, LoadDeviceTakesAPresetOrAFile) {
  char path[] = "/tmp/weft_dram_device_XXXXXX";
  const int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  close(fd);
  {
    std::ofstream(path) << kGoodIni;
  }
  EXPECT_EQ(loadDevice(path).org.channels, 2u);
  EXPECT_EQ(loadDevice("hbm2").org.channels, 8u);
  std::remove(path);
  EXPECT_THROW(loadDevice(path), DramInputError);  // gone: neither a preset nor a file
}

// Every device file DRAMsim3 ships loads (with WEFT_DRAMSIM3_CONFIGS pointing at its configs/).
TEST(DramIni, EveryDramsim3ConfigLoads) {
  const char* dir = std::getenv("WEFT_DRAMSIM3_CONFIGS");
  if (dir == nullptr || *dir == '\0') GTEST_SKIP() << "set WEFT_DRAMSIM3_CONFIGS to DRAMsim3's configs/ directory";
  DIR* d = opendir(dir);
  ASSERT_NE(d, nullptr) << dir;
  int files = 0;
  while (const dirent* e = readdir(d)) {
    const std::string name = e->d_name;
    if (name.size() < 4 || name.substr(name.size() - 4) != ".ini") continue;
    ++files;
    EXPECT_NO_THROW(readDramsim3Ini(std::string(dir) + "/" + name)) << name;
  }
  closedir(d);
  EXPECT_GT(files, 0);
}

TEST(DramAddressMapping, DecodesAndEncodesByName) {
  const DeviceSpec s = preset("ddr4-3200");  // 2 ranks, 2 groups of 4 banks, 64 K rows, 128 bursts a row
  const AddressMapping m("rochrababgco", s.org);
  EXPECT_EQ(m.canonical(), "rochrababgco");
  EXPECT_EQ(m.offsetBits(), 6u);
  // From the least significant: 6 offset bits, 7 column bits, 1 bank group, 2 bank, 1 rank, 16 row.
  EXPECT_EQ(m.decode(64).column, 1u);
  EXPECT_EQ(m.decode(uint64_t{1} << 13).bankGroup, 1u);
  EXPECT_EQ(m.decode(uint64_t{1} << 14).bank, 1u);
  EXPECT_EQ(m.decode(uint64_t{1} << 16).rank, 1u);
  EXPECT_EQ(m.decode(uint64_t{1} << 17).row, 1u);
  EXPECT_EQ(m.totalBits(), 33u);
  for (uint64_t a = 0; a < (uint64_t{1} << 33); a += 0x12345640ull) {
    EXPECT_EQ(m.encode(m.decode(a)), a & ~uint64_t{63});
  }
}

TEST(DramAddressMapping, AcceptsOtherSimulatorsSpellings) {
  const DeviceSpec s = preset("ddr4-3200");
  // gem5/Ramulator style, without a bank group field: it goes just below the bank.
  EXPECT_EQ(AddressMapping("RoRaBaChCo", s.org).canonical(), "rorababgchco");
  EXPECT_EQ(AddressMapping("row-bank-rank-column-channel", s.org).canonical(), "robabgracoch");
  EXPECT_THROW(AddressMapping("rochrababgc", s.org), DramInputError);  // odd length
  EXPECT_THROW(AddressMapping("row-bank-rank-col", s.org), DramInputError);  // channel missing
}

}  // namespace
}  // namespace weft::sim::dram
