// `weft sweep` as a user runs it: a small grid on the approx backend over a tiny SCALE-Sim
// table, resuming after a kill, shards merged by --collect, failing points recorded, and bad
// specifications refused before anything is written.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "OnnxTestGraph.h"
#include "RunWeft.h"
#include "weft/common/files.h"

namespace {

namespace fs = std::filesystem;
using weft::tool::test::ProcessResult;
using weft::tool::test::runWeft;

std::string tempPath(const std::string& name) { return ::testing::TempDir() + "weft_sweep_test_" + name; }

std::string readFile(const std::string& path) { return weft::common::readFile(path).value_or(""); }

std::vector<std::vector<std::string>> readCsv(const std::string& path) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream in(readFile(path));
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::string cell;
    std::istringstream l(line);
    while (std::getline(l, cell, ',')) cells.push_back(cell);
    if (!line.empty() && line.back() == ',') cells.emplace_back();
    rows.push_back(cells);
  }
  return rows;
}

// One JSON object a line (results.jsonl).
std::vector<nlohmann::json> readJsonLines(const std::string& path) {
  std::vector<nlohmann::json> objects;
  std::istringstream in(readFile(path));
  std::string line;
  while (std::getline(in, line)) objects.push_back(nlohmann::json::parse(line));
  return objects;
}

// A spec in a fresh directory, beside a tiny SCALE-Sim table it names by a relative path.
std::string writeSpec(const std::string& name, const std::string& spec) {
  const std::string dir = tempPath(name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir + "/tiny.csv") << "Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, Channels, "
                                      "Num Filter, Strides,\nC1, 12, 10, 3, 3, 3, 8, 2,\nC2, 8, 8, 3, 3, 16, 20, 1,\n";
  std::ofstream(dir + "/spec.json") << spec;
  return dir + "/spec.json";
}

const char* kGrid = R"({"base": "weft16", "grid": {"Rows": [8, 16], "Cols": [8, 16]}, "workloads": ["tiny.csv"],
                        "backend": "approx"})";

TEST(WeftSweep, SmallGridGivesARowPerPointWorkloadAndLayerPlusTotals) {
  const std::string spec = writeSpec("grid", kGrid), out = tempPath("grid_out");
  fs::remove_all(out);
  const ProcessResult r = runWeft("sweep " + spec + " --out " + out + " --jobs 2");
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_NE(r.output.find("[4/4]"), std::string::npos) << r.output;  // progress
  const auto rows = readCsv(out + "/results.csv");
  ASSERT_EQ(rows.size(), 1u + 4 * 3);
  const std::vector<std::string> header = {"point", "Rows", "Cols", "backend", "workload", "layer", "unit", "status",
                                           "cycles", "on_hw_ns", "util_pct", "dram_read_bytes", "dram_write_bytes",
                                           "energy_pj", "area_um2", "dram_row_hit_pct", "dram_activates",
                                           "dram_refreshes", "dram_read_latency_cycles", "dram_write_latency_cycles",
                                           "dram_bank_parallelism", "error"};
  EXPECT_EQ(rows[0], header);
  // Grid order: the first key varies slowest; every point's total adds up its layers.
  const std::vector<std::string> points = {"Rows8-Cols8", "Rows8-Cols16", "Rows16-Cols8", "Rows16-Cols16"};
  for (size_t p = 0; p < 4; ++p) {
    const auto& c1 = rows[1 + 3 * p];
    const auto& c2 = rows[2 + 3 * p];
    const auto& total = rows[3 + 3 * p];
    EXPECT_EQ(c1[0], points[p]);
    EXPECT_EQ(c1[1], points[p].substr(4, points[p].find('-') - 4));
    EXPECT_EQ(c1[3], "approx");
    EXPECT_EQ(c1[4], "tiny");
    EXPECT_EQ(c1[5], "C1");
    EXPECT_EQ(c2[5], "C2");
    EXPECT_EQ(total[5], "total");
    for (const auto* row : {&c1, &c2, &total}) EXPECT_EQ((*row)[7], "ok");
    for (size_t col : {8u, 9u, 11u, 12u}) {
      EXPECT_EQ(std::stoull(total[col]), std::stoull(c1[col]) + std::stoull(c2[col])) << header[col];
    }
    EXPECT_GT(std::stod(total[13]), 0);
    EXPECT_EQ(c1[14], total[14]);  // the configuration's area
  }
  // A bigger array costs more area and runs the table in fewer cycles.
  EXPECT_GT(std::stod(rows[12][14]), std::stod(rows[3][14]));
  EXPECT_LT(std::stoull(rows[12][8]), std::stoull(rows[3][8]));

  // The same figures as `weft layers` on that point's configuration alone.
  const std::string json = tempPath("grid_check.json");
  ASSERT_EQ(runWeft("--backend approx --hw " + out + "/work/Rows16-Cols8/hw.json layers --quiet " +
                    fs::path(spec).parent_path().string() + "/tiny.csv --json " + json)
                .exitCode,
            0);
  const auto alone = nlohmann::json::parse(readFile(json));
  EXPECT_EQ(std::to_string(alone["layers"][1]["cycles"].get<uint64_t>()), rows[8][8]);

  // results.jsonl holds the same rows.
  const auto objects = readJsonLines(out + "/results.jsonl");
  size_t n = 0;
  for (const auto& j : objects) {
    ++n;
    EXPECT_EQ(j["point"], rows[n][0]);
    EXPECT_EQ(std::to_string(j["Rows"].get<int>()), rows[n][1]);
    EXPECT_EQ(std::to_string(j["cycles"].get<uint64_t>()), rows[n][8]);
    EXPECT_EQ(j["layer"], rows[n][5]);
  }
  EXPECT_EQ(n, rows.size() - 1);
}

