// libFuzzer target: the tables users bring from SCALE-Sim (tools/weft/LayerTable.h,
// ScaleSimReport.h): layer tables (conv and GEMM CSV) and COMPUTE_REPORT.csv files, as users
// really write them (byte-order marks, spaces, empty cells, CR LF). The first byte picks the
// reader. Any text must be refused with the reader's error (NetworkError, ScaleSimReportError),
// naming the line and what is accepted, or read. Never a crash, an uncaught exception of another
// kind, or undefined behaviour.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "LayerTable.h"
#include "Network.h"
#include "ScaleSimReport.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  try {
    if (data[0] % 2 == 0) {
      const weft::tool::LayerTable table = weft::tool::parseScaleSimTable(text, "fuzz");
      (void)table.layers.size();
    } else {
      const std::vector<std::string> tableNames{"Conv1", "Conv2", "FC"};
      const weft::tool::ScaleSimReport report = weft::tool::parseComputeReport(text, "fuzz input", tableNames);
      for (const auto& layer : report.layers) (void)layer.line;
    }
  } catch (const weft::tool::NetworkError&) {
    // refused, as a malformed table must be
  } catch (const weft::tool::ScaleSimReportError&) {
    // likewise for a malformed report
  }
  return 0;
}
