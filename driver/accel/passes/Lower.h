// Pass 1, lowering: the model's operations -> the accelerator's layers, in dependency order.
//
// Input: the model (every operation supported; Device checks that first). Output: LoweredModel.
#pragma once

#include <optional>
#include <vector>

#include "../Lowering.h"
#include "CompileTarget.h"
#include "weft/nn/Result.h"
#include "weft/nn/Types.h"

namespace weft::accel {

struct LoweredModel {
  // Every operation's lowering (one layer or several), in an order where each follows the
  // producers of its inputs.
  std::vector<std::optional<LoweredOperation>> operations;
};

// BAD_DATA when the operations form a cycle, there are none, or one is not supported here.
nn::Result<LoweredModel> lowerModel(const nn::Model& model, const CompileTarget& target);

// An fp16 layer needs the fp16 datapath; without it the runtime runs the operation elsewhere.
nn::Status datapathFits(const LoweredLayer& lo, const hw::HwConfig& config);

}  // namespace weft::accel