// An enumerated parameter is swept by its value names, and every output writes the names: the
// point ids, plan.json, the point files, the configurations the points run and both result tables.
TEST(WeftSweep, EnumeratedParameterIsSweptAndReportedByName) {
  const std::string spec = writeSpec("dataflow", R"({"base": "weft8", "grid": {"Dataflow": ["WS", "OS"], "Rows": [8, 16]},
                                                     "points": [{"Dataflow": "OS", "Rows": 4}],
                                                     "workloads": ["tiny.csv"], "backend": "approx"})");
  const std::string out = tempPath("dataflow_out");
  fs::remove_all(out);
  const ProcessResult r = runWeft("sweep --quiet " + spec + " --out " + out);
  ASSERT_EQ(r.exitCode, 0) << r.output;

  // The grid (its first key slowest), then the listed point; ids in params.json order.
  const std::vector<std::string> ids = {"Rows8-DataflowWS", "Rows16-DataflowWS", "Rows8-DataflowOS",
                                        "Rows16-DataflowOS", "Rows4-DataflowOS"};
  const auto plan = nlohmann::json::parse(readFile(out + "/plan.json"));
  ASSERT_EQ(plan["points"].size(), ids.size());
  EXPECT_EQ(plan["swept"], nlohmann::json::array({"Rows", "Dataflow"}));
  for (size_t i = 0; i < ids.size(); ++i) {
    const auto& p = plan["points"][i];
    EXPECT_EQ(p["id"], ids[i]);
    const std::string dataflow = i < 2 ? "WS" : "OS";
    EXPECT_EQ(p["values"]["Dataflow"], dataflow);
    EXPECT_EQ(p["config"]["params"]["Dataflow"], dataflow);
    EXPECT_EQ(nlohmann::json::parse(readFile(out + "/work/" + ids[i] + "/hw.json"))["params"]["Dataflow"], dataflow);
    EXPECT_EQ(nlohmann::json::parse(readFile(out + "/points/" + ids[i] + ".json"))["params"]["Dataflow"], dataflow);
  }

  const auto rows = readCsv(out + "/results.csv");
  ASSERT_EQ(rows.size(), 1u + ids.size() * 3);
  EXPECT_EQ(rows[0][1], "Rows");
  EXPECT_EQ(rows[0][2], "Dataflow");
  for (size_t p = 0; p < ids.size(); ++p) {
    for (size_t l = 0; l < 3; ++l) {
      const auto& row = rows[1 + 3 * p + l];
      EXPECT_EQ(row[0], ids[p]);
      EXPECT_EQ(row[2], p < 2 ? "WS" : "OS") << row[0];
      EXPECT_EQ(row[7], "ok") << row[0];
    }
  }
  const auto objects = readJsonLines(out + "/results.jsonl");
  size_t n = 0;
  for (const auto& j : objects) {
    ++n;
    EXPECT_TRUE(j["Dataflow"].is_string()) << j.dump();
    EXPECT_EQ(j["Dataflow"], rows[n][2]);
    EXPECT_TRUE(j["Rows"].is_number_integer()) << j.dump();
  }
  EXPECT_EQ(n, rows.size() - 1);

  // --collect reads plan.json's names back into the same table.
  fs::remove(out + "/results.csv");
  const std::string before = readFile(out + "/results.jsonl");
  ASSERT_EQ(runWeft("sweep --collect --out " + out).exitCode, 0);
  EXPECT_EQ(readCsv(out + "/results.csv"), rows);
  EXPECT_EQ(readFile(out + "/results.jsonl"), before);
}

