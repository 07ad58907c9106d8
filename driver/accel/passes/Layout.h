// Pass 2, layout: how every tensor is kept in DRAM (MemoryPlan.h), then the lowering that
// depends on it (a FULLY_CONNECTED over an image tensor reads the image whole).
//
// Input: LoweredModel. Output: LayoutPlan (MemoryPlan.h): every tensor's layout, and the layers
// in dependency order in their final form.
#pragma once

#include "../MemoryPlan.h"
#include "Lower.h"
#include "weft/nn/Result.h"

namespace weft::accel {

// BAD_DATA (the first operation's reason) when the layouts leave an operation unsupported.
nn::Result<LayoutPlan> layoutModel(const nn::Model& model, LoweredModel lowered);

// The support check's form: the layouts of the operations that lowered (`ops[i]` for operation
// i, nullopt when it did not), and every operation they leave unsupported in `rejected`.
LayoutPlan layoutOperations(const nn::Model& model, std::vector<std::optional<LoweredOperation>> ops,
                            std::map<uint32_t, nn::Error>* rejected);

}  // namespace weft::accel
