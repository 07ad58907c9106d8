// --trace on `weft run` and `weft layers`: Chrome trace-event files whose device timeline comes
// from the hardware's counters and its per-command timelines (a track per unit, a slice per
// command), the same from the RTL and from the approx model.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "RunWeft.h"
#include "ToolTestPaths.h"

using weft::tool::test::sourceDir;
using weft::tool::test::testDir;

namespace {

using nlohmann::json;
using weft::tool::test::ProcessResult;
using weft::tool::test::runWeft;

std::string tempPath(const std::string& name) {
  return ::testing::TempDir() + "weft_trace_test_" + ::testing::UnitTest::GetInstance()->current_test_info()->name() +
         "_" + name;
}

json readJson(const std::string& path) {
  std::ifstream in(path);
  return json::parse(in);
}

// The events of the process named `prefix...`.
json processEvents(const json& trace, const std::string& prefix) {
  int pid = -1;
  for (const auto& e : trace["traceEvents"]) {
    if (e["ph"] == "M" && e["name"] == "process_name" &&
        e["args"]["name"].get<std::string>().rfind(prefix, 0) == 0) {
      pid = e["pid"];
    }
  }
  json events = json::array();
  for (const auto& e : trace["traceEvents"]) {
    if (e["pid"] == pid) events.push_back(e);
  }
  return events;
}

// The thread id of the track named `name` in `events` (-1 when there is none).
int trackId(const json& events, const std::string& name) {
  for (const auto& e : events) {
    if (e["ph"] == "M" && e["name"] == "thread_name" && e["args"]["name"] == name) return e["tid"];
  }
  return -1;
}

// The names of the slices on track `tid`.
std::multiset<std::string> sliceNames(const json& events, int tid) {
  std::multiset<std::string> names;
  for (const auto& e : events) {
    if (e["ph"] == "X" && e["tid"] == tid) names.insert(e["name"].get<std::string>());
  }
  return names;
}

// The regression layer set (25 layers: convolutions, fully connected, depthwise, pooling,
// element-wise, softmax...) on both backends at 8x8 and 16x16: identical device timelines,
// layer slices and every command's slice and counter event alike.
TEST(WeftTrace, RtlAndApproxGiveTheSameDeviceTimeline) {
  const std::string layers = sourceDir() + "/traces/validation/regression.json";
  for (const char* hw : {"weft8", "weft16"}) {
    SCOPED_TRACE(hw);
    json traces[2];
    int i = 0;
    for (const char* backend : {"rtl", "approx"}) {
      const std::string trace = tempPath(std::string(backend) + "_" + hw + ".json");
      const ProcessResult r =
          runWeft(std::string("--backend ") + backend + " --hw " + hw + " layers --quiet " + layers + " --json " +
                  tempPath(std::string(backend) + "_" + hw + "_report.json") + " --trace " + trace);
      ASSERT_EQ(r.exitCode, 0) << r.output;
      traces[i++] = readJson(trace);
    }
    const json rtl = processEvents(traces[0], "weft-accel"), approx = processEvents(traces[1], "weft-accel");
    EXPECT_EQ(sliceNames(rtl, trackId(rtl, "layers")).size(), 26u);
    // A track per unit, a slice per command named by its opcode, with its decoded fields.
    const std::multiset<std::string> load = sliceNames(rtl, trackId(rtl, "load (DMA in)")),
                                     compute = sliceNames(rtl, trackId(rtl, "compute (array)")),
                                     store = sliceNames(rtl, trackId(rtl, "store (post-processing, DMA out)")),
                                     vector = sliceNames(rtl, trackId(rtl, "vector")),
                                     control = sliceNames(rtl, trackId(rtl, "controller (decode, NOP, BARRIER)"));
    EXPECT_GT(load.count("load"), 0u);
    EXPECT_EQ(load.size(), load.count("load"));
    EXPECT_GT(compute.count("gemm"), 0u);
    EXPECT_EQ(compute.size(), compute.count("gemm"));
    EXPECT_GT(store.count("store"), 0u);
    EXPECT_EQ(store.size(), store.count("store"));
    EXPECT_GT(vector.count("window"), 0u);  // depthwise, pooling, mean
    EXPECT_GT(vector.count("eltwise"), 0u);
    EXPECT_GT(vector.count("softmax"), 0u);
    // The controller holds every command while it decodes it: one slice each.
    EXPECT_EQ(control.size(), load.size() + compute.size() + store.size() + vector.size() + control.count("barrier") +
                                  control.count("nop"));
    EXPECT_GE(control.count("barrier"), 50u);  // each layer's program opens and closes with a snapshot
    std::set<std::string> counters;
    const int computeTrack = trackId(rtl, "compute (array)");
    for (const auto& e : rtl) {
      if (e["ph"] == "C") counters.insert(e["name"].get<std::string>());
      if (e["ph"] == "X" && e["tid"] == computeTrack) {
        EXPECT_TRUE(e["args"]["fields"].contains("k_rows")) << e.dump();
        EXPECT_GE(e["args"]["complete"].get<uint64_t>(), e["args"]["start"].get<uint64_t>());
      }
    }
    for (const char* c : {"command FIFO entries", "token queue tokens", "DMA bytes of running commands",
                          "DRAM bytes in flight", "DRAM requests in flight"}) {
      EXPECT_TRUE(counters.count(c)) << c;
    }
    ASSERT_EQ(rtl.size(), approx.size());
    for (size_t e = 0; e < rtl.size(); ++e) ASSERT_EQ(rtl[e], approx[e]) << "event " << e;
    EXPECT_EQ(traces[0]["otherData"]["backend"], "rtl");
    EXPECT_EQ(traces[1]["otherData"]["backend"], "approx");
  }
}

TEST(WeftTrace, RunTraceLaysTheAcceleratorLayersEndToEnd) {
  const std::string trace = tempPath("run.json"), report = tempPath("report.json");
  const ProcessResult r = runWeft("--backend approx --hw weft8 run --quiet " + testDir() +
                                  "/small_net.json --json " + report + " --csv " + tempPath("report.csv") +
                                  " --trace " + trace);
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_NE(r.output.find("trace written to " + trace), std::string::npos) << r.output;
  const json t = readJson(trace), rep = readJson(report);
  EXPECT_EQ(t["displayTimeUnit"], "ns");
  const json device = processEvents(t, "weft-accel: small_net");
  ASSERT_FALSE(device.empty());
  std::set<std::string> counters;
  double end = 0;
  size_t slices = 0;
  uint64_t cycles = 0;
  const int layers = trackId(device, "layers");
  for (const auto& e : device) {
    if (e["ph"] == "C") counters.insert(e["name"].get<std::string>());
    if (e["ph"] != "X" || e["tid"] != layers) continue;
    ++slices;
    EXPECT_DOUBLE_EQ(e["ts"].get<double>(), end) << e["name"];  // end to end, in order
    const uint64_t c = e["args"]["cycles"];
    EXPECT_NEAR(e["dur"].get<double>(), c / rep["hw"]["clockMHz"].get<double>(), 1e-9);
    end += e["dur"].get<double>();
    cycles += c;
  }
  size_t accelerated = 0;
  uint64_t reported = 0;
  for (const auto& l : rep["layers"]) {
    accelerated += l["cycles"].get<uint64_t>() > 0 ? 1 : 0;
    reported += l["cycles"].get<uint64_t>();
  }
  EXPECT_EQ(slices, accelerated);
  EXPECT_EQ(cycles, reported);
  EXPECT_EQ(counters, (std::set<std::string>{"unit busy %", "DRAM stall %", "DRAM bytes/cycle", "command FIFO entries",
                                             "token queue tokens", "DMA bytes of running commands",
                                             "DRAM bytes in flight", "DRAM requests in flight"}));
  // The host side: the NNAPI calls, the compilation's partitioning and device steps, the
  // simulator's time and the reference run, each on its track.
  std::set<std::string> threads;
  const json host = processEvents(t, "host");
  for (const auto& e : host) {
    if (e["ph"] == "M" && e["name"] == "thread_name") threads.insert(e["args"]["name"].get<std::string>());
  }
  EXPECT_EQ(threads, (std::set<std::string>{"NNAPI calls", "compilation", "simulation", "reference"}));
  std::set<std::string> calls;
  for (const auto& e : host) {
    if (e["ph"] == "X" && e["name"].get<std::string>().rfind("ANeuralNetworks", 0) == 0) calls.insert(e["name"]);
  }
  EXPECT_TRUE(calls.count("ANeuralNetworksExecution_compute (accelerated)"));
  EXPECT_TRUE(calls.count("ANeuralNetworksCompilation_create/finish (accelerated)"));
}

// A whole network in one execution: the same command timelines from both backends, and every
// unit's slices inside the device timeline the layers span.
TEST(WeftTrace, RunTraceIsTheSameOnBothBackends) {
  json device[2];
  for (int b = 0; b < 2; ++b) {
    const std::string backend = b == 0 ? "rtl" : "approx";
    const std::string trace = tempPath(backend + ".json");
    const ProcessResult r = runWeft("--backend " + backend + " --hw weft8 run --quiet " + testDir() +
                                    "/small_net.json --json " + tempPath(backend + "_report.json") + " --csv " +
                                    tempPath(backend + "_report.csv") + " --trace " + trace);
    ASSERT_EQ(r.exitCode, 0) << r.output;
    device[b] = processEvents(readJson(trace), "weft-accel: small_net");
  }
  ASSERT_EQ(device[0].size(), device[1].size());
  for (size_t e = 0; e < device[0].size(); ++e) ASSERT_EQ(device[0][e], device[1][e]) << "event " << e;
  const int layers = trackId(device[0], "layers"), compute = trackId(device[0], "compute (array)");
  double end = 0;
  for (const auto& e : device[0]) {
    if (e["ph"] == "X" && e["tid"] == layers) end = std::max(end, e["ts"].get<double>() + e["dur"].get<double>());
  }
  size_t gemms = 0;
  for (const auto& e : device[0]) {
    if (e["ph"] != "X" || e["tid"] != compute) continue;
    ++gemms;
    EXPECT_GE(e["ts"].get<double>(), 0.0);
    EXPECT_LE(e["ts"].get<double>() + e["dur"].get<double>(), end + 1e-9);
  }
  EXPECT_GT(gemms, 0u);
}

}  // namespace