// A cycle-level DRAM's figures in the table: each layer's (a network's from the checkpoints at
// its snapshots), the execution's on a network's total row, nothing for the simple pipe.
TEST(WeftSweep, CycleLevelDramFiguresAreInTheTable) {
  const std::string spec = writeSpec("dram", R"({"base": "weft16", "grid": {"Dram": ["simple", "lpddr4"]},
                                                 "workloads": ["tiny.csv", "net.json"], "backend": "approx"})");
  fs::copy_file(weft::tool::test::testDir() + "/two_layer_net.json", fs::path(spec).parent_path() / "net.json");
  const std::string out = tempPath("dram_out");
  fs::remove_all(out);
  const ProcessResult r = runWeft("sweep --quiet " + spec + " --out " + out, "WEFT_YOSYS=none");
  ASSERT_EQ(r.exitCode, 0) << r.output;
  const auto rows = readCsv(out + "/results.csv");
  ASSERT_GT(rows.size(), 1u);
  std::map<std::string, size_t> col;
  for (size_t i = 0; i < rows[0].size(); ++i) col[rows[0][i]] = i;
  const std::vector<std::string> figures = {"dram_row_hit_pct", "dram_activates", "dram_refreshes",
                                            "dram_read_latency_cycles", "dram_write_latency_cycles",
                                            "dram_bank_parallelism"};
  for (const auto& name : figures) ASSERT_TRUE(col.count(name)) << name;
  uint64_t layerActivates = 0;
  size_t seen = 0;
  for (size_t i = 1; i < rows.size(); ++i) {
    const auto& row = rows[i];
    ASSERT_EQ(row[col["status"]], "ok") << row[0];
    const bool cycleLevel = row[col["Dram"]] == "lpddr4";
    const bool networkLayer = row[col["workload"]] == "two_layer_net" && row[col["layer"]] != "total";
    for (const auto& name : figures) {
      if (!cycleLevel) {
        EXPECT_EQ(row[col[name]], "") << row[0] << " " << row[col["layer"]] << " " << name;
        continue;
      }
      ++seen;
      EXPECT_NE(row[col[name]], "") << row[0] << " " << row[col["layer"]] << " " << name;
    }
    if (!cycleLevel || networkLayer || row[col["workload"]] != "tiny") continue;
    const double hits = std::stod(row[col["dram_row_hit_pct"]]);
    EXPECT_GT(hits, 0);
    EXPECT_LE(hits, 100);
    EXPECT_GT(std::stod(row[col["dram_read_latency_cycles"]]), 0);
    EXPECT_GE(std::stod(row[col["dram_bank_parallelism"]]), 1);
    // The table's total: the layers' counters summed.
    if (row[col["layer"]] == "total") {
      EXPECT_EQ(std::stoull(row[col["dram_activates"]]), layerActivates);
    } else {
      layerActivates += std::stoull(row[col["dram_activates"]]);
    }
  }
  EXPECT_EQ(seen, figures.size() * 6);  // tiny's two layers and total, the network's two layers and total
  EXPECT_GT(layerActivates, 0u);
}

