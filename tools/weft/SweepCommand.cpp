#include "SweepCommand.h"
#include "DataDir.h"

#include <fmt/format.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "EnergyModel.h"
#include "HtmlReport.h"
#include "WorkerProcess.h"
#include "weft/common/files.h"
#include "weft/common/process.h"
#include "SweepFiles.h"
#include "SweepSlurm.h"
#include "SweepResults.h"
#include "SweepSpec.h"

namespace weft::tool {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using nlohmann::ordered_json;
using Clock = std::chrono::steady_clock;

// Runs one workload of one point in a child `weft` and turns its report into rows.
ordered_json runWorkload(const SweepPlan& plan, const SweepPoint& point, const SweepWorkload& w,
                         const fs::path& work, const std::string& hwPath, const std::string& energyModelPath) {
  const std::string stem = (work / w.label).string();
  // Named in results relative to the sweep directory, which may be given relative or absolute.
  const std::string log = (fs::path("work") / point.id / (w.label + ".log")).string();
  std::vector<std::string> args = {"weft"};
  if (w.kind == SweepWorkload::Kind::kNetwork) {
    args.insert(args.end(), {"run", w.path, "--json", stem + ".json", "--csv", stem + ".csv", "--quiet"});
    args.insert(args.end(), w.runArgs.begin(), w.runArgs.end());
  } else {
    // One layer compiled at a time: the sweep's pool of points already keeps the cores busy.
    args.insert(args.end(), {"layers", w.path, "--json", stem + ".json", "--compute-report",
                             stem + "-COMPUTE_REPORT.csv", "--quiet", "--compile-ahead", "0"});
    args.insert(args.end(), w.runArgs.begin(), w.runArgs.end());  // an ONNX model's options
  }
  if (!energyModelPath.empty()) args.insert(args.end(), {"--energy-model", energyModelPath});
  std::error_code ignored;
  fs::remove(stem + ".json", ignored);
  const common::ChildResult r =
      common::runChild("/proc/self/exe", args, {{{"WEFT_HW", hwPath}, {"WEFT_BACKEND", plan.backend}}, stem + ".log"});
  const bool referenceMismatch = w.kind == SweepWorkload::Kind::kNetwork && r.exitCode == 1;
  if (r.exitCode != 0 && !referenceMismatch) {
    const std::string why = r.signal != 0 ? fmt::format("killed by signal {}", r.signal) : failureReason(stem + ".log");
    return failedWorkload(w.label, fmt::format("{} (log: {})", why, log));
  }
  const json report = json::parse(common::readFile(stem + ".json").value_or(""), nullptr, false);
  if (report.is_discarded()) return failedWorkload(w.label, fmt::format("no report from the run (log: {})", log));
  ordered_json result = w.kind == SweepWorkload::Kind::kNetwork
                            ? workloadFromRunReport(w.label, report)
                            : workloadFromLayersReport(w.label, report, point.config.clockMHz());
  if (referenceMismatch) {
    result["status"] = "failed";
    result["error"] = fmt::format("the reference check failed (log: {})", log);
  }
  return result;
}

ordered_json runPoint(const SweepPlan& plan, const SweepPoint& point, const std::string& dir,
                      const ordered_json& fingerprint, const std::string& energyModelPath) {
  const fs::path work = fs::path(dir) / "work" / point.id;
  fs::create_directories(work);
  const std::string hwPath = (work / "hw.json").string();
  common::writeFileAtomically(hwPath, point.config.toJson() + "\n");
  ordered_json values = ordered_json::object();
  for (const auto& [param, value] : point.values) values[param] = paramValueJson(param, value);
  ordered_json result = {{"id", point.id}, {"params", values}, {"fingerprint", fingerprint}, {"status", "ok"}};
  auto& workloads = result["workloads"] = ordered_json::array();
  for (const auto& w : plan.workloads) {
    ordered_json one;
    try {
      one = runWorkload(plan, point, w, work, hwPath, energyModelPath);
    } catch (const std::exception& e) {
      one = failedWorkload(w.label, e.what());
    }
    if (one["status"] != "ok") result["status"] = "failed";
    workloads.push_back(std::move(one));
  }
  return result;
}

// Progress on stderr: on a terminal one line rewritten in place, otherwise a line per point.
class Progress {
 public:
  Progress(size_t total, size_t skipped, bool quiet)
      : total_(total), done_(skipped), quiet_(quiet), tty_(isatty(STDERR_FILENO) != 0) {}
  ~Progress() {
    if (tty_ && shown_) fmt::print(stderr, "\n");
  }
  void finished(const std::string& id, bool ok, double seconds) {
    std::lock_guard<std::mutex> lock(mutex_);
    ++done_, ++ranNow_;
    failed_ += ok ? 0 : 1;
    if (quiet_) return;
    const double elapsed = std::chrono::duration<double>(Clock::now() - start_).count();
    const double eta = elapsed / static_cast<double>(ranNow_) * static_cast<double>(total_ - done_);
    const std::string line = fmt::format("[{:>{}}/{}] {} {} in {:.2f} s; {} failed, about {:.0f} s left", done_,
                                         std::to_string(total_).size(), total_, id, ok ? "done" : "FAILED", seconds,
                                         failed_, eta);
    if (tty_) {
      fmt::print(stderr, "\r{:<110}", line);
    } else {
      fmt::print(stderr, "{}\n", line);
    }
    shown_ = true;
  }

