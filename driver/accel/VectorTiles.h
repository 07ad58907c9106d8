// The building blocks vector layers are made of: a tensor cut into lane groups, boxes of its
// pixels held in the vector scratchpad, and the LOAD, vector and STORE commands that move them
// (with the buffers each touches, for the scheduler; CommandCost.h costs them).
//
// The vector unit works on rows of Cols bytes: channel group g of a pixel is its channels
// [g*Cols, (g+1)*Cols). A box of pixels is held either pixel-major (all groups of a pixel in
// consecutive rows; loaded with merged requests when the pixels are dense, the fast form) or
// plane-major (one plane of rows per group; any channel count, any pixel stride).
#pragma once

#include <cstdint>
#include <optional>

#include "ElementType.h"
#include "ImageView.h"
#include "GemmLayer.h"
#include "PlannedCommand.h"
#include "weft/hw/config.h"
#include "weft/hw/postproc.h"
#include "weft/nn/Result.h"

namespace weft::accel {

inline uint64_t ceilDiv(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

// A tensor as the vector unit reads or writes it: an NHWC image in DRAM.
struct LaneImage {
  ImageView view;
  ImageShape shape;
  uint32_t cols = 1;

  uint32_t groups() const { return static_cast<uint32_t>(ceilDiv(shape.channels, cols)); }
  uint32_t groupBytes(uint32_t g) const { return std::min(cols, shape.channels - g * cols); }
  uint64_t pixelAddr(uint32_t b, uint32_t y, uint32_t x) const {
    return view.origin + b * view.imageStride + y * view.rowStride + x * view.pixelStride;
  }
  // Every group is full and pixels are packed: a pixel's groups are consecutive rows.
  bool packed() const { return shape.channels % cols == 0 && view.pixelStride == shape.channels; }
};

// A box of pixels of one image: rows [y0, y0 + h), columns [x0, x0 + w).
struct PixelBox {
  uint32_t b = 0, y0 = 0, h = 1, x0 = 0, w = 1;
  uint64_t pixels() const { return uint64_t{h} * w; }
};

// Where a box lives in the vector scratchpad.
struct TileLayout {
  uint32_t base = 0;
  bool pixelMajor = false;  // all held groups of a pixel in consecutive rows
  uint32_t groups = 1;      // groups held
  uint32_t width = 1, height = 1;

  uint32_t rows() const { return groups * width * height; }
  uint32_t pixStride() const { return pixelMajor ? groups : 1; }
  uint32_t rowStride() const { return width * pixStride(); }
  // The row of pixel (0, 0) of held group g.
  uint32_t groupBase(uint32_t g) const { return pixelMajor ? base + g : base + g * width * height; }
};

// The identity of the STORE's post-processing: bias 0, multiplier 2^30, shift 1, which returns
// the accumulator unchanged (results the vector unit already computed in the output's domain).
constexpr hw::ColumnParams kIdentityColumn{0, 1 << 30, 1};

// One parameter row per entry of `columns`, Cols columns each (past the end: identity).
std::vector<uint8_t> paramRows(const std::vector<hw::ColumnParams>& columns, uint32_t rows, const hw::HwConfig& config);

// Emits a vector layer's commands into a sink, with the buffers each uses.
class VectorCommands {
 public:
  VectorCommands(const hw::HwConfig& config, CommandSink& out)
      : config_(config), out_(out), storeParams_(bufferId(BufferKind::kParams, 0)) {}

  // LOADs of `box` of `image` into `tile` (groups [firstGroup, firstGroup + tile.groups)),
  // writing buffer `buffer`. `broadcastLanes`: one byte a pixel (an operand broadcast along
  // channels), each row's byte in lane 0.
  nn::Status loadBox(const LaneImage& image, const PixelBox& box, const TileLayout& tile, uint32_t firstGroup,
                     uint32_t buffer, bool broadcastLanes = false);
  // One plane: channels [channelOffset, channelOffset + rowBytes) of every pixel of `box`, a
  // row each (column fastest) from spad row `base` on.
  nn::Status loadPlane(const LaneImage& image, const PixelBox& box, uint32_t channelOffset, uint32_t rowBytes,
                       uint32_t base, uint32_t buffer);
  // `rows` rows of `rowBytes` (at most the row size of `dst`) from DRAM, `stride` apart (count1
  // runs of them `stride1` apart), into consecutive rows from `spadAddr`.
  nn::Status loadRows(hw::Mem dst, uint64_t dram, uint32_t spadAddr, uint32_t rows, uint32_t rowBytes,
                      uint64_t stride, uint32_t buffer, uint32_t count1 = 1, uint64_t stride1 = 0);
  // `runs` runs of `rowsPerRun` contiguous rows of Cols bytes (one merged request a run), runs
  // `runStride` bytes apart, row j of run i landing at spad row spadAddr + j*packStride + i (LOAD
  // spread; packStride 0: `runs`): the lane groups of `runs` pixels whose channels are
  // contiguous, group-major (in a tile of packStride pixels).
  // `planes` > 1: as many such walks, `planeStride` bytes apart, the runs of walk k landing at
  // spadAddr + j*packStride + k*runs + i (an image row of pixels a walk).
  nn::Status loadSpread(uint64_t dram, uint32_t spadAddr, uint32_t runs, uint64_t runStride, uint32_t rowsPerRun,
                        uint32_t buffer, uint32_t packStride = 0, uint32_t planes = 1, uint64_t planeStride = 0);
  // A STORE of accumulator rows acc .. (one per pixel of `box`, column fastest) into group
  // `group` of `image`.
  nn::Status storeBox(const LaneImage& image, const PixelBox& box, uint32_t group, uint32_t acc, uint32_t accBuffer,
                      uint32_t paramRow, int32_t outZp, int32_t clampMin, int32_t clampMax);
  // A STORE of rows x count1 accumulator rows to DRAM rows `stride` apart (count1 runs of them
  // `stride1` apart), `rowBytes` each.
  nn::Status storeRows(uint64_t dram, uint64_t stride, uint32_t rows, uint32_t rowBytes, uint32_t acc,
                       uint32_t accBuffer, uint32_t paramRow, int32_t outZp, int32_t clampMin, int32_t clampMax,
                       uint32_t count1 = 1, uint64_t stride1 = 0);
  // A STORE of `rows` DRAM rows `stride` apart, each `tiles` column tiles of Cols bytes (the last
  // `lastBytes`): tile t of row i is accumulator row acc + t*tileAccStride + i, post-processed with
  // parameter row paramRow + t. A row's tiles go out as one request (tiles: 1 .. StoreFifoDepth,
  // more than one where Cols is whole bus beats: maxStoreTiles()).
  nn::Status storeTiledRows(uint64_t dram, uint64_t stride, uint32_t rows, uint32_t tiles, uint32_t lastBytes,
                            uint32_t acc, uint32_t tileAccStride, uint32_t accBuffer, uint32_t paramRow, int32_t outZp,
                            int32_t clampMin, int32_t clampMax);
  uint32_t maxStoreTiles() const;
  // A vector command with the buffers it reads and the accumulator buffer it writes.
  void vector(const TypedCommand& cmd, BufferUses uses);
  // A one-row ELTWISE copy of scratchpad row `vecRow` into accumulator row `acc`, a row no STORE
  // reads: a command that only carries the ordering its `uses` give it (run after the commands
  // they order it after, before those ordered after it) across units no token queue joins, through
  // the vector unit's queues. The scheduler places the tokens: a STORE before the LOAD that
  // rewrites the parameter rows it reads (the relay declares writing them), a LOAD before the
  // STOREs that read what it loaded (the relay declares reading them and writing a buffer those
  // STOREs declare reading). The row it reads may be rewritten meanwhile: its copy is never used.
  void relay(uint32_t vecRow, uint32_t acc, BufferUses uses);
  // STOREs from now on write values of type `t`: mode fp16 for binary16 results (the row's bytes
  // are two a column, the clamp binary16 bit patterns), requant8 for 8-bit ones; or `mode`, one
  // of the type's other modes (fp16_affine: the parameters' multiplier words too).
  void setStoreType(ElementType t, std::optional<hw::StoreMode> mode = std::nullopt) {
    storeType_ = t;
    storeMode_ = mode;
  }
  // STOREs from now on declare reading parameter buffer `params` (paramBuffer(i)) and, unless 0,
  // buffer `also` (a relay's: see relay()).
  void setStoreReads(uint32_t params, uint32_t also = 0) {
    storeParams_ = params;
    storeAlso_ = also;
  }

 private:
  void emit(PlannedCommand&& pc) { out_.add(std::move(pc)); }
  // A STORE of `rows` rows of one tile (`rowBytes`), the fields every row store shares.
  hw::StoreCmd rowStore(uint64_t dram, uint64_t stride, uint32_t rows, uint32_t rowBytes, uint32_t acc,
                        uint32_t paramRow, int32_t outZp, int32_t clampMin, int32_t clampMax) const;
  nn::Status emitStore(const hw::StoreCmd& s, uint32_t accBuffer);

  const hw::HwConfig& config_;
  CommandSink& out_;
  ElementType storeType_ = ElementType::kQuant8Asymm;
  std::optional<hw::StoreMode> storeMode_;
  uint32_t storeParams_, storeAlso_ = 0;
};

// Buffer ids of vector layers (PlannedCommand.h): scratchpad regions, accumulator halves.
inline uint32_t vecBuffer(uint32_t i) { return bufferId(BufferKind::kVector, i); }
inline uint32_t accBuffer(uint32_t i) { return bufferId(BufferKind::kAccumulator, i); }
// Parameter rows: one buffer, or (paramBuffer(i)) regions the scheduler orders apart.
inline uint32_t paramBuffer(uint32_t i = 0) { return bufferId(BufferKind::kParams, i); }
inline uint32_t lutBuffer() { return bufferId(BufferKind::kLut, 0); }

}  // namespace weft::accel