// Killed and rerun with the same arguments: finished points are skipped, lost or half-written
// ones run again, and the results are the same bytes. A fresh sweep gives them too.
TEST(WeftSweep, ResumesAfterAKillWithTheSameResults) {
  const std::string spec = writeSpec("resume", kGrid), out = tempPath("resume_out");
  fs::remove_all(out);
  ASSERT_EQ(runWeft("sweep --quiet " + spec + " --out " + out).exitCode, 0);
  const std::string first = readFile(out + "/results.csv");
  const std::string firstJsonl = readFile(out + "/results.jsonl");

  // What a kill leaves: a point never written, another's temporary file cut short, no merge.
  fs::remove(out + "/points/Rows8-Cols16.json");
  std::ofstream(out + "/points/Rows16-Cols8.json.tmp.1.2") << R"({"id": "Rows16-Co)";
  fs::remove(out + "/points/Rows16-Cols8.json");
  fs::remove(out + "/results.csv");
  fs::remove(out + "/results.jsonl");
  const ProcessResult r = runWeft("sweep " + spec + " --out " + out + " --jobs 1");
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_NE(r.output.find("2 already done"), std::string::npos) << r.output;
  EXPECT_EQ(readFile(out + "/results.csv"), first);
  EXPECT_EQ(readFile(out + "/results.jsonl"), firstJsonl);

  // Nothing left to do: a rerun runs no point.
  const ProcessResult again = runWeft("sweep " + spec + " --out " + out);
  EXPECT_NE(again.output.find("4 already done"), std::string::npos) << again.output;
  EXPECT_EQ(again.output.find("[1/4]"), std::string::npos) << again.output;

  const std::string fresh = tempPath("resume_fresh");
  fs::remove_all(fresh);
  ASSERT_EQ(runWeft("sweep --quiet " + spec + " --out " + fresh + " --jobs 1").exitCode, 0);
  EXPECT_EQ(readFile(fresh + "/results.csv"), first);
}

// A changed energy model changes the fingerprint: the points run again.
TEST(WeftSweep, AChangedEnergyModelRunsThePointsAgain) {
  const std::string spec = writeSpec("refingerprint", R"({"grid": {"Rows": [8]}, "workloads": ["tiny.csv"]})");
  const std::string out = tempPath("refingerprint_out"), model = tempPath("dram_free.json");
  fs::remove_all(out);
  ASSERT_EQ(runWeft("sweep --quiet " + spec + " --out " + out).exitCode, 0);
  std::ofstream(model) << R"({"dramPjPerByte": 0})";
  const ProcessResult r = runWeft("sweep " + spec + " --out " + out + " --energy-model " + model);
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_NE(r.output.find("0 already done"), std::string::npos) << r.output;
  const auto point = nlohmann::json::parse(readFile(out + "/points/Rows8.json"));
  const auto& total = point["workloads"][0]["rows"].back();
  EXPECT_EQ(total["layer"], "total");
  EXPECT_GT(total["dramReadBytes"].get<uint64_t>(), 0u);
  const auto report = nlohmann::json::parse(readFile(out + "/work/Rows8/tiny.json"));
  EXPECT_EQ(report["energy"]["dramPj"].get<double>(), 0);
}

// Shards (the tasks of a Slurm job array) each run their points; --collect merges them into
// the same table as one local sweep.
TEST(WeftSweep, ShardsMergedByCollectGiveTheLocalResults) {
  const std::string spec = writeSpec("shards", kGrid), local = tempPath("shards_local"), out = tempPath("shards_out");
  fs::remove_all(local);
  fs::remove_all(out);
  ASSERT_EQ(runWeft("sweep --quiet " + spec + " --out " + local).exitCode, 0);
  ASSERT_EQ(runWeft("sweep --quiet " + spec + " --out " + out + " --shard 1/3").exitCode, 0);
  EXPECT_FALSE(fs::exists(out + "/results.csv"));  // a shard does not merge
  const ProcessResult early = runWeft("sweep --collect --out " + out);
  EXPECT_NE(early.exitCode, 0);
  EXPECT_NE(early.output.find("3 of 4 points have no result"), std::string::npos) << early.output;
  ASSERT_EQ(runWeft("sweep --quiet " + spec + " --out " + out + " --shard 0/3").exitCode, 0);
  ASSERT_EQ(runWeft("sweep --quiet " + spec + " --out " + out + " --shard 2/3").exitCode, 0);
  const ProcessResult collect = runWeft("sweep --collect --out " + out);
  ASSERT_EQ(collect.exitCode, 0) << collect.output;
  EXPECT_EQ(readFile(out + "/results.csv"), readFile(local + "/results.csv"));

  for (const char* bad : {"2/2", "1", "a/3", "-1/2", "0/0"}) {
    const ProcessResult r = runWeft("sweep --quiet " + spec + " --out " + out + " --shard " + bad);
    EXPECT_EQ(r.exitCode, 2) << bad;
    EXPECT_NE(r.output.find("expected i/n"), std::string::npos) << r.output;
  }
  EXPECT_NE(runWeft("sweep --collect --out " + tempPath("no_such_sweep")).output.find("no plan.json"),
            std::string::npos);
}

