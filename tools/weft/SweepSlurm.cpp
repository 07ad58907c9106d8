#include "SweepSlurm.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <optional>
#include <thread>

#include "WorkerProcess.h"
#include "weft/common/files.h"
#include "weft/common/process.h"
#include "SweepFiles.h"

namespace weft::tool {
namespace {

namespace fs = std::filesystem;

// Single-quoted for /bin/sh.
std::string shellQuote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string batchScript(const SweepPlan& plan, const std::string& energyModelPath, const fs::path& dir, int tasks) {
  const std::string weft = fs::read_symlink("/proc/self/exe").string();
  std::string command = fmt::format("exec {} sweep {} --out {} --shard \"$SLURM_ARRAY_TASK_ID/{}\" --jobs "
                                    "\"${{SLURM_CPUS_PER_TASK:-1}}\" --backend {} --quiet",
                                    shellQuote(weft), shellQuote(plan.specPath), shellQuote(dir.string()), tasks,
                                    plan.backend);
  if (!energyModelPath.empty()) command += " --energy-model " + shellQuote(energyModelPath);
  return fmt::format(
      "#!/bin/sh\n"
      "# weft sweep {}: task i runs the points i, i+{}, ... (written by weft sweep --slurm)\n"
      "#SBATCH --job-name=weft-sweep\n"
      "#SBATCH --array=0-{}\n"
      "#SBATCH --output={}/task-%a.log\n"
      "#SBATCH --cpus-per-task=1\n"
      "{}\n",
      plan.specPath, tasks, tasks - 1, (dir / "slurm").string(), command);
}

// Runs a Slurm client command, its output into `log`: the output's last line, or nothing when
// the command failed.
std::optional<std::string> slurmCommand(const std::vector<std::string>& args, const fs::path& log) {
  const common::ChildResult r = common::runChild(args[0], args, {{}, log.string()});
  if (r.exitCode != 0) return std::nullopt;
  return failureReason(log.string());
}

}  // namespace

int runSweepOnSlurm(const SweepPlan& plan, const SweepOptions& options, const std::string& energyModelPath) {
  const fs::path dir = fs::absolute(options.outDir);
  const fs::path slurmDir = dir / "slurm";
  fs::create_directories(slurmDir);
  const int points = static_cast<int>(plan.points.size());
  const int tasks = std::min(options.slurm.tasks > 0 ? options.slurm.tasks : 1000, points);
  const fs::path script = slurmDir / "sweep.sbatch";
  common::writeFileAtomically(script.string(), batchScript(plan, energyModelPath, dir, tasks));

  std::vector<std::string> submit = {"sbatch", "--parsable"};
  submit.insert(submit.end(), options.slurm.sbatchArgs.begin(), options.slurm.sbatchArgs.end());
  submit.push_back(script.string());
  const std::optional<std::string> submitted = slurmCommand(submit, slurmDir / "sbatch.log");
  if (!submitted) {
    throw std::runtime_error(fmt::format("sbatch refused the job array: {}", failureReason((slurmDir / "sbatch.log").string())));
  }
  const std::string answer = *submitted;
  const std::string jobId = answer.substr(0, answer.find(';'));  // "id" or "id;cluster"
  if (jobId.empty() || !std::all_of(jobId.begin(), jobId.end(), ::isdigit)) {
    throw std::runtime_error(fmt::format("sbatch answered '{}', not a job id (see {})", answer,
                                         (slurmDir / "sbatch.log").string()));
  }
  if (!options.quiet) {
    fmt::print(stderr, "sweep: {} points x {} workloads on {}: Slurm job {} ({} array tasks, script {})\n", points,
               plan.workloads.size(), plan.backend, jobId, tasks, script.string());
  }
  if (!options.slurm.wait) {
    fmt::print("submitted Slurm job {}; once it has finished: weft sweep --collect --out {}\n", jobId, dir.string());
    return 0;
  }

  // Wait until the array leaves the queue: squeue lists nothing for it, or no longer knows it.
  const bool tty = isatty(STDERR_FILENO) != 0;
  const size_t before = pointsWritten(plan, dir.string());
  size_t lastShown = SIZE_MAX;
  for (int failures = 0;;) {
    const std::optional<std::string> queued =
        slurmCommand({"squeue", "-h", "-j", jobId, "-o", "%i"}, slurmDir / "squeue.log");
    if (!queued) {
      if (++failures >= 5) break;  // the job is gone from slurmctld's memory, or squeue is unreachable
    } else if (queued->empty()) {
      break;
    } else {
      failures = 0;
    }
    const size_t written = pointsWritten(plan, dir.string());
    if (!options.quiet && written != lastShown) {
      const std::string line = fmt::format("[{}/{}] points written (job {} running)", written, points, jobId);
      fmt::print(stderr, tty ? "\r{}" : "{}\n", line);
      lastShown = written;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
  if (!options.quiet && tty && lastShown != SIZE_MAX) fmt::print(stderr, "\n");
  if (!options.quiet) {
    fmt::print(stderr, "sweep: Slurm job {} finished; {} points written by it\n", jobId,
               pointsWritten(plan, dir.string()) - std::min(before, pointsWritten(plan, dir.string())));
  }
  return finishSweep(plan, dir.string(), options);
}

}  // namespace weft::tool
