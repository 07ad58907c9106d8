// weft_synth [--no-cache] <config>...: synthesizes each configuration's weft_top with yosys
// (Synthesis.h) and prints its standard cells and logic area; exits 1 when one fails. The
// rtl.synth.* tests run it.
#include <fmt/format.h>

#include <cstring>
#include <string>

#include "Synthesis.h"

int main(int argc, char** argv) {
  using namespace weft::codesign;
  SynthesisSetup setup = SynthesisSetup::fromBuild();
  int status = 0, configs = 0;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--no-cache") == 0) {
      setup.cacheDir.clear();
      continue;
    }
    ++configs;
    try {
      const auto hw = weft::hw::HwConfig::load(argv[i]);
      const LogicArea a = synthesizeLogic(hw, setup);
      fmt::print("{}: {}\n", hw.name(), a.note);
      if (!a.synthesized) {
        status = 1;
        continue;
      }
      fmt::print("  logic {:.1f} um^2 ({:.4f} mm^2), {} cells, {} memories left to the SRAM model{}\n",
                 a.um2, a.um2 * 1e-6, a.cells, a.srams, a.fromCache ? " (cached)" : "");
      for (const auto& [type, n] : a.cellsByType) {
        const auto it = a.um2ByType.find(type);
        fmt::print("  {:<14} {:>8} cells {:>12.1f} um^2\n", type, n, it == a.um2ByType.end() ? 0.0 : it->second);
      }
    } catch (const std::exception& e) {
      fmt::print(stderr, "{}: {}\n", argv[i], e.what());
      status = 1;
    }
  }
  if (configs == 0) {
    fmt::print(stderr, "usage: weft_synth [--no-cache] <config>...\n");
    return 2;
  }
  return status;
}