// A point that fails (here: an RTL configuration with no verilated model, and building one
// forbidden) is recorded with its reason; the other points still run.
TEST(WeftSweep, AFailingPointIsRecordedAndTheSweepGoesOn) {
  const std::string spec = writeSpec(
      "failing", R"({"base": "weft8", "grid": {"Rows": [4, 8]}, "workloads": ["tiny.csv"], "backend": "rtl"})");
  const std::string out = tempPath("failing_out");
  fs::remove_all(out);
  const ProcessResult r = runWeft("sweep --quiet " + spec + " --out " + out, "WEFT_RTL_AUTOBUILD=0");
  EXPECT_EQ(r.exitCode, 1) << r.output;
  const auto rows = readCsv(out + "/results.csv");
  ASSERT_EQ(rows.size(), 1u + 1 + 3) << readFile(out + "/results.csv");
  EXPECT_EQ(rows[1][0], "Rows4");
  EXPECT_EQ(rows[1][6], "failed");
  EXPECT_NE(rows[1].back().find("no RTL model for configuration"), std::string::npos) << rows[1].back();
  EXPECT_EQ(rows[2][0], "Rows8");
  EXPECT_EQ(rows[4][6], "ok");
  EXPECT_GT(std::stoull(rows[4][7]), 0u);
  EXPECT_EQ(rows[4][2], "rtl");
}

// A bad specification is an error naming the field and what is accepted; nothing is written.
// A float ONNX classifier beside a spec: Conv -> Relu -> GlobalAveragePool -> Flatten.
void writeOnnxModel(const std::string& spec) {
  weft::onnx::graphs::Graph m;
  m.input("image", {"1", "4", "8", "8"});
  std::vector<float> w(8 * 4 * 3 * 3);
  for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>((i * 37) % 11) / 11.0f - 0.5f;
  m.floats("w", {8, 4, 3, 3}, w);
  m.ints(m.node("Conv", {"image", "w"}, {"c"}, "conv"), "pads", {1, 1, 1, 1});
  m.node("Relu", {"c"}, {"r"}, "relu");
  m.node("GlobalAveragePool", {"r"}, {"p"}, "pool");
  m.node("Flatten", {"p"}, {"y"}, "flatten");
  m.output("y", 2);
  m.save((fs::path(spec).parent_path() / "net.onnx").string());
}

// ONNX models are workloads: quantized after training on each point (calibrated on the run's
// inputs), every layer on the accelerator, and a bigger array takes fewer cycles.
TEST(WeftSweep, OnnxModelsAreWorkloads) {
  const std::string spec = writeSpec("onnx", R"({"base": "weft16", "grid": {"Rows": [8, 16]},
      "workloads": [{"path": "net.onnx", "quantize": "int8"}], "backend": "approx"})");
  const std::string out = tempPath("onnx_out");
  writeOnnxModel(spec);
  fs::remove_all(out);
  const ProcessResult r = runWeft("sweep " + spec + " --out " + out + " --jobs 2", "WEFT_YOSYS=none");
  ASSERT_EQ(r.exitCode, 0) << r.output;
  const auto rows = readCsv(out + "/results.csv");
  std::map<std::string, uint64_t> totals;
  size_t layers = 0;
  for (size_t i = 1; i < rows.size(); ++i) {
    EXPECT_EQ(rows[i][3], "net");
    EXPECT_EQ(rows[i][6], "ok") << rows[i][4];
    if (rows[i][4] == "total") {
      totals[rows[i][0]] = std::stoull(rows[i][7]);
    } else {
      ++layers;
      EXPECT_NE(rows[i][5], "cpu") << rows[i][4];
    }
  }
  EXPECT_EQ(layers, 2u * 3);  // conv+relu, pool, flatten at each point
  ASSERT_EQ(totals.size(), 2u);
  EXPECT_LT(totals["Rows16"], totals["Rows8"]);
}

