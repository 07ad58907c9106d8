// A list of layers to run one by one, each as a network of its own: read from a layer set
// (traces/validation/*.json, format in traces/README.md) or a SCALE-Sim layer table (conv or
// GEMM CSV, ../shared/workloads/scalesim/README.md).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "Network.h"

namespace weft::tool {

struct LayerEntry {
  std::string name;
  // Built when run: a table's weights need not all be in memory.
  std::function<Network(TensorValues)> build;
};

struct LayerTable {
  std::string name;    // the file's stem (SCALE-Sim tables) or its "name" (layer sets)
  std::string format;  // "layer set", "SCALE-Sim conv table", "SCALE-Sim GEMM table"
  std::vector<LayerEntry> layers;
};

// Reads a layer set (.json) or a SCALE-Sim table (.csv). NetworkError names the file, the line
// or entry, and what is accepted.
LayerTable loadLayerTable(const std::string& path);

// The SCALE-Sim formats alone (`text` is the file's contents, `name` its stem).
LayerTable parseScaleSimTable(const std::string& text, const std::string& name);

}  // namespace weft::tool
