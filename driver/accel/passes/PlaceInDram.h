// Pass 4, placement in DRAM: every tensor's device buffer, the snapshot records and each layer's
// constant images (weights, parameter rows, padding, lookup tables), placed and written.
//
// Input: LayoutPlan and ModelTilings. Output: DramPlacement. The caller holds the device's lock
// (DeviceQueue::mutex()): this is the only pass that touches the device. On the timing backend
// (CompileTarget::computesData false) the buffers are placed alike but neither filled nor written.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "../DeviceQueue.h"
#include "../DramAllocator.h"
#include "../MemoryPlan.h"
#include "CompileTarget.h"
#include "SearchTilings.h"
#include "weft/nn/Result.h"

namespace weft::accel {

struct PlacedTensor {
  TensorLayout layout;
  SharedRegion region;
};

// Where one layer's constant images and scratch lie (0: it has none of that kind).
struct LayerConstants {
  uint64_t weights = 0, params = 0, padding = 0;  // an array layer's (LayerPlacement)
  uint64_t copyRow = 0;  // the parameter row of the copies that repack runtime filters and biases
  std::vector<uint64_t> images;  // a vector layer's, per VectorLayer::constantImages() entry
  uint64_t scratch = 0;          // the scratch DRAM the layer asked for (LoweredLayer::scratchBytes)
};

struct DramPlacement {
  std::map<uint32_t, PlacedTensor> tensors;  // views into another tensor share its region
  std::vector<SharedRegion> constants;       // every layer's constant images
  SharedRegion snapshots;                    // 1 + layers snapshot records
  std::vector<LayerConstants> layers;        // per layer of the plan
};

// RESOURCE_EXHAUSTED_* when DRAM is full, BAD_DATA for a constant operand shorter than its shape.
nn::Result<DramPlacement> placeInDram(const nn::Model& model, const LayoutPlan& plan, const ModelTilings& tilings,
                                      DeviceQueue& queue, const CompileTarget& target);

// A tensor's device buffer as preparation writes it before any constant value: the whole region
// at its fill (the zero point, PAD's value inside), with Cols bytes of slack the vector unit's last
// row may read.
std::vector<uint8_t> initialTensorImage(const TensorLayout& layout, const hw::HwConfig& config);
// Its size, without building it.
uint64_t tensorImageBytes(const TensorLayout& layout, const hw::HwConfig& config);

}  // namespace weft::accel
