// Logic area of a configuration from yosys synthesis of the whole weft_top (README.md): the
// coarse cells of `synth -run begin:fine` priced by their widths in NanGate 45 nm Open Cell
// Library gates, the SRAM macros left to the per-KiB model, cached per RTL parameter set.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "weft/hw/config.h"

namespace weft::codesign {

// um^2 of one cell of a yosys gate-level type ($_AND_, $_DFFE_PN0P_, ...); a negative value for
// a type the table does not know. The table and its sources are in README.md; coarse cells
// ($alu, $mul, $dffe, ...) are priced by their widths in gates of this table.
double cellUm2(const std::string& type);

// Where synthesis finds its inputs and keeps its results.
struct SynthesisSetup {
  std::string yosys;                 // the yosys program; "none" or "0": do not synthesize
  std::vector<std::string> sources;  // the RTL of weft_top in compile order, the package first
  std::string rtlDigest;             // fingerprint of the sources (cmake/WeftRtl.cmake)
  std::string cacheDir;              // where results are kept; empty: no cache

  // This build's RTL; yosys from WEFT_YOSYS, else `yosys` on PATH; the cache in WEFT_AREA_CACHE,
  // else the build's area-cache directory.
  static SynthesisSetup fromBuild();
};

struct LogicArea {
  bool synthesized = false;   // false: um2 is 0 and note says why
  double um2 = 0;             // the logic: the cells' prices summed
  uint64_t cells = 0;         // the cells priced (coarse cells: an $alu is one, a $dffe of any width one)
  uint64_t uncounted = 0;     // cells of types the table does not know (not in um2)
  uint64_t srams = 0;         // memories left to the SRAM model
  std::map<std::string, uint64_t> cellsByType;  // all of weft_top's cells by yosys type
  std::map<std::string, double> um2ByType;
  bool fromCache = false;
  std::string note;           // where um2 comes from, or why there is none
};

// The logic of `hw`'s weft_top: from the cache when a result for the same RTL, parameters and
// flow is there, else by running yosys (minutes for the larger configurations) and caching the
// result. Never throws: a missing or failing yosys gives synthesized = false and a note.
LogicArea synthesizeLogic(const hw::HwConfig& hw, const SynthesisSetup& setup);

// A process remembers each result it got (a sweep asks once per point); this forgets them, so
// the next synthesizeLogic() goes to the cache file again (tests).
void forgetSynthesisResults();

// The yosys script for `hw`: reads the single source file `source` (the RTL with its packages
// dissolved into the compilation unit: yosys 0.23 has no `import`), synthesizes to coarse cells
// and writes them as RTLIL to `netlist`.
std::string yosysScript(const hw::HwConfig& hw, const std::string& source, const std::string& netlist);

// The RTL sources as one file for yosys 0.23: package/endpackage and import lines dropped and
// `pkg::` prefixes removed, so the packages' declarations land in the compilation unit.
std::string dissolvePackages(const std::vector<std::string>& sources);

// Cell counts and area of the top module's hierarchy in an RTLIL netlist, each coarse cell
// priced by its parameters (README.md); synthesized = false with a note when there is none.
LogicArea parseNetlist(const std::string& rtlil);

}  // namespace weft::codesign
