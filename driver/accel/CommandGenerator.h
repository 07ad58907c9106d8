// Command generation: one tiled GEMM layer -> its LOAD / GEMM / STORE commands, in the order
// of the loop nest of Tiling.h, each annotated with the buffers it uses; and the device images
// of the layer's weights (tiles in the order the loads fetch them) and parameter rows.
#pragma once

#include <cstdint>
#include <vector>

#include "GemmLayer.h"
#include "MemoryPlan.h"
#include "PlannedCommand.h"
#include "Tiling.h"
#include "weft/hw/config.h"
#include "weft/nn/Result.h"

namespace weft::accel {

// Weight tiles of Rows x Cols bytes: for each group, for each chunk, for each tile of the
// group, row r = the weights of K index chunk.kBegin + r for the tile's Cols channels. Rows
// past the chunk and channels past N hold the weight zero point (they contribute nothing).
std::vector<uint8_t> weightImage(const GemmLayer& layer, const TilePlan& plan, const hw::HwConfig& config);
// Its size, without building it.
uint64_t weightImageBytes(const TilePlan& plan, const hw::HwConfig& config);

// Whether a plan's weights, resident for one epoch, fit the weight scratchpad twice: then layers
// that keep the parameter rows (LayerPlacement::paramsResident) can alternate between its halves
// (LayerPlacement::weightBank).
bool weightBanksFit(const TilePlan& plan, const hw::HwConfig& config);
// The byte offset in that image of n-tile `tile`'s weights for K chunk `chunk`.
uint64_t weightTileOffset(const TilePlan& plan, uint32_t tile, uint32_t chunk, const hw::HwConfig& config);

// One parameter row (9 x Cols bytes: bias, multiplier, shift) per n-tile.
std::vector<uint8_t> paramImage(const GemmLayer& layer, const TilePlan& plan, const hw::HwConfig& config);

// Rows of the input zero point that a windowed input tile's padding pixels are loaded from
// (x - zero point is 0, so padding adds nothing); empty unless the plan is windowed.
std::vector<uint8_t> paddingImage(const GemmLayer& layer, const TilePlan& plan, const hw::HwConfig& config);

// The layer's commands, without tokens, in program order into `out`. Epochs after the first
// start with a plain barrier. BAD_DATA when a stride does not fit its command field; the sink
// may then have received part of the layer.
nn::Status generateCommands(const GemmLayer& layer, const TilePlan& plan, const LayerPlacement& where,
                            const hw::HwConfig& config, CommandSink& out);

// The GEMMs generateCommands() emits for the plan, counted a step each (one command may hold
// several steps over K): how many, and the sum of their busy cycles (CostModel::gemmBusyCycles),
// which is what a truncated estimate extrapolates over.
struct GemmWork {
  uint64_t commands = 0;
  double busyCycles = 0;
};
GemmWork gemmWork(const TilePlan& plan, const hw::HwConfig& config);

// Appends them to `out`, which is left as it was on BAD_DATA.
nn::Status generateCommands(const GemmLayer& layer, const TilePlan& plan, const LayerPlacement& where,
                            const hw::HwConfig& config, std::vector<PlannedCommand>& out);

}  // namespace weft::accel
