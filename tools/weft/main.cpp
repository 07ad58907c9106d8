// weft: run NNAPI models on the simulated accelerator and report what the hardware did.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <malloc.h>

#include <cstdlib>
#include <map>
#include <iostream>
#include <unistd.h>

#include "AbiCheck.h"
#include "Network.h"
#include "DataDir.h"
#include "Nnapi.h"
#include "BaselinesCommand.h"
#include "LayersCommand.h"
#include "Report.h"
#include "RunCommand.h"
#include "CodesignCli.h"
#include "DramCommand.h"
#include "EstimateCommand.h"
#include "ValidateCommand.h"
#include "weft/hw/config.h"
#include "weft/sim/dram_config.h"

namespace {

// WEFT_BACKEND, WEFT_HW and WEFT_EXTENSIONS_ALLOWLIST are read when libneuralnetworks.so loads,
// i.e. before main(): a --backend or --hw option (or the tool's own allowlist) sets them and runs
// the tool again with the new environment.
void reexecWith(const std::string& backend, const std::string& hw, const std::string& dramTrace, char** argv) {
  bool changed = false;
  auto set = [&](const char* name, const std::string& value) {
    if (value.empty()) return;
    const char* current = std::getenv(name);
    if (current == nullptr || value != current) {
      setenv(name, value.c_str(), 1);
      changed = true;
    }
  };
  set("WEFT_BACKEND", backend);
  set("WEFT_HW", hw);
  set("WEFT_DRAM_TRACE", dramTrace);  // read by the cycle-level DRAM (weft/sim/dram_counters.h)
  // The importer maps ONNX's LayerNormalization and GELU onto org.weft.accel's operations, which
  // NNAPI gives only to programs an allowlist names: weft runs under the one that names it, unless
  // the user chose an allowlist.
  if (const char* chosen = std::getenv("WEFT_EXTENSIONS_ALLOWLIST"); chosen == nullptr || *chosen == '\0') {
    set("WEFT_EXTENSIONS_ALLOWLIST", weft::tool::ownExtensionAllowlist());
  }
  // glibc's malloc on transparent huge pages (glibc 2.35 on; older ones ignore the tunable): the
  // weights a network's compilation copies and lays out (BERT-base: 110 MB, several times) then
  // take a page fault every 2 MiB instead of every 4 KiB. On this project's virtual machines the
  // faults were a third of `weft run`'s wall time on BERT-base (3.06 -> 2.30 s), at the same peak
  // memory. GLIBC_TUNABLES is read when a program starts: hence set here, before the restart.
  if (const char* tunables = std::getenv("GLIBC_TUNABLES");
      tunables == nullptr || std::string(tunables).find("glibc.malloc.hugetlb") == std::string::npos) {
    const std::string others = tunables == nullptr || *tunables == '\0' ? "" : std::string(tunables) + ":";
    set("GLIBC_TUNABLES", others + "glibc.malloc.hugetlb=1");
  }
  if (changed) {
    execv("/proc/self/exe", argv);
    throw std::runtime_error("could not restart weft with the new environment");
  }
}

}  // namespace

