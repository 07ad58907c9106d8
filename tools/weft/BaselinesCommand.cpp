#include "BaselinesCommand.h"
#include "DataDir.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "WorkerProcess.h"
#include "weft/common/files.h"
#include "weft/hw/config.h"

namespace weft::tool {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr int kFormat = 1;
constexpr const char* kScalesimPrefix = "scalesim:";

// The workloads a fresh baseline directory gets: the bundled networks, the regression layer
// set, and the SCALE-Sim tables that run in seconds on the approx backend (gemm/gnmt and
// gemm/gpt2 take minutes).
const std::vector<std::string> kDefaultWorkloads = {
    "traces/networks/mobilenet_v1_224_quant.json", "traces/networks/resnet18_224_quant.json",
    "traces/networks/squeezenet1_1_224_quant.json", "traces/validation/regression.json",
    "scalesim:conv_nets/Resnet18.csv",            "scalesim:conv_nets/Resnet50.csv",
    "scalesim:conv_nets/mobilenet.csv",           "scalesim:conv_nets/alexnet.csv",
    "scalesim:conv_nets/Googlenet.csv",           "scalesim:conv_nets/yolo_tiny.csv",
    "scalesim:gemm/NCF.csv",                      "scalesim:gemm/transformer_partial.csv"};
const std::vector<std::string> kDefaultConfigs = {"weft8", "weft16", "weft8os", "weft16os"};

struct Workload {
  std::string ref;   // as the baseline file names it: a path in the tree, or scalesim:<table>
  std::string name;  // the baseline file's stem
  std::string path;  // where it is on this machine
  bool network = false;
};

Workload resolve(const std::string& ref, const BaselinesOptions& o) {
  Workload w;
  w.ref = ref;
  const bool scalesim = ref.rfind(kScalesimPrefix, 0) == 0;
  const std::string rest = scalesim ? ref.substr(std::strlen(kScalesimPrefix)) : ref;
  w.path = scalesim ? (fs::path(o.scalesimDir) / rest).string() : (fs::path(dataDir()) / rest).string();
  w.name = (scalesim ? "scalesim-" : "") + fs::path(rest).stem().string();
  if (fs::path(rest).extension() == ".json" && fs::exists(w.path)) {
    std::ifstream in(w.path);
    const json j = json::parse(in, nullptr, /*allow_exceptions=*/false);
    w.network = j.is_object() && j.contains("input");  // a network description; a layer set has none
  }
  return w;
}

struct LayerCycles {
  std::string layer;
  uint64_t cycles = 0;
};
using Measured = std::vector<LayerCycles>;

// A baseline file: the workload and, per configuration, the cycles of each layer in order.
struct BaselineFile {
  std::string path, workload;
  std::map<std::string, Measured> configs;
};

BaselineFile loadBaseline(const std::string& path) {
  BaselineFile b;
  b.path = path;
  const std::string text = common::readFileOrThrow(path);
  try {
    const json j = json::parse(text);
    if (j.value("format", 0) != kFormat) throw std::runtime_error(fmt::format("\"format\" is not {}", kFormat));
    b.workload = j.at("workload").get<std::string>();
    for (const auto& [config, entry] : j.at("configs").items()) {
      Measured m;
      for (const auto& l : entry.at("layers")) m.push_back({l.at("layer").get<std::string>(), l.at("cycles").get<uint64_t>()});
      b.configs[config] = std::move(m);
    }
  } catch (const std::exception& e) {
    throw std::runtime_error(fmt::format("{}: not a baseline file ({})", path, e.what()));
  }
  return b;
}

// One layer a line, so that a change reads as a diff of the layers that moved.
void writeBaseline(const BaselineFile& b) {
  std::string text = fmt::format("{{\n \"format\": {},\n \"workload\": {},\n \"doc\": {},\n \"configs\": {{", kFormat,
                                 json(b.workload).dump(),
                                 json("Expected device cycles per layer; rewrite with `weft baselines --update`").dump());
  const char* configSep = "\n";
  for (const auto& [config, layers] : b.configs) {
    uint64_t total = 0;
    for (const auto& l : layers) total += l.cycles;
    text += fmt::format("{}  {}: {{\"total\": {}, \"layers\": [", configSep, json(config).dump(), total);
    const char* layerSep = "\n";
    for (const auto& l : layers) {
      text += fmt::format("{}   {{\"layer\": {}, \"cycles\": {}}}", layerSep, json(l.layer).dump(), l.cycles);
      layerSep = ",\n";
    }
    text += "\n  ]}";
    configSep = ",\n";
  }
  text += "\n }\n}\n";
  common::writeFileAtomically(b.path, text);
}

// One worker: a workload on one configuration.
struct Job {
  const Workload* workload;
  std::string config;
  WorkerSpec spec;
  std::string reportPath;
};

Job makeJob(const Workload& w, const std::string& config, const BaselinesOptions& o, const std::string& workDir) {
  Job j{&w, config, {}, fmt::format("{}/{}-{}.json", workDir, w.name, config)};
  const std::string stem = fmt::format("{}/{}-{}", workDir, w.name, config);
  if (w.network) {
    j.spec.args = {"run", w.path, "--json", j.reportPath, "--csv", stem + ".csv", "--quiet"};
  } else {
    j.spec.args = {"layers", w.path, "--json", j.reportPath, "--compute-report", stem + "-COMPUTE_REPORT.csv", "--quiet"};
  }
  j.spec.backend = o.sim;
  j.spec.hw = config;
  j.spec.stdoutPath = stem + ".log";
  j.spec.what = fmt::format("{} on {}", w.name, config);
  return j;
}

Measured readReport(const Job& job) {
  const json r = json::parse(common::readFileOrThrow(job.reportPath));
  Measured m;
  for (const auto& l : r.at("layers")) m.push_back({l.at("name").get<std::string>(), l.at("cycles").get<uint64_t>()});
  return m;
}

// Runs the jobs, `parallel` at a time, in order of submission; returns each one's layers.
std::vector<Measured> runJobs(std::vector<Job>& jobs, int parallel, bool quiet) {
  std::vector<Measured> results(jobs.size());
  std::deque<std::pair<size_t, pid_t>> running;
  size_t next = 0, done = 0;
  auto finishOldest = [&] {
    const auto [index, pid] = running.front();
    running.pop_front();
    finishWorker(pid, jobs[index].spec);
    results[index] = readReport(jobs[index]);
    ++done;
    if (!quiet) fmt::print(stderr, "weft baselines: [{}/{}] {}\n", done, jobs.size(), jobs[index].spec.what);
  };
  while (next < jobs.size() || !running.empty()) {
    if (next < jobs.size() && running.size() < static_cast<size_t>(parallel)) {
      running.emplace_back(next, startWorker(jobs[next].spec));
      ++next;
    } else {
      finishOldest();
    }
  }
  return results;
}

struct Moved {
  std::string workload, config, layer;
  int64_t baseline = -1, now = -1;  // -1: the layer is missing on that side
};

// The layers of `now` whose cycles differ from `baseline` (or that one side lacks).
std::vector<Moved> compare(const std::string& workload, const std::string& config, const Measured& baseline,
                           const Measured& now) {
  std::vector<Moved> out;
  const size_t n = std::max(baseline.size(), now.size());
  for (size_t i = 0; i < n; ++i) {
    const LayerCycles* b = i < baseline.size() ? &baseline[i] : nullptr;
    const LayerCycles* c = i < now.size() ? &now[i] : nullptr;
    if (b != nullptr && c != nullptr && b->layer == c->layer && b->cycles == c->cycles) continue;
    Moved m{workload, config, b != nullptr ? b->layer : c->layer};
    if (b != nullptr) m.baseline = static_cast<int64_t>(b->cycles);
    if (c != nullptr && (b == nullptr || b->layer == c->layer)) m.now = static_cast<int64_t>(c->cycles);
    out.push_back(m);
  }
  return out;
}

void printMoved(const std::vector<Moved>& moved) {
  size_t w = 8, c = 6, l = 5;
  for (const auto& m : moved) {
    w = std::max(w, m.workload.size());
    c = std::max(c, m.config.size());
    l = std::max(l, m.layer.size());
  }
  fmt::print("  {:<{}}  {:<{}}  {:<{}}  {:>10}  {:>10}  {:>8}\n", "workload", w, "config", c, "layer", l, "baseline",
             "now", "change");
  auto cell = [](int64_t v) { return v < 0 ? std::string("-") : std::to_string(v); };
  for (const auto& m : moved) {
    const std::string change = m.baseline > 0 && m.now >= 0
                                   ? fmt::format("{:+.2f}%", 100.0 * double(m.now - m.baseline) / double(m.baseline))
                                   : std::string(m.baseline < 0 ? "new" : "gone");
    fmt::print("  {:<{}}  {:<{}}  {:<{}}  {:>10}  {:>10}  {:>8}\n", m.workload, w, m.config, c, m.layer, l,
               cell(m.baseline), cell(m.now), change);
  }
}

bool selected(const std::string& name, const std::vector<std::string>& only) {
  return only.empty() || std::find(only.begin(), only.end(), name) != only.end();
}

}  // namespace

