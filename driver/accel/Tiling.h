// Tiling: how a GEMM layer is cut to the array and the on-chip memories.
//
//  K (reduction) -> chunks of at most Rows bytes, each a contiguous byte range of the input
//       image relative to a window's origin. With dilation 1 the (fw, ci) bytes of one filter
//       row are contiguous in NHWC, so a filter row is one run; runs are cut into chunks. The
//       DMA's strided LOAD gathers a chunk for every output pixel of a tile: that is the im2col,
//       done by the DMA, never by the host. When filter rows are not whole rows (a 7x7 filter
//       over 3 channels: 21-byte runs, 14 chunks of 16 for K = 147), the packed mode fills the
//       rows instead: packed LOADs write each run at its byte of the pixel's K string, pixel by
//       pixel, so K takes ceil(K / Rows) chunks (10) and the array's rows stay full.
//  M (output pixels) -> boxes of at most `rowsPerTile` pixels: whole images, rows of one image,
//       or a segment of one row, so that one 3-level LOAD (ow, oh, batch or chunk) addresses them
//       and one 2-level STORE per image writes them back.
//  N (output channels) -> tiles of Cols channels, taken `tilesPerGroup` at a time; a group's
//       partial sums stay in the accumulator while K is streamed through.
//
// The loop nest (CommandGenerator.h) is, per parameter epoch (ParamRows n-tiles):
//    for outer in (boxes | groups): for inner in (groups | boxes):      (order)
//      for input-load in K: [LOAD inputs] for chunk: [LOAD weights] for n in group: GEMM
//      STORE the group
// Inputs are either resident (all K chunks of a box loaded once, reused by every group),
// streamed per group, or windowed: the box's receptive field (its input tile, padding included)
// is loaded once, pixel by pixel, and each chunk's GEMM walks its filter tap over the tile with
// strided input rows, so the windows are generated on chip and each input byte crosses the DRAM
// bus once per box instead of once per tap; weights are resident for the epoch, resident per group, or streamed per
// chunk. Every buffer is double-buffered (or deeper) so that load, compute and store overlap.
// rankTilings() enumerates the combinations that fit and ranks them with an analytic cost
// model; the compiler then schedules the best few and keeps the one whose timeline is shortest
// (the timeline sees the in-order units and buffer reuse that the analytic model does not).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "CompileOptions.h"
#include "CostModel.h"
#include "GemmLayer.h"
#include "ImageView.h"
#include "weft/hw/config.h"
#include "weft/nn/Result.h"

namespace weft::accel {

// A contiguous piece of K: `bytes` input bytes at `offset` from the window origin (in a view
// with the layer's strides), weights rows [kBegin, kBegin + bytes).
struct KChunk {
  int64_t offset = 0;
  uint32_t bytes = 0;
  uint32_t kBegin = 0;
};

// Consecutive chunks of one run loaded by one LOAD (count2 walks them, stride Rows).
struct ChunkGroup {
  uint32_t first = 0, count = 0;
};

// A rectangle of output pixels: images [b0, b0+nb), rows [oh0, oh0+noh), columns [ow0, ow0+now).
struct MBox {
  uint32_t b0 = 0, nb = 1, oh0 = 0, noh = 1, ow0 = 0, now = 1;
  uint32_t rows() const { return nb * noh * now; }
};

enum class LoopOrder { kBoxesOuter, kGroupsOuter };
enum class InputMode { kResident, kStreamed, kWindowed };
enum class WeightMode { kResidentEpoch, kResidentGroup, kStreamed };

struct TilePlan {
  std::vector<KChunk> chunks;
  std::vector<ChunkGroup> inputLoads;  // how K is loaded for one box (covers all chunks in order)
  std::vector<MBox> boxes;
  uint32_t rowsPerTile = 0;            // the largest box
  uint32_t nTiles = 0;                 // ceil(N / Cols)
  uint32_t tilesPerGroup = 0;
  uint32_t tilesPerEpoch = 0;          // n-tiles whose parameter rows are resident at once
  LoopOrder order = LoopOrder::kBoxesOuter;
  InputMode inputMode = InputMode::kStreamed;
  WeightMode weightMode = WeightMode::kStreamed;
  uint32_t accBuffers = 2;             // accumulator regions of tilesPerGroup x rowsPerTile rows
  uint32_t inSlots = 2;                // streamed: input slots of (largest input load) x rows;
                                       // resident: regions of all chunks x rows (1 or 2)
  uint32_t wSlots = 2;                 // streamed: weight slots of tilesPerGroup tiles
  // Packed (resident inputs only): chunk c is K bytes [c * Rows, ...), whatever runs they come
  // from; the region holds a box pixel by pixel (pixel p's K string from row p * chunks on) and
  // is filled by one packed LOAD per piece, a piece being a run (or part of one) of the window.
  bool packed = false;
  std::vector<KChunk> pieces;
  // The first and last boxes cut into a ramp of smaller ones (rampedPlan), and the epoch's first
  // weights and parameter rows loaded so that the first GEMM waits for as little as it can.
  bool ramped = false;
  double estimatedCycles = 0;

