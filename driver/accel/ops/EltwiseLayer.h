// Element-wise work on the vector unit (ELTWISE commands): ADD, SUB and MUL with NNAPI's
// two-input requantization and broadcasting; RELU, RELU1, RELU6, LOGISTIC and TANH through a
// lookup table; and the copies CONCATENATION, PAD and RESHAPE make (plain, or through a table
// when the quantization changes).
//
// A piece is one output image (or a box of it: a CONCATENATION input's place, PAD's interior)
// computed from one or two operand images broadcast to it (an operand dimension is the output's
// or 1). Three ways to cut it, fastest first:
//   flat        every image dense and of the output's shape: the bytes as rows of Cols, any
//               channel count, loaded and stored with merged contiguous requests;
//   row-packed  the same shapes, channels a multiple of Cols, pixels packed (image rows may be
//               strided, e.g. a halo): each image row's groups are contiguous rows;
//   general     anything else (broadcasting, strided pixels, odd channels): plane by plane, a
//               row per pixel and channel group, with stride-0 rows and lane broadcast.
// Tiles alternate between two scratchpad buffers per operand and two accumulator halves.
#pragma once

#include <vector>

#include "../Lowering.h"
#include "../Requantization.h"
#include "../VectorLayer.h"
#include "../VectorTiles.h"

namespace weft::accel {

// What an ELTWISE computes and how its STORE post-processes it.
struct EltwiseMath {
  hw::EltKind kind = hw::EltKind::kCopy;
  // The operands' types (kFloat16: ELTWISE fp16 on binary16 values); the result is of a's type.
  ElementType aType = ElementType::kQuant8Asymm, bType = ElementType::kQuant8Asymm;
  int32_t aZp = 0, bZp = 0;
  uint32_t leftShift = 0;
  int32_t aMult = 0, bMult = 0;
  int32_t aShift = 0, bShift = 0;
  std::vector<int32_t> lut;                 // kLut: LutEntries entries
  hw::ColumnParams column = kIdentityColumn;  // the STORE's requantization (add, mul)
  int32_t outZp = 0;
  ClampRange clamp;
  // On binary16 values (ELTWISE and STORE fp16), kLut's `lut` holds 256 pieces of a
  // piecewise-linear function (hw/spec/isa.json) and `clamp` binary16 bit patterns.
  bool binary() const { return kind == hw::EltKind::kAdd || kind == hw::EltKind::kMul; }
};

// Bytes moved as they are (either signedness): unsigned in, identity out, the full byte range.
inline EltwiseMath byteCopy() {
  EltwiseMath m;
  m.kind = hw::EltKind::kCopy;
  m.clamp = ClampRange{0, 255};
  return m;
}

// Emits the commands of pieces of element-wise work into one layer, sharing its buffers.
class EltwiseEmitter {
 public:
  EltwiseEmitter(const hw::HwConfig& config, CommandSink& sink);
  // The layer's parameter rows (`paramRows` identical ones: wideRowParamRows) and lookup table (at
  // their DRAM addresses), before any piece.
  nn::Status begin(uint64_t paramAddr, std::optional<uint64_t> lutAddr, uint32_t paramRows = 1);
  // Loads another lookup table for the pieces that follow.
  nn::Status loadLut(uint64_t lutAddr);
  // out = math(a, b) over `out`'s shape; a and b are broadcast to it (b ignored when unary).
  nn::Status piece(const EltwiseMath& math, const LaneImage& a, const LaneImage* b, const LaneImage& out);
  // Whether a unary piece over pixels of several lane groups that are not dense in DRAM (a
  // strided copy's) loads each pixel's groups as one run (pixelRuns) instead of group by group.
  void preferPixelRuns(bool on) { pixelRuns_ = on; }
  // `values` binary16 values, dense at `src`, widened to binary32 (ELTWISE fp16 add of +0, exact
  // but for -0's sign; STORE raw32 through the identity parameter row begin() loaded): value v
  // lands at dst + (v / perRow) * rowStride + 4 * (v % perRow). `perRow` is a multiple of Cols/2
  // (a parameter row's bias column); `zeroRow` is Cols zero bytes in DRAM (binary16 +0).
  nn::Status widenFp16(uint64_t src, uint64_t values, uint64_t dst, uint32_t perRow, uint64_t rowStride,
                       uint64_t zeroRow);

