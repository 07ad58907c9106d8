// The HTML report (`weft report`, and --html on `weft run` / `weft layers`): one self-contained
// page with tables and plots, made by scripts/weft_report.py with Debian's matplotlib.
#pragma once

#include <string>
#include <vector>

namespace weft::tool {

struct HtmlReportOptions {
  std::vector<std::string> inputs;  // weft run / layers JSON reports, weft sweep directories
  std::string outPath;              // empty: beside a single input (DIR/report.html, <report>.html)
  std::string plotsDir;             // also every plot as .svg and .png; empty: none
};

// The page's path for `options` (its outPath, or the default beside a single input); throws
// std::runtime_error when several inputs leave it open.
std::string htmlReportPath(const HtmlReportOptions& options);

// Runs the report script ($WEFT_PYTHON, else /usr/bin/python3, else python3 from PATH);
// returns its exit code (0: written).
int writeHtmlReport(const HtmlReportOptions& options);

}  // namespace weft::tool
