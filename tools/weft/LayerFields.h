// The op-specific part of a layer in a network description (traces/README.md): which ops
// exist, how many tensors each reads, and the JSON fields each takes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>
#include <nlohmann/json_fwd.hpp>
#include <string>

#include "Network.h"

namespace weft::tool {

// How many tensors a layer of `op` reads.
struct InputCount {
  size_t min = 1, max = 1;
};
InputCount inputCount(LayerOp op);

// Large enough for any real network, small enough that the shape arithmetic cannot overflow.
constexpr int64_t kMaxWindowField = 1 << 16;

// The op named `name` (NNAPI's spelling); NetworkError lists the known ones.
LayerOp parseOp(const std::string& name, const std::string& where);
// "SAME", "VALID" or {"top", "bottom", "left", "right"}.
Padding parsePadding(const nlohmann::json& padding, const std::string& where);
// PAD's "paddings": [[before, after], ...], flattened.
std::vector<int32_t> parsePaddings(const nlohmann::json& layer, const std::string& where);

// The fields of the operations that move data without arithmetic (RESHAPE's shape, BATCH_MATMUL's
// adjX/adjY, TRANSPOSE's perm, SLICE's begin and size), read alike by networks and layer sets;
// false for any other op.
bool parseDataMovementFields(const nlohmann::json& layer, Layer& l, const std::string& where);

// A layer's op and op fields; its name, inputs, shapes and data are the caller's.
Layer parseLayerFields(const nlohmann::json& layer, bool isSigned, const std::string& where);

// Draws the weights and bias of a layer that has them, once inferShapes knows its shapes.
void drawLayerData(Layer& l, const nlohmann::json& layer, bool isSigned, const std::string& where,
                   TensorValues values = TensorValues::kDrawn);

}  // namespace weft::tool