 private:
  nn::Status flat(const EltwiseMath& math, const LaneImage& a, const LaneImage* b, const LaneImage& out);
  nn::Status rowPacked(const EltwiseMath& math, const LaneImage& a, const LaneImage* b, const LaneImage& out);
  nn::Status general(const EltwiseMath& math, const LaneImage& a, const LaneImage* b, const LaneImage& out);
  nn::Status wideRows(const EltwiseMath& math, const LaneImage& a, const LaneImage* b, const LaneImage& out);
  nn::Status pixelRuns(const EltwiseMath& math, const LaneImage& a, const LaneImage& out);
  bool takesPixelRuns(const EltwiseMath& math, const LaneImage& a, const LaneImage* b, const LaneImage& out) const;
  hw::EltwiseCmd command(const EltwiseMath& math) const;
  // ELTWISE of `rows` x `count1` output rows from the current buffers, then its STORE(s).
  void compute(hw::EltwiseCmd e, bool binary);

  const hw::HwConfig& config_;
  VectorCommands cmds_;
  uint32_t cols_, bufRows_, accHalf_;
  uint32_t tile_ = 0, acc_ = 0;  // the buffers the next tile uses
  uint32_t paramRows_ = 1;       // identical parameter rows loaded: column tiles a STORE may write
  bool lut_ = false;
  bool pixelRuns_ = false;
};

// One ELTWISE layer: a single piece over its output.
class EltwiseLayer final : public VectorLayer {
 public:
  EltwiseMath math;
  // A second operand the layer carries as a constant image of its own (DIV by a constant: the
  // divisor's reciprocal), of shape `constantBShape`, instead of a tensor in `inputs`.
  std::vector<uint8_t> constantB;
  ImageShape constantBShape;

  std::vector<std::vector<uint8_t>> constantImages(const hw::HwConfig& config) const override;
  nn::Status generate(const VectorPlacement& where, const hw::HwConfig& config, CommandSink& out) const override;
  // The second operand's shape (a tensor's or the constant's), null when unary.
  const ImageShape* secondShape() const {
    return inputs.size() > 1 ? &inputs[1].shape : !constantB.empty() ? &constantBShape : nullptr;
  }
  uint64_t laneOps() const override { return outputs[0].shape.elements() / valueBytes(); }  // values
  std::string describe() const override;
  // Its 4-D tensors are NCHW ones, their shapes the images' now; an operand of lower rank (dense
  // bytes, padded to [1, C, H, W] as an NHWC image) takes its image's shape [1, H, W, C], which
  // the lowering let it only where the bytes keep their order (one channel or one pixel).
  void keptInNchw() override {
    const uint32_t bytes = valueBytes();
    for (LayerTensor& t : inputs) {
      if (t.layout != DataLayout::kFlat) continue;
      const ImageShape s = t.shape;  // {1, C, H, W x bytes}
      t.shape = ImageShape{s.batches, s.width, s.channels / bytes, s.height * bytes};
    }
  }
};

// Identical parameter rows enough for a STORE of as many column tiles as the store unit takes.
uint32_t storeTileParamRows(const hw::HwConfig& config);

// The parameter rows an ELTWISE layer of these shapes keeps: several identical ones when its
// pieces take the wide-row path (a STORE of several column tiles reads a row a tile), else one.
uint32_t wideRowParamRows(const ImageShape& a, const ImageShape* b, const ImageShape& out, ElementType type,
                          const hw::HwConfig& config);

// The lookup table's device image (LutRows rows of Cols int32).
std::vector<uint8_t> lutImage(const std::vector<int32_t>& lut, const hw::HwConfig& config);

// A layer over rows of the last axis (SOFTMAX, LAYER_NORM) lowered: operation `op`'s input 0 and
// output 0 read and written as dense bytes of `dims`.
LoweredOperation loweredOverRows(std::shared_ptr<VectorLayer> layer, const nn::Operation& op,
                                 const nn::Dimensions& dims);

}  // namespace weft::accel