// "mode": "layers" runs an ONNX workload as `weft layers` (each operation alone, with its
// options): the layers report's rows, one per operation, each on the accelerator.
TEST(WeftSweep, OnnxModelsRunInLayersMode) {
  const std::string spec = writeSpec("onnx_layers", R"({"base": "weft16", "grid": {"Rows": [8, 16]},
      "workloads": [{"path": "net.onnx", "quantize": "int8", "mode": "layers"}], "backend": "approx"})");
  const std::string out = tempPath("onnx_layers_out");
  writeOnnxModel(spec);
  fs::remove_all(out);
  const ProcessResult r = runWeft("sweep " + spec + " --out " + out + " --jobs 2", "WEFT_YOSYS=none");
  ASSERT_EQ(r.exitCode, 0) << r.output;
  // The child ran weft layers with the model's options.
  const auto report = nlohmann::json::parse(std::ifstream(out + "/work/Rows8/net.json"));
  EXPECT_EQ(report["format"], "ONNX model, quantized to int8");
  const auto rows = readCsv(out + "/results.csv");
  std::map<std::string, uint64_t> totals;
  std::vector<std::string> names;
  for (size_t i = 1; i < rows.size(); ++i) {
    EXPECT_EQ(rows[i][6], "ok") << rows[i][4];
    if (rows[i][4] == "total") {
      totals[rows[i][0]] = std::stoull(rows[i][7]);
    } else {
      if (rows[i][0] == "Rows8") names.push_back(rows[i][4]);
      EXPECT_EQ(rows[i][5], "array") << rows[i][4];
      EXPECT_GT(std::stoull(rows[i][7]), 0u) << rows[i][4];
    }
  }
  EXPECT_EQ(names, (std::vector<std::string>{"conv+relu", "pool", "flatten"}));
  ASSERT_EQ(totals.size(), 2u);
  EXPECT_LT(totals["Rows16"], totals["Rows8"]);
}

TEST(WeftSweep, BadOnnxWorkloadsFailBeforeAnythingIsWritten) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"({"workloads": [{"path": "net.onnx", "quantize": "int4"}]})", "\"quantize\" must be \"int8\""},
      {R"({"workloads": [{"path": "net.onnx", "calibration": "."}]})", "\"calibration\" is a directory, with \"quantize\""},
      {R"({"workloads": [{"path": "net.onnx", "colour": 1}]})", "unknown key \"colour\""},
      {R"({"workloads": [{"path": "net.onnx", "mode": "both"}]})", "\"mode\" must be \"run\""},
      {R"({"workloads": [{"path": "net.onnx", "shape": ["image=1x4"]}]})", "does not load"},
      {R"({"workloads": ["missing.onnx"]})", "'missing.onnx' is not a file"},
      {R"({"workloads": ["garbage.onnx"]})", "'garbage.onnx' does not load"},
  };
  for (const auto& [text, needle] : cases) {
    const std::string spec = writeSpec("bad_onnx", text), out = tempPath("bad_onnx_out");
    writeOnnxModel(spec);
    std::ofstream(fs::path(spec).parent_path() / "garbage.onnx") << "not a protobuf";
    fs::remove_all(out);
    const ProcessResult r = runWeft("sweep " + spec + " --out " + out);
    EXPECT_EQ(r.exitCode, 2) << text << "\n" << r.output;
    EXPECT_NE(r.output.find(needle), std::string::npos) << text << "\n" << r.output;
    EXPECT_FALSE(fs::exists(out)) << text;
  }
}