namespace {

// A trace of a table keeps the first --trace-limit commands on the per-command tracks, says so
// in its metadata and on stderr, and still shows every layer on the layers track; without a
// limit reached it says nothing.
TEST(WeftTrace, TheTraceLimitKeepsTheFirstCommandsAndSaysSo) {
  const std::string table = testDir() + "/scalesim/tiny.csv";
  auto commandSlices = [](const json& device) {
    size_t n = 0;
    for (const char* track : {"load (DMA in)", "compute (array)", "store (post-processing, DMA out)", "vector"}) {
      n += sliceNames(device, trackId(device, track)).size();
    }
    return n;
  };
  const std::string whole = tempPath("whole.json"), cut = tempPath("cut.json");
  const ProcessResult all = runWeft("--backend approx --hw weft8 layers " + table + " --quiet --json " +
                                    tempPath("a.json") + " --trace " + whole);
  ASSERT_EQ(all.exitCode, 0) << all.output;
  EXPECT_EQ(all.output.find("--trace-limit"), std::string::npos) << all.output;
  const json wholeDevice = processEvents(readJson(whole), "weft-accel");
  const size_t total = commandSlices(wholeDevice);
  ASSERT_GT(total, 200u);
  EXPECT_FALSE(readJson(whole)["otherData"].contains("commandsTruncated"));

  const ProcessResult some = runWeft("--backend approx --hw weft8 layers " + table + " --quiet --json " +
                                     tempPath("b.json") + " --trace " + cut + " --trace-limit 100");
  ASSERT_EQ(some.exitCode, 0) << some.output;
  EXPECT_NE(some.output.find("the trace shows the first 100 commands (--trace-limit)"), std::string::npos)
      << some.output;
  const json trace = readJson(cut);
  EXPECT_TRUE(trace["otherData"].contains("commandsTruncated"));
  const json device = processEvents(trace, "weft-accel");
  EXPECT_LE(commandSlices(device), 100u);
  EXPECT_GT(commandSlices(device), 50u);
  EXPECT_EQ(sliceNames(device, trackId(device, "layers")).size(), 3u) << "every layer stays on the layers track";
}

}  // namespace