  uint32_t largestLoad() const;
  std::string describe() const;
};

// Whether the plan's GEMMs go in steps over K: each tile takes the chunks of an input load one
// after the other, GEMMs the command generator folds into one of k_steps steps, instead of each
// chunk going across the group's tiles. Needs every chunk of the load with its weights in place:
// resident, or streamed a load's chunks at a time into one of at least two ranges of slots. Not
// windowed plans: a box's images share a chunk's weights instead (keep_weights).
bool steppable(const TilePlan& plan);

// The input tile a windowed box reads, per image: `height` x `width` pixels of `blocks` rows
// each (a pixel's channels, Rows bytes a row, channel blocks fastest), padding included.
struct WindowTile {
  uint32_t height = 0, width = 0, blocks = 0;
  uint64_t rowsPerImage() const { return uint64_t{height} * width * blocks; }
};
WindowTile windowTile(const GemmLayer& layer, const MBox& box, unsigned rows);

// Whether the windowed input mode applies: channels a multiple of Rows (whole scratchpad rows,
// which the DMA fetches with merged requests) held densely in the input view.
bool windowable(const GemmLayer& layer, const ImageView& input, unsigned rows);

// The K chunks of the windowed mode: one per filter tap and block of Rows channels, in K order.
std::vector<KChunk> windowChunks(const GemmLayer& layer, unsigned rows);

// The window's contiguous runs in a view with the given pixel and row strides, in K order, cut
// into pieces of at most `maxBytes`: the layer's K chunks when that is Rows, the pieces a packed
// plan loads when it is a packed LOAD row's limit (isa.json).
std::vector<KChunk> chunkK(const GemmLayer& layer, uint64_t pixelStride, uint64_t rowStride,
                           uint32_t maxBytes);
// The chunks of a packed plan: K cut into rows, ceil(K / Rows) of them.
std::vector<KChunk> packedChunks(const GemmLayer& layer, unsigned rows);

// `plan` with its first and last boxes cut into a ramp of smaller boxes (a quarter of the first
// box's size, at least 16 pixels or the output-stationary block), `ramped` set; nothing when the
// plan has fewer than three boxes or is ramped already. Nothing overlaps the first box's input
// load nor the last box's STORE, so on a short layer the ends are a visible share of its time;
// the compiler schedules the variant of its choice and keeps it when its timeline is shorter.
std::optional<TilePlan> rampedPlan(const TilePlan& plan, const hw::HwConfig& config);

// Every tiling that fits `config`'s memories, fastest first by the analytic estimate, keeping
// the `shapes` best distinct shapes (all their input-load sizes). Empty when none fits, which
// only a pathological configuration can cause.
// `input` is the layer's input view (it decides whether the windowed mode applies). A `choice`
// other than kAny keeps only the candidates that feed the array that way, when there are any.
std::vector<TilePlan> rankTilings(const GemmLayer& layer, const std::vector<KChunk>& chunks, const ImageView& input,
                                  const hw::HwConfig& config, size_t shapes, InputChoice choice = InputChoice::kAny);


}  // namespace weft::accel
