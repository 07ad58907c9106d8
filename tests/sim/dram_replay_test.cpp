// DRAMsim3-format traces and their replay (weft/sim/dram/trace_replay.h), the statistics and
// energy a replay reports, and `weft dram replay` itself: its JSON, and bad input ending with
// exit code 2 and nothing written.
#include <gtest/gtest.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <sstream>

#include "DramToolPaths.h"
#include "weft/sim/dram/errors.h"
#include "weft/sim/dram/memory_system.h"
#include "weft/sim/dram/trace_replay.h"

namespace weft::sim::dram {
namespace {

std::string errorOf(const std::string& text, uint64_t capacity = 0) {
  try {
    parseTrace(text, "t.trace", capacity);
  } catch (const DramInputError& e) {
    return e.what();
  }
  return "";
}

TEST(DramTrace, ReadsDramsim3sFormat) {
  const auto t = parseTrace(
      "0x1f40 READ 0\n"
      "# a comment\n"
      "\n"
      "1f80 WRITE 5\r\n"
      "  0X200 P_MEM_RD   17  \n"
      "0x40 write 18\n"
      "0x80 BOFF 19",
      "t.trace");
  ASSERT_EQ(t.size(), 5u);
  EXPECT_EQ(t[0].addr, 0x1f40u);
  EXPECT_FALSE(t[0].isWrite);
  EXPECT_EQ(t[1].addr, 0x1f80u);
  EXPECT_TRUE(t[1].isWrite);
  EXPECT_EQ(t[1].cycle, 5u);
  EXPECT_EQ(t[2].addr, 0x200u);
  EXPECT_EQ(t[2].cycle, 17u);
  EXPECT_TRUE(t[3].isWrite);
  EXPECT_TRUE(t[4].isWrite);
}

TEST(DramTrace, ALineThatDoesNotParseIsNamed) {
  const struct {
    const char* text;
    const char* says;
  } cases[] = {
      {"0x10 READ 1\nzz READ 2\n", "t.trace:2: 'zz READ 2': no hexadecimal address"},
      {"0x10 READ 1\n0x1g READ 2\n", "t.trace:2: '0x1g READ 2': the address is not hexadecimal"},
      {"0x10 FETCH 1\n", "t.trace:1: '0x10 FETCH 1': the operation is neither READ nor WRITE"},
      {"0x10 READ\n", "t.trace:1: '0x10 READ': no decimal cycle"},
      {"0x10 READ 12x\n", "unexpected text after the cycle"},
      {"0x10 READ 1 2\n", "unexpected text after the cycle"},
      {"0x10\n", "no operation"},
      {"0x11223344556677889 READ 1\n", "does not fit in 64 bits"},
  };
  for (const auto& c : cases) {
    const std::string m = errorOf(c.text);
    EXPECT_NE(m.find(c.says), std::string::npos) << "'" << c.says << "' not in: " << m;
    EXPECT_NE(m.find("0x<address> READ|WRITE <cycle>"), std::string::npos) << m;
  }
  EXPECT_NE(errorOf("0x0 READ 0\n0x1000 READ 1\n", 0x1000).find("t.trace:2"), std::string::npos);
  EXPECT_NE(errorOf("0x0 READ 0\n0x1000 READ 1\n", 0x1000).find("beyond the device"), std::string::npos);
  EXPECT_EQ(errorOf("0x0 READ 0\n0xfff READ 1\n", 0x1000), "");
}

TEST(DramReplay, ReportsWhatTheDramDid) {
  const DeviceSpec spec = preset("ddr4-3200");
  std::vector<TraceRecord> trace;
  for (uint64_t i = 0; i < 2000; ++i) trace.push_back({(i * 64) % (1 << 20), i, i % 4 == 3});
  const ReplayResult r = replayTrace(spec, trace);
  const DramStats& s = r.stats;
  EXPECT_EQ(r.transactions, 2000u);
  EXPECT_EQ(s.reads, 1500u);
  EXPECT_EQ(s.writes, 500u);
  EXPECT_EQ(s.readsDone + s.writesDone, 2000u);
  EXPECT_EQ(r.dramCycles, s.lastDoneCycle);
  EXPECT_GT(r.dramCycles, 2000u);
  EXPECT_EQ(s.rowHits + s.rowMisses + s.rowConflicts, s.columnCommands());
  EXPECT_GT(s.rowHits, s.rowMisses);  // a stream: mostly hits
  EXPECT_GT(s.activates, 0u);
  EXPECT_GT(s.averageReadLatency(), spec.timing.CL);
  EXPECT_GE(s.bankLevelParallelism(), 1.0);
  EXPECT_NEAR(r.bandwidthGBps(), 2000.0 * 64 / (double(r.dramCycles) * 0.625), 1e-9);
  uint64_t rankCycles = 0;
  for (size_t k = 0; k < s.rankActiveCycles.size(); ++k) rankCycles += s.rankActiveCycles[k] + s.rankPrechargedCycles[k];
  EXPECT_EQ(rankCycles, 2 * r.dramCycles);  // both ranks, every cycle, one state or the other

  const nlohmann::json j = r.toJson();
  for (const char* key : {"transactions", "reads", "writes", "dram_cycles", "average_read_latency_cycles", "row_hits",
                          "row_misses", "row_conflicts", "activates", "refreshes", "energy_pj", "bandwidth_gbps"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  EXPECT_EQ(j["dram_cycles"], r.dramCycles);
  EXPECT_DOUBLE_EQ(j["energy_pj"].get<double>(), r.energy.total());
  EXPECT_EQ(replayTrace(spec, trace).toJson().dump(), j.dump());  // deterministic
  EXPECT_NE(r.toText().find("row buffer"), std::string::npos);
}

// The command trace (`weft dram replay --command-trace`): DRAMsim3's lines, as its CMD_TRACE
// build printed them for DDR4_8Gb_x16_3200.ini on this trace (the preset is that device; the file's
// mapping is rochrababgco): the second read hits the open row, the third conflicts with it, and
// the write stays posted below the low watermark. Recording the commands changes no figure.
TEST(DramReplay, TheCommandTraceIsDramsim3s) {
  DeviceSpec spec = preset("ddr4-3200");
  spec.controller.addressMapping = "rochrababgco";
  const std::vector<TraceRecord> trace = {{0x0, 0, false}, {0x40, 1, false}, {0x100000, 2, true}, {0x200000, 3, false}};
  std::vector<std::string> lines;
  const AddressMapping mapping(spec.controller.addressMapping, spec.org);
  const ReplayResult recorded = replayTrace(spec, trace, [&](const std::vector<CommandRecord>& commands) {
    for (const auto& c : commands) lines.push_back(dramsim3CommandLine(c, mapping));
  });
  EXPECT_EQ(lines, (std::vector<std::string>{
                       "2                  activate               0   0   0   0      0x0      0x0",
                       "24                 read                   0   0   0   0      0x0      0x0",
                       "32                 read                   0   0   0   0      0x0      0x1",
                       "54                 precharge              0   0   0   0     0x10      0x0",
                       "76                 activate               0   0   0   0     0x10      0x0",
                       "98                 read                   0   0   0   0     0x10      0x0"}));
  EXPECT_EQ(recorded.toJson().dump(), replayTrace(spec, trace).toJson().dump());

  // A longer mix with refreshes, on four channels: every command handed over once, in cycle
  // order, and the figures as without recording.
  const DeviceSpec lpddr4 = preset("lpddr4-3200");
  std::vector<TraceRecord> mix;
  for (uint64_t i = 0; i < 30000; ++i) mix.push_back({(i * 7919 % 20000) * 32, i, i % 5 == 0});
  std::vector<CommandRecord> all;
  const ReplayResult withCommands =
      replayTrace(lpddr4, mix, [&](const std::vector<CommandRecord>& c) { all.insert(all.end(), c.begin(), c.end()); });
  EXPECT_EQ(withCommands.toJson().dump(), replayTrace(lpddr4, mix).toJson().dump());
  const DramStats& s = withCommands.stats;
  EXPECT_GT(s.refreshes, 0u);
  EXPECT_EQ(all.size(), s.activates + s.precharges + s.readCommands + s.writeCommands +
                            s.refreshes + s.bankRefreshes);
  EXPECT_TRUE(std::is_sorted(all.begin(), all.end(),
                             [](const CommandRecord& a, const CommandRecord& b) { return a.cycle < b.cycle; }));
  const auto refresh = std::find_if(all.begin(), all.end(), [](const CommandRecord& c) { return c.kind == CommandRecord::kRefresh; });
  ASSERT_NE(refresh, all.end());
  EXPECT_EQ(dramsim3CommandLine(*refresh, AddressMapping(lpddr4.controller.addressMapping, lpddr4.org)),
            fmt::format("{:<18} refresh               -1   0  -1  -1     -0x1     -0x1", refresh->cycle));
}

// A trace file of some megabytes is read on a second thread beside the model (trace_replay.cpp):
// the same figures as the records replayed from memory, and a bad line far into it stops the
// replay with its own line named.
TEST(DramReplay, ALargeTraceFileReplaysAsItsRecordsAndNamesABadLine) {
  const DeviceSpec spec = preset("lpddr4-3200");
  std::vector<TraceRecord> trace;
  uint64_t state = 12345;
  for (uint64_t i = 0; i < 150000; ++i) {  // streams with random jumps, a write in four
    state = state * 6364136223846793005u + 1442695040888963407u;
    const uint64_t addr = i % 64 == 0 ? (state >> 20) % (uint64_t{1} << 30) : trace.back().addr + 32;
    trace.push_back({addr % (uint64_t{1} << 30) / 32 * 32, i * 2, (state >> 40) % 4 == 0});
  }
  const std::string path = fmt::format("/tmp/weft_dram_large.{}.trace", getpid());
  const auto write = [&](size_t badAt) {
    std::ofstream out(path);
    for (size_t i = 0; i < trace.size(); ++i) {
      if (i == badAt) out << "0x40 FETCH 7\n";
      out << fmt::format("0x{:x} {} {}\n", trace[i].addr, trace[i].isWrite ? "WRITE" : "READ", trace[i].cycle);
    }
  };
  write(SIZE_MAX);
  ASSERT_GT(std::ifstream(path, std::ios::ate).tellg(), 1 << 20);  // past the threaded reader's threshold
  EXPECT_EQ(replayTraceFile(spec, path).toJson().dump(), replayTrace(spec, trace).toJson().dump());
  write(140000);  // in the reader's last blocks, long after the first were replayed
  try {
    replayTraceFile(spec, path);
    ADD_FAILURE() << "the bad line was not reported";
  } catch (const DramInputError& e) {
    EXPECT_NE(std::string(e.what()).find(fmt::format("{}:140001: '0x40 FETCH 7'", path)), std::string::npos) << e.what();
  }
  std::remove(path.c_str());
}

TEST(DramEnergy, ByCommandFromIddCurrents) {
  const DeviceSpec spec = preset("ddr4-3200");  // VDD 1.2, 4 devices a rank, tCK 0.625 ns
  MemorySystem m(spec);
  m.enqueue({0, 0, false}, 0);  // one activate, one read
  m.drain();
  m.advanceTo(1000);
  const DramStats s = m.stats();
  ASSERT_EQ(s.activates, 1u);
  ASSERT_EQ(s.readCommands, 1u);
  const DramEnergy e = computeEnergy(spec, s);
  const double k = 1.2 * 0.625 * 4;  // V * ns * devices: mA * cycles -> pJ
  const PowerRail& p = spec.power[0];
  EXPECT_DOUBLE_EQ(e.activate, k * (p.idd0 - p.idd3n) * spec.timing.tRAS);
  EXPECT_DOUBLE_EQ(e.precharge, 0.0);  // the row is still open
  EXPECT_DOUBLE_EQ(e.read, k * (p.idd4r - p.idd3n) * spec.timing.burstCycles);
  EXPECT_DOUBLE_EQ(e.write, 0.0);
  EXPECT_DOUBLE_EQ(e.refresh, 0.0);  // the first refresh is due at 6240
  // Rank 0 has a row open from the activate (cycle 1) on; rank 1 never does.
  EXPECT_DOUBLE_EQ(e.background, k * (p.idd3n * 999 + p.idd2n * 1 + p.idd2n * 1000));
  // Together an activate and a precharge cost DRAMsim3's IDD0 * tRC - IDD3N * tRAS - IDD2N * tRP.
  DramStats pair;
  pair.activates = pair.precharges = 1;
  const DramEnergy both = computeEnergy(spec, pair);
  EXPECT_DOUBLE_EQ(both.activate + both.precharge,
                   k * (p.idd0 * spec.timing.tRC - p.idd3n * spec.timing.tRAS - p.idd2n * spec.timing.tRP));
}

TEST(DramStatsTest, RowHitsMissesAndConflicts) {
  MemorySystem m(preset("ddr4-3200"));
  Coordinates c;
  const auto at = [&](uint32_t row, uint32_t col) {
    c.row = row, c.column = col;
    return m.mapping().encode(c);
  };
  m.enqueue({0, at(1, 0), false}, 0);    // closed bank: a miss
  m.enqueue({1, at(1, 1), false}, 1);    // the same row: a hit
  m.drain();
  m.advanceTo(200);
  m.enqueue({2, at(2, 0), false}, 200);  // another row: a conflict
  m.drain();
  const DramStats s = m.stats();
  EXPECT_EQ(s.rowMisses, 1u);
  EXPECT_EQ(s.rowHits, 1u);
  EXPECT_EQ(s.rowConflicts, 1u);
  EXPECT_EQ(s.precharges, 1u);
}

// `weft dram replay` as a process.
struct Ran {
  int code;
  std::string out, err;
};

// With `pipeFrom`, weft's standard input is that file through a pipe (`cat FILE | weft ...`).
Ran runWeft(const std::string& args, const std::string& pipeFrom = "") {
  const std::string errFile = fmt::format("/tmp/weft_dram_err.{}", getpid());
  const std::string cat = pipeFrom.empty() ? "" : fmt::format("cat {} | ", pipeFrom);
  const std::string cmd = fmt::format("{}{} {} 2>{}", cat, weftBinary(), args, errFile);
  Ran r{};
  FILE* p = popen(cmd.c_str(), "r");
  char buf[4096];
  for (size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) r.out.append(buf, n);
  const int status = pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::ifstream e(errFile);
  std::stringstream ss;
  ss << e.rdbuf();
  r.err = ss.str();
  std::remove(errFile.c_str());
  return r;
}

class DramTool : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fmt::format("/tmp/weft_dram_tool.{}", getpid());
    ASSERT_EQ(system(("mkdir -p " + dir_).c_str()), 0);
  }
  void TearDown() override { (void)system(("rm -rf " + dir_).c_str()); }
  std::string write(const std::string& name, const std::string& text) {
    const std::string path = dir_ + "/" + name;
    std::ofstream(path) << text;
    return path;
  }
  bool exists(const std::string& name) const { return std::ifstream(dir_ + "/" + name).good(); }
  // `weft estimate` of network `net` (`layers` layers) at `options`: each layer's estimate
  // within `tolerance` of its run.
  void expectEstimatesWithin(const std::string& options, const std::string& net, size_t layers, double tolerance) {
    const Ran r = runWeft(fmt::format("{} estimate {} --quiet --work-dir {}/work --json {}/est.json", options, net,
                                      dir_, dir_));
    ASSERT_EQ(r.code, 0) << r.err;
    std::ifstream in(dir_ + "/est.json");
    const nlohmann::json j = nlohmann::json::parse(in);
    const auto& figures = j["workloads"].at(0)["layers"];
    ASSERT_EQ(figures.size(), layers) << j.dump();
    for (const auto& l : figures) {
      EXPECT_GT(l["cycles"].get<uint64_t>(), 0u);
      EXPECT_LT(std::abs(l["error"].get<double>()), tolerance) << l.dump();
    }
  }
  std::string dir_;
};

TEST_F(DramTool, ReplayWritesTheFiguresAsJson) {
  std::string text;
  for (int i = 0; i < 300; ++i) text += fmt::format("0x{:x} {} {}\n", i * 64, i % 3 == 2 ? "WRITE" : "READ", i);
  const std::string trace = write("t.trace", text);
  const Ran r = runWeft(fmt::format("dram replay {} --dram lpddr4-3200 --json {}/out.json", trace, dir_));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("transactions      300"), std::string::npos) << r.out;
  std::ifstream in(dir_ + "/out.json");
  const nlohmann::json j = nlohmann::json::parse(in);
  EXPECT_EQ(j["transactions"], 300);
  EXPECT_EQ(j["reads"], 200);
  EXPECT_EQ(j["writes"], 100);
  EXPECT_EQ(j["device"], "lpddr4-3200");
  EXPECT_GT(j["dram_cycles"].get<uint64_t>(), 300u);
  EXPECT_GT(j["energy_pj"].get<double>(), 0.0);
  EXPECT_GT(j["average_write_latency_cycles"].get<double>(), 0.0);
  EXPECT_EQ(runWeft("dram devices").code, 0);
}

// --command-trace writes every command, a DRAMsim3 command-trace line each; a replay that fails
// (a bad line past the first blocks of commands) leaves neither the file nor its temporary.
TEST_F(DramTool, TheCommandTraceIsWrittenWholeOrNotAtAll) {
  std::string text;
  for (int i = 0; i < 20000; ++i) text += fmt::format("0x{:x} {} {}\n", (i * 7919 % 5000) * 64, i % 4 ? "READ" : "WRITE", i);
  const std::string good = write("good.trace", text), bad = write("bad.trace", text + "0x40 FETCH 20001\n");
  const Ran r = runWeft(fmt::format("dram replay {} --dram ddr4-3200 --json {}/out.json --command-trace {}/cmd/commands.txt",
                                    good, dir_, dir_));
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(std::ifstream(dir_ + "/out.json"));
  std::ifstream in(dir_ + "/cmd/commands.txt");
  size_t lines = 0, reads = 0;
  for (std::string line; std::getline(in, line); ++lines) {
    std::istringstream fields(line);
    uint64_t cycle = 0;
    std::string command;
    fields >> cycle >> command;
    EXPECT_LE(cycle, j["dram_cycles"].get<uint64_t>()) << line;
    reads += command == "read" ? 1 : 0;
  }
  EXPECT_EQ(lines, j["activates"].get<size_t>() + j["precharges"].get<size_t>() + j["read_commands"].get<size_t>() +
                       j["write_commands"].get<size_t>() + j["refreshes"].get<size_t>());
  EXPECT_EQ(reads, j["read_commands"].get<size_t>());
  const Ran failed = runWeft(fmt::format("dram replay {} --dram ddr4-3200 --command-trace {}/failed.txt", bad, dir_));
  EXPECT_EQ(failed.code, 2);
  EXPECT_NE(failed.err.find("bad.trace:20001"), std::string::npos) << failed.err;
  EXPECT_EQ(system(fmt::format("ls {} | grep -q failed", dir_).c_str()) == 0, false) << "a half command trace was left";
  // Into a pipe (`--command-trace /dev/stdout | grep ...`): the lines go through it, and standard
  // output stays what it was (a rename there would put a file in its place).
  const Ran piped = runWeft(fmt::format("dram replay {} --dram ddr4-3200 --quiet --command-trace /dev/stdout", good));
  ASSERT_EQ(piped.code, 0) << piped.err;
  EXPECT_EQ(static_cast<size_t>(std::count(piped.out.begin(), piped.out.end(), '\n')), lines);
}

// Traces are large and often kept compressed: a pipe (`<(zcat t.trace.gz)`, /dev/stdin) replays
// as the file itself does, a large one (past the size the reader parses on a second thread) too.
TEST_F(DramTool, ATraceFromAPipeReplaysAsTheFileDoes) {
  for (const int n : {300, 70000}) {  // 70,000 lines: 1.4 MB
    std::string text;
    for (int i = 0; i < n; ++i) text += fmt::format("0x{:x} {} {}\n", (i * 7919 % n) * 64, i % 3 == 2 ? "WRITE" : "READ", i);
    const std::string trace = write("t.trace", text);
    const Ran fromFile = runWeft(fmt::format("dram replay {} --dram ddr4-3200 --json {}/file.json", trace, dir_));
    ASSERT_EQ(fromFile.code, 0) << fromFile.err;
    const Ran fromPipe =
        runWeft(fmt::format("dram replay /dev/stdin --dram ddr4-3200 --json {}/pipe.json", dir_), trace);
    ASSERT_EQ(fromPipe.code, 0) << fromPipe.err;
    nlohmann::json a = nlohmann::json::parse(std::ifstream(dir_ + "/file.json"));
    nlohmann::json b = nlohmann::json::parse(std::ifstream(dir_ + "/pipe.json"));
    EXPECT_EQ(a["transactions"], n);
    EXPECT_EQ(a, b);
  }
}

TEST_F(DramTool, BadInputExitsWith2AndWritesNothing) {
  const std::string good = write("good.trace", "0x0 READ 0\n0x40 WRITE 1\n");
  const std::string badLine = write("bad.trace", "0x0 READ 0\n0x40 WRIT 1\n");
  const std::string beyond = write("far.trace", "0x0 READ 0\n0xffffffffff READ 1\n");
  const std::string badIni = write("bad.ini", "[dram_structure]\nprotocol = DDR4\n");
  const struct {
    std::string args;
    const char* says;
  } cases[] = {
      {fmt::format("dram replay {} --dram ddr4-3200", badLine), "bad.trace:2: '0x40 WRIT 1'"},
      {fmt::format("dram replay {} --dram ddr4-3200", beyond), "far.trace:2"},
      {fmt::format("dram replay {} --dram ddr9-1", good), "neither a preset"},
      {fmt::format("dram replay {} --dram {}", good, badIni), "bad.ini: [dram_structure] bankgroups is missing"},
      {fmt::format("dram replay {}/none.trace --dram ddr4-3200", dir_), "none.trace: cannot open the trace: No such file"},
      {fmt::format("dram replay {} --dram ddr4-3200", dir_), "cannot open the trace: it is a directory"},
      // `weft dram` starts before the tool's restart; a bad global option still stops it.
      {fmt::format("--hw weft99 dram replay {} --dram ddr4-3200", good), "unknown hardware configuration 'weft99'"},
  };
  for (const auto& c : cases) {
    const Ran r = runWeft(c.args + fmt::format(" --json {}/out.json", dir_));
    EXPECT_EQ(r.code, 2) << c.args;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << "'" << c.says << "' not in: " << r.err;
    EXPECT_FALSE(exists("out.json")) << c.args;
  }
  // Where the JSON goes is checked before the replay (which may take minutes), not after it.
  const Ran r = runWeft(fmt::format("dram replay {} --dram ddr4-3200 --json {}/out.json", good, good));
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("good.trace exists and is not a directory"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
}


// The DRAM of a hardware configuration through `weft layers` (--hw and --backend are the tool's
// options, before the command): bad ones exit with 2 naming the field and the rule, writing nothing; a good one reports its counters per layer and writes its
// transactions with --dram-trace, which `weft dram replay` reads back.
TEST_F(DramTool, ABadDramConfigurationExitsWith2AndWritesNothing) {
  const std::string table =
      write("t.csv", "Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, Channels, Num Filter, Strides,\n"
                     "c1, 10, 10, 3, 3, 16, 16, 1,\n");
  const std::string badIni = write("bad.ini", "[dram_structure]\nprotocol = DDR4\n");
  const struct {
    std::string config;
    std::string extra;
    const char* says;
  } cases[] = {
      {R"({"base": "weft16", "params": {"Dram": "ddr9"}})", "", "Dram = \"ddr9\" is not one of"},
      {R"({"base": "weft16", "params": {"Dram": "lpddr4", "DramChannels": 1, "DramMiB": 2048}})", "",
       "DramMiB = 2048 exceeds the device's capacity of 1024 MiB"},
      {R"({"base": "weft16", "params": {"Dram": "hbm2", "DramChannels": 3}})", "", "DramChannels = 3 must be a power of two"},
      {R"({"base": "weft16", "params": {"Dram": "ini"}, "dram_ini": "bad.ini"})", "", "bad.ini: [dram_structure] bankgroups is missing"},
      {R"({"base": "weft16", "params": {"Dram": "ini"}})", "", "needs 'dram_ini'"},
      {R"({"base": "weft16"})", " --dram-trace " + dir_ + "/out.trace", "--dram-trace: the configuration's DRAM is the simple pipe"},
  };
  (void)badIni;
  for (const auto& c : cases) {
    const std::string hw = write("hw.json", c.config);
    const Ran r = runWeft(fmt::format("--hw {} --backend approx layers {} --quiet --json {}/out.json{}", hw, table, dir_, c.extra));
    EXPECT_EQ(r.code, 2) << c.config;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << "'" << c.says << "' not in: " << r.err;
    EXPECT_FALSE(exists("out.json")) << c.config;
    EXPECT_FALSE(exists("out.trace")) << c.config;
  }
}

TEST_F(DramTool, LayersReportTheDramAndWriteItsTrace) {
  const std::string table =
      write("t.csv", "Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, Channels, Num Filter, Strides,\n"
                     "c1, 10, 10, 3, 3, 16, 16, 1,\nc2, 8, 8, 1, 1, 32, 16, 1,\n");
  const Ran r = runWeft(fmt::format("--hw weft16-lpddr4 --backend approx layers {} --quiet --json {}/out.json --dram-trace {}/out.trace",
                                    table, dir_, dir_));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("DRAM (lpddr4-3200): "), std::string::npos) << r.out;  // the table's summary
  std::ifstream in(dir_ + "/out.json");
  const nlohmann::json j = nlohmann::json::parse(in);
  uint64_t reads = 0;
  for (const auto& l : j["layers"]) {
    const auto& c = l["counters"];
    ASSERT_TRUE(c.contains("DRAM_ROW_HITS")) << c.dump();
    EXPECT_GT(c["DRAM_READS"].get<uint64_t>(), 0u);
    EXPECT_EQ(c["DRAM_ROW_HITS"].get<uint64_t>() + c["DRAM_ROW_MISSES"].get<uint64_t>() +
                  c["DRAM_ROW_CONFLICTS"].get<uint64_t>() > 0, true);
    EXPECT_GT(c["DRAM_ENERGY_PJ"].get<uint64_t>(), 0u);
    // The energy report's DRAM share is the DRAM's own (from its commands), not per byte.
    EXPECT_DOUBLE_EQ(l["energy"]["dramPj"].get<double>(), static_cast<double>(c["DRAM_ENERGY_PJ"].get<uint64_t>()));
    reads += c["DRAM_READS"].get<uint64_t>();
  }
  // Every transaction is in the trace, which the replay reads as DRAMsim3's format.
  const Ran replay = runWeft(fmt::format("dram replay {}/out.trace --dram lpddr4-3200 --json {}/replay.json", dir_, dir_));
  ASSERT_EQ(replay.code, 0) << replay.err;
  std::ifstream rin(dir_ + "/replay.json");
  const nlohmann::json rj = nlohmann::json::parse(rin);
  EXPECT_GE(rj["reads"].get<uint64_t>(), reads);
}

// A network is one program: its DRAM counters come at the program's end, and each layer's are
// the DRAM's growth between the snapshots around it (the driver's checkpoints), its DRAM energy
// among them; what is left is outside every layer (tools/weft/DramCounters.h). Before, a
// network run on a cycle-level DRAM reported no DRAM energy at all, then a split of the total.
TEST_F(DramTool, NetworkRunsReportTheDramAndItsEnergy) {
  const std::string& net = twoLayerNet();
  const Ran r = runWeft(fmt::format("--hw weft16-lpddr4 --backend approx run {} --quiet --json {}/out.json", net, dir_));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("DRAM (lpddr4-3200): "), std::string::npos) << r.out;
  std::ifstream in(dir_ + "/out.json");
  const nlohmann::json j = nlohmann::json::parse(in);
  ASSERT_TRUE(j.contains("dram")) << j.dump();
  const auto& c = j["dram"]["counters"];
  const double total = static_cast<double>(c["DRAM_ENERGY_PJ"].get<uint64_t>());
  EXPECT_GT(total, 0);
  EXPECT_LT(c["DRAM_TIME_ENERGY_PJ"].get<uint64_t>(), c["DRAM_ENERGY_PJ"].get<uint64_t>());
  EXPECT_DOUBLE_EQ(j["acceleratorEnergy"]["dramPj"].get<double>(), total);
  double layers = 0;
  uint64_t readBytes = 0, layerReads = 0, layerActivates = 0;
  for (const auto& l : j["layers"]) {
    EXPECT_GT(l["energy"]["dramPj"].get<double>(), 0) << l.dump();
    layers += l["energy"]["dramPj"].get<double>();
    readBytes += l["dramReadBytes"].get<uint64_t>();
    ASSERT_TRUE(l.contains("dramCounters")) << l.dump();
    const auto& lc = l["dramCounters"];
    EXPECT_DOUBLE_EQ(l["energy"]["dramPj"].get<double>(), static_cast<double>(lc["DRAM_ENERGY_PJ"].get<uint64_t>()));
    EXPECT_EQ(l["dram"]["activates"].get<uint64_t>(), lc["DRAM_ACTIVATES"].get<uint64_t>());
    EXPECT_GT(lc["DRAM_READS"].get<uint64_t>() * 32, l["dramReadBytes"].get<uint64_t>() / 2) << l.dump();
    layerReads += lc["DRAM_READS"].get<uint64_t>();
    layerActivates += lc["DRAM_ACTIVATES"].get<uint64_t>();
  }
  const double outside = j["dram"]["outsideLayersPj"].get<double>();
  EXPECT_GT(outside, 0);  // the program's fetch before the first snapshot, the drain at its end
  EXPECT_LT(outside, 0.2 * total);
  EXPECT_NEAR(layers + outside, total, 1e-9 * total);
  EXPECT_LE(layerReads, c["DRAM_READS"].get<uint64_t>());
  EXPECT_GE(layerReads + 64, c["DRAM_READS"].get<uint64_t>()) << "only the program's first fetch is outside";
  EXPECT_LE(layerActivates, c["DRAM_ACTIVATES"].get<uint64_t>());
  EXPECT_GE(c["DRAM_READS"].get<uint64_t>() * 32, readBytes);  // 32-byte transactions
  const auto& figures = j["dram"]["figures"];
  EXPECT_GT(figures["rowHitPct"].get<double>(), 0);
  EXPECT_LE(figures["rowHitPct"].get<double>(), 100);
  EXPECT_EQ(figures["activates"].get<uint64_t>(), c["DRAM_ACTIVATES"].get<uint64_t>());
  EXPECT_DOUBLE_EQ(figures["readLatencyCycles"].get<double>(),
                   static_cast<double>(c["DRAM_READ_LATENCY_SUM"].get<uint64_t>()) /
                       static_cast<double>(c["DRAM_READS_DONE"].get<uint64_t>()));
  EXPECT_GE(figures["bankLevelParallelism"].get<double>(), 1);
  EXPECT_DOUBLE_EQ(figures["writeLatencyCycles"].get<double>(),
                   static_cast<double>(c["DRAM_WRITE_LATENCY_SUM"].get<uint64_t>()) /
                       static_cast<double>(c["DRAM_WRITE_COMMANDS"].get<uint64_t>()));

