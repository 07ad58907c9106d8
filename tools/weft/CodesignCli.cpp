#include "CodesignCli.h"

#include <fmt/format.h>

#include <sstream>

namespace weft::tool {

void CodesignCli::add(CLI::App& app) {
  sweepCmd_ = app.add_subcommand(
      "sweep", "run workloads on every point of a grid of hardware configurations, in parallel processes, resumable; "
               "merged into DIR/results.csv and results.jsonl");
  sweepCmd_->add_option("spec", sweep_.specPath, "sweep specification (JSON: base, grid, points, workloads, backend)");
  sweepCmd_->add_option("--out", sweep_.outDir, "output directory (points/, work/, results.csv, results.jsonl)")
      ->required();
  sweepCmd_->add_option("--jobs", sweep_.jobs, "processes at once (default: every core)")->check(CLI::Range(1, 4096));
  sweepCmd_->add_option("--backend", sweep_.backend, "accelerator backend (default: the spec's, else approx)")
      ->check(CLI::IsMember({"rtl", "approx"}));
  sweepCmd_->add_option("--energy-model", sweep_.energyModelPath,
                        "JSON file of energy and area coefficients overriding the defaults (tools/codesign/README.md)");
  // Hidden: what a Slurm array task runs.
  sweepCmd_->add_option("--shard", shard_, "run only the points i, i+n, i+2n, ... and do not merge (i/n)")->group("");
  sweepCmd_->add_flag("--collect", sweep_.collect, "only merge the point results already in --out (after shards)");
  sweepCmd_->add_flag("--slurm", sweep_.slurm.enabled,
                      "run the points as one Slurm job array (sbatch --array), wait for it and merge");
  sweepCmd_->add_option("--slurm-args", sbatchArgs_, "extra sbatch options, e.g. \"--partition=cpu --time=30\"");
  sweepCmd_->add_option("--slurm-tasks", sweep_.slurm.tasks, "array tasks (default: one per point, at most 1000)")
      ->check(CLI::Range(1, 100000));
  sweepCmd_->add_flag("--no-wait", [this](int64_t) { sweep_.slurm.wait = false; },
                      "with --slurm: submit and return; merge later with --collect");
  sweepCmd_->add_flag("--report", sweep_.htmlReport, "after merging, also write DIR/report.html (weft report DIR)");
  sweepCmd_->add_flag("--quiet", sweep_.quiet, "no progress messages");

  reportCmd_ = app.add_subcommand(
      "report", "one self-contained HTML page (tables, cycle breakdowns, rooflines; for sweeps Pareto views and "
                "utilization heat maps) from weft run / layers JSON reports and weft sweep directories");
  reportCmd_->add_option("inputs", report_.inputs, "JSON reports of weft run or weft layers, weft sweep directories")
      ->required()
      ->check(CLI::ExistingPath);
  reportCmd_->add_option("--out", report_.outPath, "the HTML file (default: DIR/report.html, or the report's .html)");
  reportCmd_->add_option("--plots", report_.plotsDir, "also write every plot as .svg and .png in this directory");
}

std::optional<int> CodesignCli::run() {
  if (reportCmd_ != nullptr && reportCmd_->parsed()) return writeHtmlReport(report_);
  if (sweepCmd_ == nullptr || !sweepCmd_->parsed()) return std::nullopt;
  if (!shard_.empty() && !parseShard(shard_, sweep_)) {
    fmt::print(stderr, "weft: error: --shard {}: expected i/n with 0 <= i < n\n", shard_);
    return 2;
  }
  std::istringstream words(sbatchArgs_);
  for (std::string word; words >> word;) sweep_.slurm.sbatchArgs.push_back(word);
  if (!sweep_.collect && sweep_.specPath.empty()) {
    fmt::print(stderr, "weft: error: sweep needs a specification (or --collect)\n");
    return 2;
  }
  return runSweep(sweep_);
}

}  // namespace weft::tool
