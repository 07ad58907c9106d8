// --trace on `weft run` and `weft layers`: Chrome trace-event files whose device timeline comes
// from the hardware's counters, the same from the RTL and from the approx model.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "RunWeft.h"

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

// The regression layer set (25 layers at 8x8) on both backends: identical device timelines.
TEST(WeftTrace, RtlAndApproxGiveTheSameDeviceTimeline) {
  const std::string layers = std::string(WEFT_SOURCE_DIR) + "/traces/validation/regression.json";
  json traces[2];
  int i = 0;
  for (const char* backend : {"rtl", "approx"}) {
    const std::string trace = tempPath(std::string(backend) + ".json");
    const ProcessResult r = runWeft(std::string("--backend ") + backend + " --hw weft8 layers --quiet " + layers +
                                    " --json " + tempPath(std::string(backend) + "_report.json") + " --trace " + trace);
    ASSERT_EQ(r.exitCode, 0) << r.output;
    traces[i++] = readJson(trace);
  }
  const json rtl = processEvents(traces[0], "weft-accel"), approx = processEvents(traces[1], "weft-accel");
  size_t slices = 0;
  for (const auto& e : rtl) slices += e["ph"] == "X" ? 1 : 0;
  EXPECT_EQ(slices, 25u);
  EXPECT_EQ(rtl, approx);
  EXPECT_EQ(traces[0]["otherData"]["backend"], "rtl");
  EXPECT_EQ(traces[1]["otherData"]["backend"], "approx");
}

TEST(WeftTrace, RunTraceLaysTheAcceleratorLayersEndToEnd) {
  const std::string trace = tempPath("run.json"), report = tempPath("report.json");
  const ProcessResult r = runWeft("--backend approx --hw weft8 run --quiet " + std::string(WEFT_TEST_DIR) +
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
  for (const auto& e : device) {
    if (e["ph"] == "C") counters.insert(e["name"].get<std::string>());
    if (e["ph"] != "X") continue;
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
  EXPECT_EQ(counters, (std::set<std::string>{"unit busy %", "DRAM stall %", "DRAM bytes/cycle"}));
  // The host side: compiling, the accelerated run and the reference run, each on its track.
  std::set<std::string> threads;
  for (const auto& e : processEvents(t, "host")) {
    if (e["ph"] == "M" && e["name"] == "thread_name") threads.insert(e["args"]["name"].get<std::string>());
  }
  EXPECT_EQ(threads, (std::set<std::string>{"compilation", "execution", "reference"}));
}

}  // namespace