  // The simple pipe has no device: no DRAM section, per-byte energy.
  const Ran simple = runWeft(fmt::format("--hw weft16 --backend approx run {} --quiet --json {}/simple.json", net, dir_));
  ASSERT_EQ(simple.code, 0) << simple.err;
  std::ifstream sin(dir_ + "/simple.json");
  const nlohmann::json s = nlohmann::json::parse(sin);
  EXPECT_FALSE(s.contains("dram"));
  EXPECT_GT(s["acceleratorEnergy"]["dramPj"].get<double>(), 0);
}

// One process, several workloads on one device (`weft estimate` runs each network whole): each
// network's DRAM counters are its own. They were the device's since it was built, so the second
// network reported the first one's reads too and most of the DRAM energy "outside every layer".
TEST_F(DramTool, EachWorkloadOfAProcessHasItsOwnDramCounters) {
  std::ifstream netFile(twoLayerNet());
  const std::string text((std::istreambuf_iterator<char>(netFile)), std::istreambuf_iterator<char>());
  ASSERT_FALSE(text.empty());
  const std::string first = write("first.json", text), second = write("second.json", text);
  const Ran r = runWeft(fmt::format("--hw weft16-lpddr4 --backend approx estimate {} {} --quiet --work-dir {}/work", first,
                                    second, dir_));
  ASSERT_EQ(r.code, 0) << r.err;
  nlohmann::json j[2];
  for (int i = 0; i < 2; ++i) {
    std::ifstream in(fmt::format("{}/work/{}.json", dir_, i == 0 ? "first" : "second"));
    ASSERT_TRUE(in) << i;
    j[i] = nlohmann::json::parse(in);
    ASSERT_TRUE(j[i].contains("dram")) << i;
  }
  const auto& c0 = j[0]["dram"]["counters"];
  const auto& c1 = j[1]["dram"]["counters"];
  // The same network at the same addresses: the same transactions (the DRAM's state, open rows
  // and refresh phase, carries over as on a device, so cycles and hits may differ).
  EXPECT_EQ(c1["DRAM_READS"].get<uint64_t>(), c0["DRAM_READS"].get<uint64_t>());
  EXPECT_EQ(c1["DRAM_WRITES"].get<uint64_t>(), c0["DRAM_WRITES"].get<uint64_t>());
  for (const auto& one : j) {
    const double total = static_cast<double>(one["dram"]["counters"]["DRAM_ENERGY_PJ"].get<uint64_t>());
    EXPECT_LT(one["dram"]["outsideLayersPj"].get<double>(), 0.2 * total) << one["dram"].dump();
  }
}

