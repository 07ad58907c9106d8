// `weft dram`: the cycle-level DRAM model on its own (sim/include/weft/sim/dram/, sim/dram/README.md).
//   weft dram replay TRACE --dram NAME_OR_INI [--json OUT]   a DRAMsim3-format trace, DRAMsim3's way
//   weft dram devices                                        the presets and their sources
// Bad input (a device description, a trace line, an address beyond the device) throws; main()
// prints it and exits with 2, and no JSON file is written.
#pragma once

#include <CLI/CLI.hpp>

#include <optional>
#include <string>

namespace weft::tool {

class DramCommand {
 public:
  // Adds `dram` to `app`; the object must outlive the parse.
  void add(CLI::App& app);
  // After parsing: the exit code if `dram` was parsed, else nullopt.
  std::optional<int> run() const;

 private:
  int replay() const;
  int devices() const;

  CLI::App* replayCmd_ = nullptr;
  CLI::App* devicesCmd_ = nullptr;
  std::string tracePath_, device_, jsonPath_, commandTracePath_;
  bool quiet_ = false;
};

}  // namespace weft::tool
