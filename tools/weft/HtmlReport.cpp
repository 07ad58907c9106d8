#include "HtmlReport.h"
#include "DataDir.h"

#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <stdexcept>

#include "weft/common/process.h"

namespace weft::tool {

namespace fs = std::filesystem;

std::string htmlReportPath(const HtmlReportOptions& options) {
  if (!options.outPath.empty()) return options.outPath;
  if (options.inputs.size() != 1) throw std::runtime_error("several inputs: say where the report goes (--out)");
  const fs::path in(options.inputs.front());
  if (fs::is_directory(in)) return (in / "report.html").string();
  return fs::path(in).replace_extension(".html").string();
}

int writeHtmlReport(const HtmlReportOptions& options) {
  // Debian's python3 has Debian's matplotlib; a python3 earlier in PATH (pyenv, a venv) may not.
  const char* chosen = std::getenv("WEFT_PYTHON");
  const std::string python = chosen != nullptr && *chosen != '\0' ? chosen
                             : fs::exists("/usr/bin/python3")     ? "/usr/bin/python3"
                                                                  : "python3";
  std::vector<std::string> args = {python, dataDir() + "/scripts/weft_report.py"};
  args.insert(args.end(), options.inputs.begin(), options.inputs.end());
  args.insert(args.end(), {"--out", htmlReportPath(options)});
  if (!options.plotsDir.empty()) args.insert(args.end(), {"--plots", options.plotsDir});
  const common::ChildResult r = common::runChild(python, args);
  if (r.exitCode != 0) fmt::print(stderr, "weft: the HTML report was not written ({} failed)\n", python);
  return r.exitCode == 0 ? 0 : 2;
}

}  // namespace weft::tool
