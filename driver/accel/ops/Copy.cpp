// RESHAPE, CONCATENATION, PAD and PAD_V2 on the vector unit: copies through the scratchpad
// (EltwiseEmitter, kind copy; a CONCATENATION input whose quantization differs from the output's is
// requantized through a lookup table made by the reference kernel). Quant8 asymmetric or signed,
// rank up to 4, any axis. PAD's border is written once, at preparation (the output tensor's
// fill), so an execution copies only the interior. With the fp16 datapath also TENSOR_FLOAT16
// (and relaxed TENSOR_FLOAT32, binary16 on the device): a copy moves a value's two bytes
// unchanged, so the lanes copy bytes, shapes counting two a value; the fill of PAD (0.0) and
// of PAD_V2 (its value) is the binary16 value repeated.
#include <fmt/format.h>

#include <array>
#include <cstring>

#include "../ExecutionParameters.h"
#include "../MemoryPlan.h"
#include "EltwiseLayer.h"
#include "Families.h"
#include "ReferenceTables.h"

namespace weft::accel {
namespace {

// A copy of each input into a box of the output (RESHAPE: the whole output, byte for byte).
class CopyLayer final : public VectorLayer {
 public:
  struct Piece {
    ImageShape offset{0, 0, 0, 0};  // where the input's box starts in the output (pixels, channels)
    std::vector<int32_t> lut;       // requantization, or empty: a plain copy
    std::array<uint32_t, 4> logical{};  // the same in values along the logical axes (rank 4)
  };
  std::vector<Piece> pieces;  // one per input
  bool flatCopy = false;      // RESHAPE: the bytes in order
  bool isSigned = false;
  std::optional<uint16_t> fill;  // TensorLayout::fill

  std::vector<std::vector<uint8_t>> constantImages(const hw::HwConfig& config) const override {
    std::vector<std::vector<uint8_t>> images{
        paramRows(std::vector<hw::ColumnParams>(config.cols(), kIdentityColumn), 1, config)};
    for (const Piece& p : pieces) {
      if (!p.lut.empty()) images.push_back(lutImage(p.lut, config));
    }
    return images;
  }

  nn::Status generate(const VectorPlacement& where, const hw::HwConfig& config, CommandSink& sink) const override {
    const uint32_t C = config.cols();
    EltwiseEmitter emitter(config, sink);
    NN_TRY(emitter.begin(where.constants[0], std::nullopt));
    const ImageView& o = where.outputs[0];
    size_t lut = 1;
    for (size_t i = 0; i < pieces.size(); ++i) {
      const Piece& p = pieces[i];
      if (inputs[i].inPlace) continue;  // its producer wrote it into the output
      EltwiseMath m;
      m.kind = p.lut.empty() ? hw::EltKind::kCopy : hw::EltKind::kLut;
      m.aType = quant8(isSigned);  // bytes, binary16 ones too
      m.clamp = ClampRange{isSigned ? -128 : 0, isSigned ? 127 : 255};
      if (!p.lut.empty()) NN_TRY(emitter.loadLut(where.constants[lut++]));
      if (flatCopy) {  // the bytes in order: one row of the whole tensor, dense on both sides
        const uint64_t n = outputs[0].shape.elements();
        const ImageShape shape{1, 1, 1, static_cast<uint32_t>(n)};
        const LaneImage a{ImageView{where.inputs[i].origin, n, n, n}, shape, C};
        NN_TRY(emitter.piece(m, a, nullptr, LaneImage{ImageView{o.origin, n, n, n}, shape, C}));
        continue;
      }
      ImageView box = o;
      box.origin += p.offset.batches * o.imageStride + p.offset.height * o.rowStride + p.offset.width * o.pixelStride +
                    p.offset.channels;
      const ImageShape& shape = inputs[i].shape;
      NN_TRY(emitter.piece(m, LaneImage{where.inputs[i], shape, C}, nullptr, LaneImage{box, shape, C}));
    }
    return {};
  }