namespace {

// `weft run --trace-limit` cuts the command tracks the same way, and keeps every layer.
TEST(WeftTrace, RunTraceLimitKeepsTheFirstCommands) {
  const std::string path = tempPath("run.json");
  const ProcessResult r = runWeft("--backend approx --hw weft8 run " + testDir() +
                                  "/small_net.json --quiet --json " + tempPath("report.json") + " --trace " + path +
                                  " --trace-limit 40");
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_NE(r.output.find("the trace shows the first 40 commands (--trace-limit)"), std::string::npos) << r.output;
  const json trace = readJson(path);
  EXPECT_TRUE(trace["otherData"].contains("commandsTruncated"));
  const json device = processEvents(trace, "weft-accel");
  size_t slices = 0;
  for (const char* track : {"load (DMA in)", "compute (array)", "store (post-processing, DMA out)", "vector"}) {
    slices += sliceNames(device, trackId(device, track)).size();
  }
  EXPECT_GT(slices, 0u);
  EXPECT_LE(slices, 40u);
  EXPECT_FALSE(sliceNames(device, trackId(device, "layers")).empty());
}

}  // namespace

namespace {

// The slices of every "DRAM channel N" track: (track name, slice), in file order.
std::vector<std::pair<std::string, json>> dramCommandSlices(const json& device) {
  std::map<int, std::string> tracks;
  for (const auto& e : device) {
    if (e["ph"] == "M" && e["name"] == "thread_name" &&
        e["args"]["name"].get<std::string>().rfind("DRAM channel ", 0) == 0) {
      tracks[e["tid"].get<int>()] = e["args"]["name"];
    }
  }
  std::vector<std::pair<std::string, json>> slices;
  for (const auto& e : device) {
    if (e["ph"] != "X") continue;
    auto it = tracks.find(e["tid"].get<int>());
    if (it != tracks.end()) slices.emplace_back(it->second, e);
  }
  return slices;
}

// With a cycle-level DRAM the device timeline has a track per DRAM channel with a slice per
// command: the commands the DRAM counted (its activates, precharges, refreshes and write
// commands are the report's DRAM counters), one DRAM clock long and never overlapping on a
// channel, with their bank and row; the same from the RTL and the approx model. The simple
// pipe has no such tracks, and --trace-limit bounds them too.
TEST(WeftTrace, CycleLevelDramCommandsHaveTrackPerChannel) {
  const std::string net = testDir() + "/two_layer_net.json";
  std::vector<std::pair<std::string, json>> slices[2];
  json layerDram[2];  // each layer's DRAM counters (its snapshots' checkpoints), per backend
  int i = 0;
  for (const char* backend : {"rtl", "approx"}) {
    SCOPED_TRACE(backend);
    const std::string trace = tempPath(std::string(backend) + ".json");
    const std::string report = tempPath(std::string(backend) + "_report.json");
    const ProcessResult r = runWeft(std::string("--backend ") + backend + " --hw weft16-lpddr4 run " + net +
                                    " --quiet --json " + report + " --trace " + trace);
    ASSERT_EQ(r.exitCode, 0) << r.output;
    slices[i] = dramCommandSlices(processEvents(readJson(trace), "weft-accel"));
    ASSERT_FALSE(slices[i].empty());
    std::map<std::string, uint64_t> kinds;
    std::map<std::string, double> channelFreeAt;
    std::set<std::string> channels;
    for (const auto& [track, s] : slices[i]) {
      const std::string name = s["name"];
      ++kinds[name];
      channels.insert(track);
      EXPECT_TRUE(s["args"].contains("bank") && s["args"].contains("rank") && s["args"].contains("dramCycle")) << s;
      if (name == "ACT" || name == "RD" || name == "WR") EXPECT_TRUE(s["args"].contains("row")) << s;
      if (name == "RD" || name == "WR") EXPECT_TRUE(s["args"].contains("address")) << s;
      // One DRAM clock: LPDDR4-3200's 0.625 ns.
      EXPECT_NEAR(s["dur"].get<double>(), 0.000625, 1e-9) << s;
      const double ts = s["ts"].get<double>();
      auto [free, added] = channelFreeAt.emplace(track, ts);
      EXPECT_GE(ts, free->second - 1e-9) << "overlapping commands on " << track << ": " << s;
      free->second = ts + s["dur"].get<double>();
    }
    EXPECT_EQ(channels.size(), 4u) << "LPDDR4-3200's four channels";
    for (const auto& [name, n] : kinds) {
      EXPECT_TRUE(std::set<std::string>({"ACT", "PRE", "RD", "WR", "RDA", "WRA", "REF", "REFb"}).count(name)) << name;
    }
    const json counters = readJson(report)["dram"]["counters"];
    EXPECT_EQ(kinds["ACT"], counters["DRAM_ACTIVATES"].get<uint64_t>());
    EXPECT_EQ(kinds["PRE"], counters["DRAM_PRECHARGES"].get<uint64_t>());
    EXPECT_EQ(kinds["REF"] + kinds["REFb"], counters["DRAM_REFRESHES"].get<uint64_t>());
    EXPECT_EQ(kinds["WR"] + kinds["WRA"], counters["DRAM_WRITE_COMMANDS"].get<uint64_t>());
    EXPECT_GT(kinds["RD"] + kinds["RDA"], 0u);
    EXPECT_LE(kinds["RD"] + kinds["RDA"], counters["DRAM_READS"].get<uint64_t>());
    layerDram[i] = json::array();
    const json ran = readJson(report);
    for (const auto& l : ran["layers"]) {
      if (l.contains("dramCounters")) layerDram[i].push_back(l["dramCounters"]);
    }
    EXPECT_FALSE(layerDram[i].empty());
    ++i;
  }
  EXPECT_EQ(layerDram[0], layerDram[1]) << "each layer's DRAM counters, RTL against approx";
  ASSERT_EQ(slices[0].size(), slices[1].size());
  for (size_t k = 0; k < slices[0].size(); ++k) {
    ASSERT_EQ(slices[0][k].first, slices[1][k].first) << k;
    ASSERT_EQ(slices[0][k].second, slices[1][k].second) << k;
  }

  // The simple pipe: no DRAM command tracks.
  const std::string simple = tempPath("simple.json");
  const ProcessResult s = runWeft("--backend approx --hw weft16 run " + net + " --quiet --json " +
                                  tempPath("simple_report.json") + " --trace " + simple);
  ASSERT_EQ(s.exitCode, 0) << s.output;
  EXPECT_TRUE(dramCommandSlices(processEvents(readJson(simple), "weft-accel")).empty());

  // --trace-limit: at most that many DRAM commands, the first ones, and it says so.
  const std::string cut = tempPath("cut.json");
  const ProcessResult c = runWeft("--backend approx --hw weft16-lpddr4 run " + net + " --quiet --json " +
                                  tempPath("cut_report.json") + " --trace " + cut + " --trace-limit 100");
  ASSERT_EQ(c.exitCode, 0) << c.output;
  const auto kept = dramCommandSlices(processEvents(readJson(cut), "weft-accel"));
  EXPECT_NE(c.output.find(fmt::format("and {} DRAM commands (--trace-limit)", kept.size())), std::string::npos)
      << c.output;
  ASSERT_GT(kept.size(), 0u);
  ASSERT_LE(kept.size(), 100u);
  std::vector<double> all, first;
  for (const auto& [track, e] : slices[1]) all.push_back(e["ts"].get<double>());
  for (const auto& [track, e] : kept) first.push_back(e["ts"].get<double>());
  std::sort(all.begin(), all.end());
  std::sort(first.begin(), first.end());
  all.resize(first.size());
  EXPECT_EQ(first, all) << "the first commands in time";
}

}  // namespace