int runBaselines(const BaselinesOptions& o) {
  if (o.sim != "approx" && o.sim != "rtl") throw std::invalid_argument("--sim must be approx or rtl");
  for (const auto& c : o.configs) hw::HwConfig::load(c);  // a bad name fails here, naming the accepted ones
  const bool ci = std::getenv("CI") != nullptr && std::string(std::getenv("CI")) == "true";

  // The files there are, and (updating) the default workloads that have none yet.
  std::map<std::string, BaselineFile> files;  // by workload name
  if (fs::is_directory(o.dir)) {
    for (const auto& e : fs::directory_iterator(o.dir)) {
      if (e.path().extension() != ".json") continue;
      BaselineFile b = loadBaseline(e.path().string());
      const Workload w = resolve(b.workload, o);
      if (w.name != e.path().stem().string()) {
        throw std::runtime_error(fmt::format("{}: its workload {} belongs in {}.json", b.path, b.workload, w.name));
      }
      files[w.name] = std::move(b);
    }
  } else if (!o.update) {
    throw std::runtime_error(fmt::format("no baseline directory '{}' (write one with --update)", o.dir));
  }
  if (o.update) {
    fs::create_directories(o.dir);
    for (const auto& ref : kDefaultWorkloads) {
      const Workload w = resolve(ref, o);
      if (files.count(w.name) == 0) files[w.name] = BaselineFile{(fs::path(o.dir) / (w.name + ".json")).string(), ref, {}};
    }
  }
  for (const auto& name : o.only) {
    if (files.count(name) == 0) throw std::invalid_argument(fmt::format("no workload named '{}' in {}", name, o.dir));
  }

  // The jobs: each selected workload on the requested configurations (checking: those of its file).
  std::vector<Workload> workloads;
  workloads.reserve(files.size());
  std::vector<std::string> skipped;
  for (const auto& [name, file] : files) {
    if (!selected(name, o.only)) continue;
    Workload w = resolve(file.workload, o);
    if (!fs::exists(w.path)) {
      if (ci) throw std::runtime_error(fmt::format("workload {} is missing: {}", name, w.path));
      skipped.push_back(fmt::format("{} ({} not found)", name, w.path));
      continue;
    }
    workloads.push_back(std::move(w));
  }
  const std::string workDir = o.workDir.empty() ? fmt::format("out/baselines-{}", getpid()) : o.workDir;
  fs::create_directories(workDir);
  std::vector<Job> jobs;
  for (const auto& w : workloads) {
    std::vector<std::string> configs = o.configs;
    if (configs.empty()) {
      if (o.update) configs = kDefaultConfigs;
      for (const auto& [c, _] : files.at(w.name).configs) {
        if (std::find(configs.begin(), configs.end(), c) == configs.end()) configs.push_back(c);
      }
    }
    for (const auto& c : configs) {
      if (!o.update && files.at(w.name).configs.count(c) == 0) {
        throw std::runtime_error(fmt::format("{} has no baseline for {} (write one with --update)", w.name, c));
      }
      jobs.push_back(makeJob(w, c, o, workDir));
    }
  }
  if (jobs.empty()) throw std::runtime_error("nothing to run: no workload selected is available here");

  const int parallel = o.jobs > 0 ? o.jobs : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const std::vector<Measured> results = runJobs(jobs, parallel, o.quiet);

  for (const auto& s : skipped) fmt::print("weft baselines: skipped {}\n", s);
  size_t layers = 0;
  for (const auto& r : results) layers += r.size();
  if (o.update) {
    for (size_t i = 0; i < jobs.size(); ++i) files.at(jobs[i].workload->name).configs[jobs[i].config] = results[i];
    for (const auto& w : workloads) writeBaseline(files.at(w.name));
    fmt::print("weft baselines: wrote {} files in {} ({} workload x configuration pairs, {} layers, {} backend)\n",
               workloads.size(), o.dir, jobs.size(), layers, o.sim);
    return 0;
  }
  std::vector<Moved> moved;
  for (size_t i = 0; i < jobs.size(); ++i) {
    const auto more =
        compare(jobs[i].workload->name, jobs[i].config, files.at(jobs[i].workload->name).configs.at(jobs[i].config),
                results[i]);
    moved.insert(moved.end(), more.begin(), more.end());
  }
  fmt::print("weft baselines: {} workload x configuration pairs, {} layers on the {} backend: {}\n", jobs.size(), layers,
             o.sim, moved.empty() ? "every layer's cycles as in the baselines" : fmt::format("{} moved", moved.size()));
  if (moved.empty()) return 0;
  printMoved(moved);
  fmt::print("after an intended change: weft baselines --update{}\n", o.sim == "approx" ? "" : " (on approx)");
  return 1;
}

}  // namespace weft::tool