  uint64_t laneOps() const override {  // the elements it copies (not those written in place)
    uint64_t n = 0;
    for (size_t i = 0; i < inputs.size(); ++i) {
      if (!inputs[i].inPlace) n += inputs[i].shape.elements();
    }
    // RESHAPE's one input in place (MemoryPlan's zero-copy RESHAPE): nothing is copied.
    return (flatCopy && !inputs[0].inPlace ? outputs[0].shape.elements() : n) / valueBytes();  // values
  }
  std::string describe() const override {
    const ImageShape& s = outputs[0].shape;
    if (flatCopy && inputs[0].inPlace) return "in place: its input's producer wrote the output";
    return fmt::format("copy{} {} piece(s) into {}x{}x{}x{}", isFloat(valueType) ? " fp16" : "", pieces.size(), s.batches, s.height,
                       s.width, s.channels / valueBytes());
  }
  std::optional<uint16_t> outputFill() const override { return fill; }
  // A CONCATENATION's or PAD's 4-D tensors are NCHW ones: each piece's box starts where its
  // logical offset [n, c, h, w] lies in the image [N, H, W, C].
  void keptInNchw() override {
    for (Piece& p : pieces) {
      p.offset = ImageShape{p.logical[0], p.logical[2], p.logical[3], p.logical[1] * valueBytes()};
    }
  }
  // A piece at `logical` (values along the tensor's axes, rank up to 4), as an NHWC image: its
  // offset now, and its logical one for keptInNchw().
  Piece pieceAt(const std::vector<uint32_t>& logical) const {
    Piece p;
    for (size_t d = 0; d < logical.size(); ++d) p.logical[4 - logical.size() + d] = logical[d];
    p.offset = ImageShape{p.logical[0], p.logical[1], p.logical[2], p.logical[3] * valueBytes()};
    return p;
  }
  std::optional<uint32_t> channelOffsetInOutput(size_t i) const override {
    // A binary16 input is not written in place: its producer's channels count values.
    if (type != nn::OperationType::CONCATENATION || flatCopy || isFloat(valueType) || i >= pieces.size()) return std::nullopt;
    const Piece& p = pieces[i];
    const ImageShape& in = inputs[i].shape;
    const ImageShape& out = outputs[0].shape;
    const bool channelsOnly = p.offset.batches == 0 && p.offset.height == 0 && p.offset.width == 0 &&
                              in.batches == out.batches && in.height == out.height && in.width == out.width;
    if (!p.lut.empty() || !channelsOnly) return std::nullopt;
    return p.offset.channels;
  }
};

// A TENSOR_INT32 parameter of the given rank that a model input gives at execution: checked
// here, its values when the execution brings them.
nn::Result<LoweredOperation> atExecution(const OperationReader& r, uint32_t index, size_t rank, bool withValues) {
  const auto& o = r.input(1);
  if (o.type != nn::OperandType::TENSOR_INT32 || o.dimensions.size() != rank ||
      !nn::isFullySpecified(o.type, o.dimensions)) {
    return r.fail("a parameter given at execution must be a fully specified rank-{} TENSOR_INT32", rank);
  }
  if (withValues) return r.fail("its parameter is given at execution: the model is compiled when it is");
  return compiledAtExecution(r, index);
}

std::shared_ptr<CopyLayer> copyLayer(const OperationReader& r, uint32_t index) {
  auto layer = std::make_shared<CopyLayer>();
  layer->operationIndex = index;
  layer->type = r.op().type;
  layer->isSigned = isSignedType(r.input(0).type);
  layer->valueType = r.halfType(r.input(0)) ? ElementType::kFloat16 : quant8(layer->isSigned);
  return layer;
}

// A copied input's checks: quant8, or binary16 (halfType) when the first input is; of its type.
nn::Status copiedTensor(const OperationReader& r, const nn::Operand& o, const char* what, size_t minRank,
                        size_t maxRank) {
  NN_TRY(r.halfType(r.input(0)) ? r.halfTensor(o, what, minRank, maxRank) : r.quant8Tensor(o, what, minRank, maxRank));
  return r.sameType(o, r.input(0), "the inputs");
}

// The image of a copied tensor: bytes as channels, two a binary16 value.
ImageShape copiedImage(const CopyLayer& layer, const nn::Dimensions& dims) {
  ImageShape s = paddedImage(dims);
  s.channels *= layer.valueBytes();
  return s;
}

// A copy's 4-D tensors, kept as their neighbours keep them (NHWC, or NCHW as NHWC images).
DataLayout imageLayout(size_t rank) { return rank == 4 ? DataLayout::kAny : DataLayout::kFlat; }

LoweredOperation lowered(std::shared_ptr<CopyLayer> layer, nn::Dimensions outDims) {
  LoweredLayer lo;
  lo.work = std::move(layer);
  lo.outputDims = std::move(outDims);
  return LoweredOperation(std::move(lo));
}

}  // namespace

nn::Result<LoweredOperation> lowerReshape(const OperationReader& r, uint32_t index, bool withValues) {
  NN_TRY(r.expectCounts({2}, 1));
  const auto& in = r.input(0);
  NN_TRY(copiedTensor(r, in, "input", 0, 4));
  NN_TRY(r.sameType(in, r.output(0), "input and output"));
  if (isExecutionParameter(r, 1)) {
    if (r.input(1).dimensions.size() == 1 && r.input(1).dimensions[0] > 4) return r.fail("the output rank is above 4");
    return atExecution(r, index, 1, withValues);
  }
  auto shape = r.int32Tensor(1, "shape");
  if (!shape.ok()) return shape.error();
  // One dimension may be -1: whatever the element count leaves.
  const uint64_t elements = nn::numberOfElements(in.dimensions);
  nn::Dimensions dims;
  int64_t known = 1, unknown = -1;
  for (size_t i = 0; i < shape->size(); ++i) {
    const int32_t d = (*shape)[i];
    if (d == -1 && unknown < 0) {
      unknown = static_cast<int64_t>(i);
      dims.push_back(0);
    } else if (d > 0) {
      known *= d;
      dims.push_back(static_cast<uint32_t>(d));
    } else {
      return r.fail("shape dimension {} is {}", i, d);
    }
  }
  if (unknown >= 0) {
    if (known == 0 || elements % static_cast<uint64_t>(known) != 0) return r.fail("the shape does not divide the input");
    dims[static_cast<size_t>(unknown)] = static_cast<uint32_t>(elements / static_cast<uint64_t>(known));
  }
  if (dims.size() > 4 || nn::numberOfElements(dims) != elements) return r.fail("the shape does not fit the input");
  NN_TRY(r.checkOutputDims(dims));
  auto layer = copyLayer(r, index);
  layer->flatCopy = true;
  layer->pieces.resize(1);
  layer->inputs = {{r.op().inputs[0], copiedImage(*layer, in.dimensions), DataLayout::kFlat}};
  layer->outputs = {{r.op().outputs[0], copiedImage(*layer, dims), DataLayout::kFlat}};
  return lowered(std::move(layer), dims);
}

nn::Result<LoweredOperation> lowerConcatenation(const OperationReader& r, uint32_t index, bool) {
  const auto& op = r.op();
  if (op.inputs.size() < 2 || op.outputs.size() != 1) return r.fail("expects inputs and an axis, and 1 output");
  const uint32_t n = static_cast<uint32_t>(op.inputs.size()) - 1;
  auto axisValue = r.int32Param(n, "axis");
  if (!axisValue.ok()) return axisValue.error();
  const auto& first = r.input(0);
  const auto& out = r.output(0);
  NN_TRY(copiedTensor(r, first, "input 0", 1, 4));
  NN_TRY(r.sameType(first, out, "input and output"));
  const bool half = r.halfType(first);
  if (!half && !(out.scale > 0)) return r.fail("output scale must be positive");
  const auto rank = static_cast<int32_t>(first.dimensions.size());
  int32_t axis = *axisValue;
  if (axis < -rank || axis >= rank) return r.fail("axis {} is out of range for rank {}", axis, rank);
  if (axis < 0) axis += rank;
  auto layer = copyLayer(r, index);
  nn::Dimensions dims = first.dimensions;
  dims[axis] = 0;
  for (uint32_t i = 0; i < n; ++i) {
    const auto& in = r.input(i);
    NN_TRY(copiedTensor(r, in, "an input", rank, rank));
    for (int32_t d = 0; d < rank; ++d) {
      if (d != axis && in.dimensions[d] != first.dimensions[d]) return r.fail("input {} differs off the axis", i);
    }
    std::vector<uint32_t> at(rank, 0);
    at[axis] = dims[axis];
    CopyLayer::Piece piece = layer->pieceAt(at);
    if (!half && (in.scale != out.scale || in.zeroPoint != out.zeroPoint)) {
      auto table = unaryTable(nn::OperationType::CONCATENATION, in, out, {0});
      if (!table.ok()) return r.fail("the reference kernel rejects it: {}", table.error().message);
      piece.lut = std::move(table).value();
    }
    layer->pieces.push_back(std::move(piece));
    layer->inputs.push_back({op.inputs[i], copiedImage(*layer, in.dimensions), imageLayout(static_cast<size_t>(rank))});
    dims[axis] += in.dimensions[axis];
  }
  NN_TRY(r.checkOutputDims(dims));
  // 4-D tensors in whatever layout their neighbours keep them: an ONNX model's channel concat
  // (axis 1 of NCHW tensors: GoogLeNet's, DenseNet's, SqueezeNet's) runs where its convolutions do.
  layer->outputs = {{op.outputs[0], copiedImage(*layer, dims), imageLayout(static_cast<size_t>(rank))}};
  return lowered(std::move(layer), dims);
}

nn::Result<LoweredOperation> lowerPad(const OperationReader& r, uint32_t index, bool withValues) {
  const auto& op = r.op();
  const bool v2 = op.type == nn::OperationType::PAD_V2;
  NN_TRY(r.expectCounts({v2 ? size_t{3} : size_t{2}}, 1));
  const auto& in = r.input(0);
  const auto& out = r.output(0);
  NN_TRY(copiedTensor(r, in, "input", 1, 4));
  NN_TRY(r.sameType(in, out, "input and output"));
  const bool half = r.halfType(in);
  // The border's fill (TensorLayout::fill): the zero point twice, 0.0 in binary16, or PAD_V2's value.
  auto padFill = [&]() -> nn::Result<uint16_t> {
    if (!v2) return half ? uint16_t{0} : byteTwice(static_cast<uint8_t>(out.zeroPoint));
    if (!half) {
      auto pv = r.int32Param(2, "pad value");
      if (!pv.ok()) return pv.error();
      const int32_t value = *pv;
      const bool isSigned = isSignedType(in.type);
      if (value < (isSigned ? -128 : 0) || value > (isSigned ? 127 : 255)) {
        return r.fail("pad value {} is out of range", value);
      }
      return byteTwice(static_cast<uint8_t>(value));
    }
    return r.halfParam(2, "pad value");
  };
  if (isExecutionParameter(r, 1)) {
    if (r.input(1).dimensions != nn::Dimensions{static_cast<uint32_t>(in.dimensions.size()), 2}) {
      return r.fail("paddings must be [rank, 2]");
    }
    auto fill = padFill();
    if (!fill.ok()) return fill.error();
    return atExecution(r, index, 2, withValues);
  }
  auto paddings = r.int32Tensor(1, "paddings");
  if (!paddings.ok()) return paddings.error();
  const size_t rank = in.dimensions.size();
  if (r.input(1).dimensions != nn::Dimensions{static_cast<uint32_t>(rank), 2}) return r.fail("paddings must be [rank, 2]");
  auto fill = padFill();
  if (!fill.ok()) return fill.error();
  nn::Dimensions dims(rank);
  std::vector<uint32_t> at(rank, 0);
  for (size_t d = 0; d < rank; ++d) {
    const int32_t before = (*paddings)[2 * d], after = (*paddings)[2 * d + 1];
    if (before < 0 || after < 0) return r.fail("paddings must not be negative");
    dims[d] = in.dimensions[d] + static_cast<uint32_t>(before) + static_cast<uint32_t>(after);
    at[d] = static_cast<uint32_t>(before);
  }
  NN_TRY(r.checkOutputDims(dims));
  auto layer = copyLayer(r, index);
  layer->fill = *fill;
  layer->pieces.push_back(layer->pieceAt(at));
  // 4-D in either layout, as CONCATENATION's (DenseNet's and Inception's pads before a pool).
  layer->inputs = {{op.inputs[0], copiedImage(*layer, in.dimensions), imageLayout(rank)}};
  layer->outputs = {{op.outputs[0], copiedImage(*layer, dims), imageLayout(rank)}};
  return lowered(std::move(layer), dims);
}

}  // namespace weft::accel
