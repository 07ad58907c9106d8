// A layer set entry (traces/validation/*.json, format in traces/README.md) of any operation other
// than CONV_2D and FULLY_CONNECTED (those are LayerShapes, as SCALE-Sim tables give them): its
// shapes, parameters, tensor type and quantization, checked when the set is read, and its
// deterministic data, drawn when the layer runs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json_fwd.hpp>

#include "Network.h"

namespace weft::tool {

struct LayerSpec {
  Network network;  // one layer, shapes and quantization settled, no data yet
  uint64_t seed = 1;
};

// Reads entry `index` of a layer set's "layers"; NetworkError names the entry, the layer and the
// field at fault (an unknown field too: a misspelt one would otherwise be a silent default).
LayerSpec parseLayerSpec(const nlohmann::json& entry, size_t index);

// The layer with its data: inputs from seed, seed + 1..., weights and bias from the two seeds
// after the inputs'.
Network buildLayer(const LayerSpec& spec, TensorValues values = TensorValues::kDrawn);

}  // namespace weft::tool