// A transformer's head transposes at weft16-lpddr4: each LOAD reads 16 bytes of every head, then
// the next 16 bytes of each, so a dozen rows stay open across its walk. Priced at a row a request
// (the heads lie past a bank's row apart), ViT's `context.tokens` was estimated at 411,409
// cycles against a run of about 79,000 (+420 %); the placed walk's rows (walkRowOpens) bring
// both directions within about 12 %, and the writes that wait for room (CommandScheduler.cpp's
// Timeline) to +21 % (tokens) and +14 % (heads): the stores' 16-byte rows are priced as if the
// loads streamed, while these loads, one transaction a request, leave the channels room.
TEST_F(DramTool, HeadTransposesAreEstimatedFromTheRowsTheirWalkOpens) {
  const std::string net = write("transposes.json", R"({"name": "transposes", "description": "ViT's head transposes", "format": 3,
 "input": {"shape": [1, 12, 197, 64], "type": "TENSOR_QUANT8_ASYMM_SIGNED", "scale": 0.03125, "zeroPoint": 0, "seed": 7},
 "layers": [
  {"name": "tokens", "op": "TRANSPOSE", "perm": [0, 2, 1, 3], "output": {"scale": 0.03125, "zeroPoint": 0}},
  {"name": "heads", "op": "TRANSPOSE", "perm": [0, 2, 1, 3], "output": {"scale": 0.03125, "zeroPoint": 0}}]})");
  expectEstimatesWithin("--hw weft16-lpddr4 --backend approx", net, 2, 0.3);
}