int main(int argc, char** argv) {
  // Each layer's compilation builds command vectors of up to hundreds of MB and frees them before
  // the next. glibc maps such blocks afresh and unmaps them at free, so every layer paid the page
  // faults of its memory again (a tenth of a sweep point's time on an 8x8 array): keep blocks up
  // to the largest threshold glibc accepts in the heap, and freed memory there for reuse.
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 512 << 20);
  // One heap for every thread: with a heap per thread (glibc's arenas), what the threads that
  // compile layers ahead (weft layers --compile-ahead) freed stayed in their heaps, unused by the
  // next layer: gnmt.csv peaked at 520 MB against 427 MB compiled one after another. Sharing one
  // cost no time measured (Resnet50.csv: 0.098 s against 0.095 s, medians of 31 paired runs).
  mallopt(M_ARENA_MAX, 1);
  if (const std::string mismatch = weft::tool::runtimeAbiMismatch(); !mismatch.empty()) {
    fmt::print(stderr, "weft: error: {}\n", mismatch);
    return 2;
  }
  CLI::App app{"weft: NNAPI on a simulated systolic-array accelerator"};
  app.require_subcommand(1);
  std::string backend, hw, dramTrace;
  app.add_option("--backend", backend,
                 "accelerator backend: rtl, approx, or timing (approx without computing outputs: same cycles and "
                 "counters, no reference check) (default: $WEFT_BACKEND, else rtl)")
      ->check(CLI::IsMember({"rtl", "approx", "timing"}));
  app.add_option("--hw", hw, "hardware configuration: a name of hw/configs or a JSON file (default: $WEFT_HW, else weft16)");

  weft::tool::RunOptions run;
  run.networkPath = weft::tool::dataDir() + "/traces/networks/mobilenet_v1_224_quant.json";
  CLI::App* runCmd = app.add_subcommand("run", "run a bundled network on the accelerator, check it against the CPU reference, report per-layer timing; or one case of the AOSP conformance corpus, checked against its expected outputs");
  runCmd->add_option("network", run.networkPath,
                     "network description (traces/networks/*.json), an ONNX model (.onnx, or a directory with "
                     "model.onnx and test_data_set_0/ as ONNX's tests ship) or a conformance corpus case "
                     "(../shared/conformance/aosp/<version>/<case>.json)")
      ->capture_default_str();
  runCmd->add_option("--json", run.jsonPath, "JSON report path (default out/<network>-<backend>-<hw>.json)");
  runCmd->add_option("--dram-trace", dramTrace,
                     "write the DRAM's transactions here, in DRAMsim3's trace format (a cycle-level DRAM: Dram not simple)");
  runCmd->add_option("--csv", run.csvPath, "CSV report path (default out/<network>-<backend>-<hw>.csv)");
  runCmd->add_option("--tolerance", run.tolerance, "largest accepted |accelerator - reference| per element, quant8 units")
      ->capture_default_str()->check(CLI::NonNegativeNumber);
  runCmd->add_option("--energy-model", run.energyModelPath,
                     "JSON file of energy and area coefficients overriding the defaults (tools/codesign/README.md)");
  runCmd->add_option("--trace", run.tracePath, "also write a Chrome trace-event timeline (ui.perfetto.dev) here");
  runCmd
      ->add_option("--trace-limit", run.traceLimit,
                   "commands the trace shows, from the first on, and as many of a cycle-level DRAM's commands; "
                   "later ones are left out (0: all)")
      ->capture_default_str();
  runCmd->add_option("--html", run.htmlPath, "also write the HTML report (tables and plots) here");
  runCmd->add_flag("--quiet", run.quiet, "no progress messages");
  runCmd->add_option("--shape", run.shapes,
                     "ONNX models: an input's shape (NAME=1x3x224x224) or a symbolic dimension's value (batch=1); "
                     "unbound symbolic dimensions are 1");
  runCmd->add_option("--input", run.inputs,
                     "ONNX models: an input's values, NAME=FILE (.npy, or an ONNX TensorProto .pb); default: drawn "
                     "from --seed");
  runCmd->add_option("--save-outputs", run.saveOutputsDir,
                     "write each output of the accelerated run as DIR/<output>.npy (float32; quantized outputs dequantized; a network's outputs are the layers no other reads)");
  runCmd->add_flag("--relaxed", run.relaxed,
                   "ONNX models: let float32 compute in float16 (NNAPI's relaxed computation: what the fp16 "
                   "accelerator, --hw weft16fp, runs)");
  runCmd->add_option("--seed", run.seed, "ONNX models: the seed of inputs drawn at random")->capture_default_str();
  runCmd->add_option("--quantize", run.quantize,
                     "ONNX float models: int8 post-training quantization (per-channel symmetric weights, "
                     "asymmetric activations calibrated on the CPU reference); reports each output's accuracy "
                     "against the float model")
      ->check(CLI::IsMember({"int8"}));
  runCmd->add_option("--calibration", run.calibrationDir,
                     "with --quantize: a directory of .npy input samples to calibrate on (default: the run's inputs)")
      ->check(CLI::ExistingDirectory);
  const std::map<std::string, int32_t> preferences = {
      {"fast", 1}, {"sustained", 2}, {"low-power", 0}};
  runCmd->add_option("--preference", run.preference,
                     "NNAPI execution preference of the compilation: fast (the fastest tiling), sustained (the "
                     "least DRAM traffic within 2 % of it) or low-power (within 15 %); driver/accel/README.md")
      ->transform(CLI::CheckedTransformer(preferences, CLI::ignore_case))
      ->default_str("fast");

  CLI::App* configsCmd = app.add_subcommand("configs", "list the named hardware configurations");

  weft::tool::LayersOptions layers;
  CLI::App* layersCmd = app.add_subcommand(
      "layers", "run each layer of a layer set (.json), a SCALE-Sim table (.csv) or an ONNX model (each NNAPI "
                "operation it becomes) alone on the accelerator; per-layer cycles and utilization, and SCALE-Sim's "
                "COMPUTE_REPORT.csv form");
  layersCmd->alias("scalesim");
  layersCmd->add_option("table", layers.tablePath,
                        "layer set (traces/validation/*.json), SCALE-Sim conv/GEMM table, or an ONNX model (.onnx, or a "
                        "directory with model.onnx and test_data_set_0/)")
      ->required();
  layersCmd->add_option("--json", layers.jsonPath, "JSON report path (default out/<table>-<backend>-<hw>.json)");
  layersCmd->add_option("--dram-trace", dramTrace,
                        "write the DRAM's transactions here, in DRAMsim3's trace format (a cycle-level DRAM: Dram not simple)");
  layersCmd->add_option("--csv", layers.csvPath, "CSV report path (none by default)");
  layersCmd->add_option("--compute-report", layers.computeReportPath,
                        "SCALE-Sim COMPUTE_REPORT.csv path (default out/<table>-<backend>-<hw>-COMPUTE_REPORT.csv)");
  layersCmd->add_option("--outputs", layers.outputsPath, "write the layers' outputs here, concatenated in order");
  layersCmd->add_option("--repeat", layers.repeat, "executions per layer (host times are the median)")
      ->capture_default_str()->check(CLI::Range(1, 1000));
  layersCmd->add_option("--cache-dir", layers.cacheDir,
                        "keep each layer's compilation here (NNAPI compilation caching): a later run of the same "
                        "layers on the same configuration skips the tiling search");
  layersCmd->add_option("--energy-model", layers.energyModelPath,
                        "JSON file of energy and area coefficients overriding the defaults (tools/codesign/README.md)");
  layersCmd->add_option("--trace", layers.tracePath,
                        "also write a Chrome trace-event timeline (ui.perfetto.dev) here");
  layersCmd
      ->add_option("--trace-limit", layers.traceLimit,
                   "commands the trace shows, from the first layer on, and as many of a cycle-level DRAM's "
                   "commands; later ones are left out (0: all)")
      ->capture_default_str();
  layersCmd->add_option("--html", layers.htmlPath, "also write the HTML report (tables and plots) here");
  layersCmd->add_flag("--no-reuse", layers.noReuse,
                      "compile and run every layer, also one identical to an earlier layer (by default such a "
                      "layer reports the earlier one's figures unless --outputs, --trace or --repeat asks for more)");
  layersCmd
      ->add_option("--compile-ahead", layers.compileAhead,
                   "layers compiled on other threads while one runs (the same figures; 0: one after another; "
                   "not with --repeat or --trace, whose host times it would blur, nor with a cycle-level DRAM, whose "
                   "cycles depend on where layers compiled side by side are placed)")
      ->capture_default_str()
      ->check(CLI::Range(0, 8));
  layersCmd->add_flag("--quiet", layers.quiet, "no progress messages");
  layersCmd->add_option("--shape", layers.onnx.shapes,
                        "ONNX models: an input's shape (NAME=1x3x224x224) or a symbolic dimension's value (batch=1); "
                        "unbound symbolic dimensions are 1");
  layersCmd->add_option("--input", layers.onnx.inputs,
                        "ONNX models: an input's values, NAME=FILE (.npy, or an ONNX TensorProto .pb), which flow into "
                        "the layers; default: drawn from --seed");
  layersCmd->add_flag("--relaxed", layers.onnx.relaxed,
                      "ONNX models: let float32 compute in float16 (what the fp16 accelerator, --hw weft16fp, runs)");
  layersCmd->add_option("--seed", layers.onnx.seed, "ONNX models: the seed of inputs drawn at random")
      ->capture_default_str();
  layersCmd->add_option("--quantize", layers.onnx.quantize,
                        "ONNX float models: int8 post-training quantization, as weft run --quantize; the int8 "
                        "model's operations are the layers")
      ->check(CLI::IsMember({"int8"}));
  layersCmd->add_option("--calibration", layers.onnx.calibrationDir,
                        "with --quantize: a directory of .npy input samples to calibrate on (default: the run's inputs)")
      ->check(CLI::ExistingDirectory);
  CLI::Option* compareTo = layersCmd->add_option("--compare-to", layers.compareToPath,
                        "SCALE-Sim v2's COMPUTE_REPORT.csv for the same table: print its cycles and utilization "
                        "beside weft's, per layer and in total, with weft cycles / SCALE-Sim cycles");
  layersCmd->add_option("--compare-csv", layers.compareCsvPath,
                        "with --compare-to: the comparison as CSV (default out/<table>-<backend>-<hw>-vs-scalesim.csv)")
      ->needs(compareTo);
  layersCmd->add_option("--compare-json", layers.compareJsonPath,
                        "with --compare-to: the comparison as JSON (default out/<table>-<backend>-<hw>-vs-scalesim.json)")
      ->needs(compareTo);

  weft::tool::ValidateOptions validate;
  validate.layersPath = weft::tool::dataDir() + "/traces/validation/layers.json";
  validate.hw = {"weft8", "weft16", "weft8os", "weft16os"};
  CLI::App* validateCmd = app.add_subcommand(
      "validate", "run a layer set on the rtl and approx backends per configuration; compare cycles, outputs and speed");
  validateCmd->add_option("--layers", validate.layersPath, "layer set or SCALE-Sim table")->capture_default_str();
  validateCmd->add_option("--config", validate.hw, "array configurations: names of hw/configs or JSON files")
      ->capture_default_str();
  validateCmd->add_option("--dram-bw", validate.dramBytesPerCycle,
                          "DRAM bandwidths in bytes per cycle (default: each configuration's own and a quarter of it)");
  validateCmd->add_option("--json", validate.jsonPath, "JSON report path (default <work-dir>/validate.json)");
  validateCmd->add_option("--work-dir", validate.workDir, "worker reports and outputs (default out/validate-<pid>)");
  validateCmd->add_option("--max-mean-error", validate.maxMeanErrorPct, "bound on the mean |cycle error|, percent")
      ->capture_default_str();
  validateCmd->add_option("--max-worst-error", validate.maxWorstErrorPct, "bound on every layer's |cycle error|, percent")
      ->capture_default_str();
  validateCmd->add_option("--min-speedup", validate.minSpeedup, "also require this simulation speed-up (0: not checked)")
      ->capture_default_str();
  validateCmd->add_option("--repeat", validate.repeat, "executions per layer on each backend")
      ->capture_default_str()->check(CLI::Range(1, 100));
  validateCmd->add_flag("--quiet", validate.quiet, "no progress messages");

  weft::tool::BaselinesOptions baselines;
  baselines.dir = weft::tool::dataDir() + "/traces/baselines";
  if (const char* d = std::getenv("WEFT_SCALESIM_DIR"); d != nullptr && *d != '\0') {
    baselines.scalesimDir = d;
  } else {
    baselines.scalesimDir = weft::tool::defaultScaleSimDir();
  }
  CLI::App* baselinesCmd = app.add_subcommand(
      "baselines", "compare every layer's cycles with traces/baselines (bundled networks, regression layers, SCALE-Sim "
                   "tables at the named configurations), or rewrite them with --update");
  baselinesCmd->add_flag("--update", baselines.update, "rewrite the baselines from this run");
  baselinesCmd->add_option("--dir", baselines.dir, "baseline directory")->capture_default_str();
  baselinesCmd->add_option("--scalesim-dir", baselines.scalesimDir, "SCALE-Sim tables (default $WEFT_SCALESIM_DIR)")
      ->capture_default_str();
  baselinesCmd->add_option("--sim", baselines.sim, "the backend that runs the workloads")
      ->capture_default_str()->check(CLI::IsMember({"approx", "rtl"}));
  baselinesCmd->add_option("--config", baselines.configs,
                           "configurations (default: each file's; with --update, weft8 and weft16 too)");
  baselinesCmd->add_option("--workload", baselines.only, "only these workloads (baseline file names without .json)");
  baselinesCmd->add_option("--jobs", baselines.jobs, "workers at once (default: one per CPU)")
      ->check(CLI::Range(1, 256));
  baselinesCmd->add_option("--work-dir", baselines.workDir, "worker reports (default out/baselines-<pid>)");
  baselinesCmd->add_flag("--quiet", baselines.quiet, "no progress messages");

  weft::tool::EstimateOptions estimate;
  CLI::App* estimateCmd = app.add_subcommand(
      "estimate", "the compiler's estimate of each layer's cycles against the run: networks whole, layer sets and "
                  "SCALE-Sim tables a layer at a time (median and worst error, layers within 10 %)");
  estimateCmd->add_option("workloads", estimate.workloads, "network descriptions, layer sets, SCALE-Sim tables")
      ->required()->check(CLI::ExistingFile);
  estimateCmd->add_option("--json", estimate.jsonPath, "per-layer figures as JSON");
  estimateCmd->add_option("--work-dir", estimate.workDir, "networks' run reports (default out/estimate-<pid>)");
  estimateCmd->add_flag("--per-layer", estimate.perLayer, "print every layer");
  estimateCmd->add_flag("--quiet", estimate.quiet, "no progress messages");

  weft::tool::CodesignCli codesign;  // sweep, report
  codesign.add(app);
  weft::tool::DramCommand dram;  // dram replay, dram devices
  dram.add(app);

  // A command line weft cannot take is bad input like any other: its message and exit code 2
  // (CLI11's own codes, 105 and up, say nothing to a script); --help still exits 0.
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  try {
    if (!hw.empty()) weft::hw::HwConfig::load(hw);  // a bad name fails here, naming the accepted ones
    // `weft dram` runs no network and needs nothing the restart below sets (the NNAPI allowlist,
    // malloc's huge pages): run at once, a replay starts in one exec, not two (14 -> 5.5 ms for
    // a one-line trace).
    if (const auto code = dram.run()) return *code;
    // A bad DRAM (an .ini file, a device smaller than DramMiB) fails here too, before anything is written.
    const auto dramDevice = weft::sim::dramDeviceFor(weft::hw::HwConfig::load(
        !hw.empty() ? hw : std::getenv("WEFT_HW") != nullptr ? std::getenv("WEFT_HW") : "weft16"));
    if (!dramTrace.empty() && dramDevice == nullptr) {
      throw std::invalid_argument("--dram-trace: the configuration's DRAM is the simple pipe (Dram \"simple\"); "
                                  "choose a cycle-level DRAM (e.g. --hw weft16-lpddr4)");
    }
    reexecWith(backend, hw, dramTrace, argv);
    if (configsCmd->parsed()) {
      for (const auto& name : weft::hw::HwConfig::namedConfigs()) {
        const auto c = weft::hw::HwConfig::load(name);
        const std::string enums = c.enumParamsText();  // "Dataflow WS"
        fmt::print("{:<10} {}x{} array{}, {} MHz, {} B/cycle DRAM, {} cycles latency\n", name, c.rows(), c.cols(),
                   enums.empty() ? "" : " (" + enums + ")", c.clockMHz(), c.get(weft::hw::Param::kDramBytesPerCycle),
                   c.get(weft::hw::Param::kDramLatencyCycles));
      }
      return 0;
    }
    // The bundled data a command defaults to: a missing one (an installed weft without its share
    // directory) is an error naming it, before anything runs.
    if (runCmd->parsed()) weft::tool::requireData(run.networkPath);
    // Where the reports go must be writable before anything runs (out/ by default).
    if (runCmd->parsed()) {
      for (const std::string& p : {run.jsonPath, run.csvPath}) weft::tool::requireWritableDirectoryFor(p.empty() ? "out/report" : p);
    }
    if (layersCmd->parsed()) {
      for (const std::string& p : {layers.jsonPath, layers.computeReportPath}) {
        weft::tool::requireWritableDirectoryFor(p.empty() ? "out/report" : p);
      }
    }
    if (validateCmd->parsed()) weft::tool::requireData(validate.layersPath);
    if (baselinesCmd->parsed()) weft::tool::requireData(baselines.dir);
    if (runCmd->parsed()) return weft::tool::runNetwork(run);
    if (layersCmd->parsed()) return weft::tool::runLayers(layers);
    if (validateCmd->parsed()) return weft::tool::runValidate(validate);
    if (baselinesCmd->parsed()) return weft::tool::runBaselines(baselines);
    if (estimateCmd->parsed()) return weft::tool::runEstimate(estimate);
    if (const auto code = codesign.run()) return *code;
  } catch (const std::exception& e) {
    fmt::print(stderr, "weft: error: {}\n", e.what());
    return 2;
  }
  return 0;
}