 private:
  std::mutex mutex_;
  size_t total_, done_, ranNow_ = 0, failed_ = 0;
  bool quiet_, tty_, shown_ = false;
  Clock::time_point start_ = Clock::now();
};

}  // namespace

int finishSweep(const SweepPlan& plan, const std::string& dir, const SweepOptions& options) {
  const size_t failed = merge(plan, dir, options.quiet);
  if (options.htmlReport && writeHtmlReport({{dir}, "", ""}) != 0) return 2;
  return failed == 0 ? 0 : 1;
}

bool parseShard(const std::string& text, SweepOptions& options) {
  const size_t slash = text.find('/');
  if (slash == std::string::npos) return false;
  try {
    size_t used = 0;
    const int i = std::stoi(text.substr(0, slash), &used);
    if (used != slash) return false;
    const std::string rest = text.substr(slash + 1);
    const int n = std::stoi(rest, &used);
    if (used != rest.size() || n < 1 || i < 0 || i >= n) return false;
    options.shardIndex = i, options.shardCount = n;
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

int runSweep(const SweepOptions& options) {
  if (options.collect) {
    const fs::path planPath = fs::path(options.outDir) / "plan.json";
    if (!fs::exists(planPath)) {
      throw SweepError(fmt::format("{}: no plan.json: not a sweep directory (run weft sweep SPEC --out {} first)",
                                   options.outDir, options.outDir));
    }
    const SweepPlan plan = SweepPlan::fromJson(json::parse(common::readFile(planPath.string()).value_or("")));
    return finishSweep(plan, options.outDir, options);
  }

  // Everything is checked before the output directory is touched.
  const SweepPlan plan = loadSweepSpec(options.specPath, options.backend, dataDir());
  std::string energyModelText, energyModelPath;
  if (!options.energyModelPath.empty()) {
    codesign::EnergyModel::load(options.energyModelPath);
    energyModelText = common::readFile(options.energyModelPath).value_or("");
    energyModelPath = fs::absolute(options.energyModelPath).string();
  }
  const std::string dir = options.outDir;
  fs::create_directories(fs::path(dir) / "points");
  fs::create_directories(fs::path(dir) / "work");
  common::writeFileAtomically((fs::path(dir) / "plan.json").string(), plan.toJson().dump(2) + "\n");
  if (options.slurm.enabled) return runSweepOnSlurm(plan, options, energyModelPath);

  std::vector<size_t> todo;
  size_t mine = 0;
  for (size_t i = 0; i < plan.points.size(); ++i) {
    if (options.shardCount > 0 && static_cast<int>(i % options.shardCount) != options.shardIndex) continue;
    ++mine;
    if (!isDone(dir, plan.points[i], plan.fingerprint(plan.points[i], energyModelText))) todo.push_back(i);
  }
  const int jobs = options.jobs > 0 ? options.jobs : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  if (!options.quiet) {
    fmt::print(stderr, "sweep: {} points{} x {} workloads on {}, {} processes at once; {} already done\n", mine,
               options.shardCount > 0 ? fmt::format(" (shard {}/{})", options.shardIndex, options.shardCount) : "",
               plan.workloads.size(), plan.backend, jobs, mine - todo.size());
  }

  Progress progress(mine, mine - todo.size(), options.quiet);
  std::atomic<size_t> next{0};
  std::atomic<size_t> failed{0};
  auto worker = [&] {
    for (size_t k = next++; k < todo.size(); k = next++) {
      const SweepPoint& point = plan.points[todo[k]];
      const auto start = Clock::now();
      const ordered_json fingerprint = plan.fingerprint(point, energyModelText);
      const ordered_json result = runPoint(plan, point, dir, fingerprint, energyModelPath);
      common::writeFileAtomically(pointFile(dir, point).string(), result.dump(1) + "\n");
      const bool ok = result["status"] == "ok";
      failed += ok ? 0 : 1;
      progress.finished(point.id, ok, std::chrono::duration<double>(Clock::now() - start).count());
    }
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < std::min<int>(jobs, static_cast<int>(todo.size())); ++t) threads.emplace_back(worker);
  for (auto& t : threads) t.join();

  if (options.shardCount > 0) return failed == 0 ? 0 : 1;  // the merge is --collect's, once every shard ran
  return finishSweep(plan, dir, options);
}

}  // namespace weft::tool