// A STORE whose writes come while a LOAD's reads are being decided waits for them (both backends
// decide each read before the next request is offered). The program's schedule adds commands in
// program order, and a GELU's or a RESHAPE's next LOAD comes after the STORE it runs beside: the
// estimate had the STOREs run at once, -18 % and -13 % at weft16-hbm2 on BERT's shapes.
TEST_F(DramTool, StoresBesideALoadAreEstimatedBehindItsReads) {
  const std::string net = write("posted.json", R"({"name": "posted", "description": "element-wise layers", "format": 3,
 "input": {"shape": [1, 128, 3072], "type": "TENSOR_QUANT8_ASYMM_SIGNED", "scale": 0.038, "zeroPoint": 4, "seed": 1},
 "extraInputs": [{"name": "x768", "shape": [1, 128, 768], "type": "TENSOR_QUANT8_ASYMM_SIGNED", "scale": 0.07, "zeroPoint": 7, "seed": 2}],
 "layers": [
  {"name": "gelu", "op": "GELU", "output": {"scale": 0.0193, "zeroPoint": -118}},
  {"name": "split", "op": "RESHAPE", "inputs": ["x768"], "shape": [1, 128, 12, 64], "output": {"scale": 0.07, "zeroPoint": 7}}]})");
  expectEstimatesWithin("--hw weft16-hbm2 --backend timing", net, 2, 0.10);
}

