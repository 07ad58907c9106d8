// The command line of the co-design sub-commands (`weft sweep`, `weft report`), kept out of
// main.cpp: they add themselves to the application and run when parsed.
#pragma once

#include <CLI/CLI.hpp>

#include <optional>
#include <string>

#include "HtmlReport.h"
#include "SweepCommand.h"

namespace weft::tool {

class CodesignCli {
 public:
  // Adds `sweep` and `report` to `app`; the object must outlive the parse.
  void add(CLI::App& app);
  // After parsing: the exit code of whichever of them was parsed, or nullopt for neither.
  std::optional<int> run();

 private:
  CLI::App* sweepCmd_ = nullptr;
  CLI::App* reportCmd_ = nullptr;
  SweepOptions sweep_;
  std::string shard_, sbatchArgs_;
  HtmlReportOptions report_;
};

}  // namespace weft::tool
