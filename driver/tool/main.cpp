// weft: run NNAPI models on the simulated accelerator and report what the hardware did.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cstdlib>
#include <iostream>
#include <unistd.h>

#include "Network.h"
#include "Nnapi.h"
#include "RunCommand.h"
#include "weft/hw/config.h"

namespace {

// WEFT_BACKEND and WEFT_HW are read when libneuralnetworks.so loads, i.e. before main(): a
// --backend or --hw option sets them and runs the tool again with the new environment.
void reexecWith(const std::string& backend, const std::string& hw, char** argv) {
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
  if (changed) {
    execv("/proc/self/exe", argv);
    throw std::runtime_error("could not restart weft with the new environment");
  }
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"weft: NNAPI on a simulated systolic-array accelerator"};
  app.require_subcommand(1);
  std::string backend, hw;
  app.add_option("--backend", backend, "accelerator backend: rtl or approx (default: $WEFT_BACKEND, else rtl)")
      ->check(CLI::IsMember({"rtl", "approx"}));
  app.add_option("--hw", hw, "hardware configuration: a name of hw/configs or a JSON file (default: $WEFT_HW, else weft16)");

  weft::tool::RunOptions run;
  run.networkPath = std::string(WEFT_SOURCE_DIR) + "/traces/networks/mobilenet_v1_224_quant.json";
  CLI::App* runCmd = app.add_subcommand("run", "run a bundled network on the accelerator, check it against the CPU reference, report per-layer timing");
  runCmd->add_option("network", run.networkPath, "network description (traces/networks/*.json)")->capture_default_str();
  runCmd->add_option("--json", run.jsonPath, "JSON report path (default out/<network>-<backend>-<hw>.json)");
  runCmd->add_option("--csv", run.csvPath, "CSV report path (default out/<network>-<backend>-<hw>.csv)");
  runCmd->add_option("--tolerance", run.tolerance, "largest accepted |accelerator - reference| per element, quant8 units")
      ->capture_default_str()->check(CLI::NonNegativeNumber);
  runCmd->add_flag("--quiet", run.quiet, "no progress messages");

  CLI::App* configsCmd = app.add_subcommand("configs", "list the named hardware configurations");

  CLI11_PARSE(app, argc, argv);
  try {
    if (!hw.empty()) weft::hw::HwConfig::load(hw);  // a bad name fails here, naming the accepted ones
    reexecWith(backend, hw, argv);
    if (configsCmd->parsed()) {
      for (const auto& name : weft::hw::HwConfig::namedConfigs()) {
        const auto c = weft::hw::HwConfig::load(name);
        fmt::print("{:<10} {}x{} array, {} MHz, {} B/cycle DRAM, {} cycles latency\n", name, c.rows(), c.cols(),
                   c.clockMHz(), c.get(weft::hw::Param::kDramBytesPerCycle),
                   c.get(weft::hw::Param::kDramLatencyCycles));
      }
      return 0;
    }
    if (runCmd->parsed()) return weft::tool::runNetwork(run);
  } catch (const std::exception& e) {
    fmt::print(stderr, "weft: error: {}\n", e.what());
    return 2;
  }
  return 0;
}