// SqueezeNet's fire5/squeeze1x1 at weft16-lpddr4: each box's LOAD holds the last box's STOREs
// back (their writes wait for its reads), the next GEMM waits for a STORE to free its
// accumulators and the LOAD after that for the GEMM to free its input buffer. The estimate in
// program order left that chain out (-20 %); taken in time order it is in it (estimateTimeline).
// MobileNet's conv_dw_3 there: its LOADs are of many small requests, and a STORE beside one waits
// only for the reads in flight (MaxOutstanding requests), not for the whole LOAD (+17 % so).
TEST_F(DramTool, AStoreALoadHoldsBackDelaysWhatWaitsForIt) {
  const std::string layers = write("squeeze.json", R"({"format": 1, "name": "squeeze", "layers": [
 {"name": "fire5_squeeze", "op": "CONV_2D", "input": [1, 27, 27, 256], "filters": 32, "kernel": [1, 1], "activation": "RELU"},
 {"name": "conv_dw_3", "op": "DEPTHWISE_CONV_2D", "input": [1, 56, 56, 128], "kernel": [3, 3], "padding": "SAME", "activation": "RELU6"}]})");
  expectEstimatesWithin("--hw weft16-lpddr4 --backend timing", layers, 2, 0.10);
}

// BERT's fc2 at weft16-lpddr4 loads 256 bytes of each of 128 tokens, 3,072 bytes apart: each
// request opens its row (a conflict with the weights' rows), and is decided tRP + tRCD and seven
// bursts after it is offered (116 DRAM cycles). Priced as eight transactions at a stream's rate
// (which holds a stream's own row opens) plus the activate, 131: the layer was estimated +6.9 %
// over its run; net of what the activate covers (DramCost::openedRequestCredit), within 1 %.
TEST_F(DramTool, ARequestThatOpensItsRowIsPricedAsItsCommands) {
  const std::string layers = write("fc2.json", R"({"format": 1, "name": "fc2", "layers": [
 {"name": "fc2", "op": "FULLY_CONNECTED", "input": [128, 3072], "units": 768}]})");
  expectEstimatesWithin("--hw weft16-lpddr4 --backend timing", layers, 1, 0.03);
}

}  // namespace
}  // namespace weft::sim::dram