TEST(WeftSweep, BadSpecificationsFailBeforeAnythingIsWritten) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"{", "not JSON"},
      {R"({"grid": {"Rows": [8]}, "workloads": ["tiny.csv"], "colour": 1})", "unknown key \"colour\" (accepted: doc, "
                                                                              "base, grid, points, workloads, backend)"},
      {R"({"grid": {"Rowz": [8]}, "workloads": ["tiny.csv"]})", "grid.Rowz: unknown hardware parameter 'Rowz'; "
                                                                "parameters are: Rows, Cols"},
      {R"({"grid": {"Rows": [8, 128]}, "workloads": ["tiny.csv"]})", "grid.Rows[1]: weft16: Rows = 128 is outside [2, "
                                                                     "64]"},
      {R"({"grid": {"BusBytes": [24]}, "workloads": ["tiny.csv"]})", "BusBytes = 24 must be a power of two"},
      {R"({"grid": {"Rows": [8.5]}, "workloads": ["tiny.csv"]})", "grid.Rows[0]: must be an integer"},
      {R"({"grid": {"Rows": []}, "workloads": ["tiny.csv"]})", "grid.Rows: must be a non-empty list"},
      {R"({"points": [{"Cols": 0}], "workloads": ["tiny.csv"]})", "Cols = 0 is outside [2, 64]"},
      {R"({"base": "weft99", "workloads": ["tiny.csv"]})",
       "\"base\": unknown hardware configuration 'weft99': not a named configuration (weft16-ddr4, weft16-hbm2, weft16-lpddr4, weft16, weft16fp, weft16os, weft8, weft8os)"},
      // A combination no hardware has (params.json constraints) fails before anything runs.
      {R"({"grid": {"Dataflow": ["WS", "OS"], "Fp16": [1]}, "workloads": ["tiny.csv"]})",
       "point 1 (DataflowOS-Fp161): Fp16 needs Dataflow WS: the output-stationary array has no fp16 datapath"},
      // An enumerated parameter takes its value names, and only them.
      {R"({"grid": {"Dataflow": ["WS", "XS"]}, "workloads": ["tiny.csv"]})",
       "grid.Dataflow[1]: Dataflow = \"XS\" is not one of \"WS\", \"OS\""},
      {R"({"grid": {"Dataflow": [1]}, "workloads": ["tiny.csv"]})",
       "grid.Dataflow[0]: Dataflow = 1 is not one of \"WS\", \"OS\" (an enumerated parameter takes its value's name)"},
      {R"({"points": [{"Rows": 8, "Dataflow": "os"}], "workloads": ["tiny.csv"]})",
       "points[0].Dataflow: Dataflow = \"os\" is not one of \"WS\", \"OS\""},
      {R"({"grid": {"Rows": ["8"]}, "workloads": ["tiny.csv"]})", "grid.Rows[0]: must be an integer"},
      {R"({"grid": {"Rows": [8]}, "workloads": ["missing.csv"]})",
       "workloads[0]: 'missing.csv' is neither a bundled network (bert_base_seq128_quant, gpt2_small_decode_past512_quant, mobilenet_v1_224_quant"},
      {R"({"grid": {"Rows": [8]}, "workloads": []})", "\"workloads\" must be a non-empty list"},
      {R"({"grid": {"Rows": [8]}, "workloads": ["tiny.csv", "tiny.csv"]})", "a second workload named 'tiny'"},
      {R"({"grid": {"Rows": [8]}, "workloads": ["tiny.csv"], "backend": "fpga"})", "backend \"fpga\" is not approx, rtl or timing"},
  };
  for (const auto& [text, needle] : cases) {
    const std::string spec = writeSpec("bad", text), out = tempPath("bad_out");
    fs::remove_all(out);
    const ProcessResult r = runWeft("sweep " + spec + " --out " + out);
    EXPECT_EQ(r.exitCode, 2) << text << "\n" << r.output;
    EXPECT_NE(r.output.find(needle), std::string::npos) << text << "\n" << r.output;
    EXPECT_FALSE(fs::exists(out)) << text;
  }
  // A table that does not load names the table's problem.
  const std::string spec = writeSpec("bad_table", R"({"workloads": ["broken.csv"]})"), out = tempPath("bad_out");
  std::ofstream(fs::path(spec).parent_path() / "broken.csv") << "Layer name, IFMAP Height\nC1, x\n";
  const ProcessResult r = runWeft("sweep " + spec + " --out " + out);
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_NE(r.output.find("workloads[0]: 'broken.csv' does not load"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(out));
}

}  // namespace
