// The strided-copy layer (StridedCopy.h).
#include "StridedCopy.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "../RuntimeOperands.h"
#include "EltwiseLayer.h"
#include "FastestCandidate.h"
#include "weft/kernels/CpuExecutor.h"

namespace weft::accel {
namespace {

// `axes` without those of size 1, with those consecutive in both tensors merged.
std::vector<CopyAxis> simplified(const std::vector<CopyAxis>& axes) {
  std::vector<CopyAxis> out;
  for (const CopyAxis& a : axes) {
    if (a.size == 1) continue;
    if (!out.empty()) {
      CopyAxis& outer = out.back();
      if (outer.inputStride == a.size * a.inputStride && outer.outputStride == a.size * a.outputStride) {
        outer = CopyAxis{outer.size * a.size, a.inputStride, a.outputStride};
        continue;
      }
    }
    out.push_back(a);
  }
  return out;
}

// The same axes walked in the input's order (outermost the largest input stride): a copy moves
// the same bytes in either order, but the order decides which side's requests are the long runs.
std::vector<CopyAxis> inInputOrder(std::vector<CopyAxis> axes) {
  std::stable_sort(axes.begin(), axes.end(),
                   [](const CopyAxis& a, const CopyAxis& b) { return a.inputStride > b.inputStride; });
  return simplified(axes);
}

// A box simplified: its innermost run contiguous in both tensors (the channels, in bytes; one
// value's when none) and the pixel axes outside it.
struct ChannelsAndPixels {
  uint64_t channels;
  std::vector<CopyAxis> axes;
};
ChannelsAndPixels channelsAndPixelAxes(const CopyBox& box, uint32_t valueBytes) {
  ChannelsAndPixels r{valueBytes, simplified(box.axes)};
  if (!r.axes.empty() && r.axes.back().inputStride == valueBytes && r.axes.back().outputStride == valueBytes) {
    r.channels = r.axes.back().size * valueBytes;
    r.axes.pop_back();
  }
  return r;
}

// Whether walking `box` in the input's order differs from the output's.
bool walkOrderMatters(const CopyBox& box, uint32_t valueBytes) {
  const std::vector<CopyAxis> axes = channelsAndPixelAxes(box, valueBytes).axes, in = inInputOrder(axes);
  return !std::equal(axes.begin(), axes.end(), in.begin(), in.end(), [](const CopyAxis& a, const CopyAxis& b) {
    return a.size == b.size && a.inputStride == b.inputStride && a.outputStride == b.outputStride;
  });
}

class StridedCopyLayer final : public VectorLayer {
 public:
  std::vector<CopyBox> boxes;
  uint32_t bytes = 1;  // a value's
  std::string description;

  // Identity parameter rows, one for each column tile a STORE of the pixel-run tiles writes (the
  // first alone is loaded otherwise).
  std::vector<std::vector<uint8_t>> constantImages(const hw::HwConfig& config) const override {
    return {paramRows({}, storeTileParamRows(config), config)};
  }

  // Pixels of several lane groups strided in DRAM (attention's [B, S, H, D] -> [B, H, S, D], a
  // SLICE of long rows) load a pixel's groups as one run (EltwiseEmitter::pixelRuns), not group
  // by group (a request of Cols bytes a pixel): measured faster on every shape and configuration
  // tried (ViT's head split and merge, BERT's, GPT-2's SLICE of 12 x 513, [2, 37, 3, 24] and
  // [1, 50, 7, 40] transposes; weft8, weft16, LPDDR4, DDR4, HBM2), by 1.1x to 4x: ViT's head
  // split 38,640 -> 19,559 cycles at weft16, 174,559 -> 65,462 at weft16-lpddr4. (Chosen by
  // the placed schedule, as the windows' layouts are, the merge stayed group by group at LPDDR4
  // and HBM2, its pixel-run estimate 2.7-3.7x its run.)
  // Where the two tensors' orders differ, the boxes are walked in the output's order (reads
  // strided, each pixel's run written whole) or the input's (each input run read whole, the
  // writes strided), whichever the placed schedule finds faster: on a cycle-level DRAM the
  // strided side's requests fall into banks and channels by the address mapping, so which order
  // keeps rows open depends on the device and the tensors' sizes. At weft16-lpddr4 BERT's head
  // merge ran 61,962 -> 23,737 cycles (input's order: no longer a token's 12 heads 8 KB apart,
  // four of them a bank row from four others) and its split 41,525 -> 29,436; ViT's split
  // 65,462 -> 35,036; at weft16-ddr4 ViT's merge 40,862 -> 20,039. At weft16 (the simple pipe)
  // every copy of the bundled networks keeps the output's order.
  nn::Status generate(const VectorPlacement& where, const hw::HwConfig& config, CommandSink& sink) const override {
    bool inputOrder = false;
    if (!sink.provesFitOnly() && std::any_of(boxes.begin(), boxes.end(), [&](const CopyBox& b) {
          return walkOrderMatters(b, bytes);
        })) {
      const auto fastest = fastestCandidate(config, 2, [&](CommandSink& s, uint32_t i) {
        return emit(where, config, s, i == 1);
      });
      if (!fastest.ok()) return fastest.error();
      inputOrder = *fastest == 1;
      sink.note(inputOrder ? "walks the input's order" : "walks the output's order");
    }
    return emit(where, config, sink, inputOrder);
  }

  uint64_t laneOps() const override {
    uint64_t values = 0;
    for (const CopyBox& box : boxes) {
      uint64_t n = 1;
      for (const CopyAxis& a : box.axes) n *= a.size;
      values += n;
    }
    return values;
  }
  std::string describe() const override { return description; }

 private:
  nn::Status emit(const VectorPlacement& where, const hw::HwConfig& config, CommandSink& out, bool inputOrder) const {
    EltwiseEmitter emitter(config, out);
    // The parameter rows a STORE of several column tiles reads, where a piece may take them.
    const bool wide = std::any_of(boxes.begin(), boxes.end(), [&](const CopyBox& b) {
      const ChannelsAndPixels c = channelsAndPixelAxes(b, bytes);
      return c.channels > config.cols() && !c.axes.empty();
    });
    NN_TRY(emitter.begin(where.constants[0], std::nullopt, wide ? storeTileParamRows(config) : 1));
    emitter.preferPixelRuns(true);
    for (const CopyBox& box : boxes) NN_TRY(copy(box, where, config, emitter, inputOrder));
    return {};
  }

  nn::Status copy(const CopyBox& box, const VectorPlacement& where, const hw::HwConfig& config,
                  EltwiseEmitter& emitter, bool inputOrder) const {
    auto [channels, axes] = channelsAndPixelAxes(box, bytes);
    if (inputOrder) axes = inInputOrder(axes);
    if (channels > UINT32_MAX) return NN_ERROR(BAD_DATA) << "a copied run of " << channels << " bytes";
    // The innermost three are a piece's pixel axes; those outside them are walked.
    while (axes.size() < 3) axes.insert(axes.begin(), CopyAxis{});
    // An axis of size 1 takes the stride that continues the axes inside it, so that a box dense
    // in both tensors is seen as dense (one flat run of merged requests, not a row per group).
    for (size_t k = axes.size(); k-- > axes.size() - 3;) {  // innermost first
      if (axes[k].size != 1) continue;
      const bool innermost = k + 1 == axes.size();
      axes[k].inputStride = innermost ? channels : axes[k + 1].size * axes[k + 1].inputStride;
      axes[k].outputStride = innermost ? channels : axes[k + 1].size * axes[k + 1].outputStride;
    }
    const std::vector<CopyAxis> walked(axes.begin(), axes.end() - 3);
    const CopyAxis &b = axes[axes.size() - 3], &y = axes[axes.size() - 2], &x = axes[axes.size() - 1];
    const ImageShape shape{static_cast<uint32_t>(b.size), static_cast<uint32_t>(y.size), static_cast<uint32_t>(x.size),
                           static_cast<uint32_t>(channels)};
    std::vector<uint64_t> index(walked.size(), 0);
    while (true) {
      uint64_t in = where.inputs[0].origin + box.inputOffset, outAddr = where.outputs[0].origin + box.outputOffset;
      for (size_t k = 0; k < walked.size(); ++k) {
        in += index[k] * walked[k].inputStride;
        outAddr += index[k] * walked[k].outputStride;
      }
      const LaneImage src{ImageView{in, x.inputStride, y.inputStride, b.inputStride}, shape, config.cols()};
      const LaneImage dst{ImageView{outAddr, x.outputStride, y.outputStride, b.outputStride}, shape, config.cols()};
      NN_TRY(emitter.piece(byteCopy(), src, nullptr, dst));
      size_t k = walked.size();
      while (k > 0 && ++index[k - 1] == walked[k - 1].size) index[--k] = 0;
      if (k == 0) return {};
    }
  }
};

}  // namespace

std::vector<uint64_t> denseStrides(const std::vector<uint32_t>& dims, uint32_t valueBytes) {
  std::vector<uint64_t> strides(dims.size());
  uint64_t s = valueBytes;
  for (size_t i = dims.size(); i-- > 0;) {
    strides[i] = s;
    s *= dims[i];
  }
  return strides;
}

CopyBox permutedBox(const std::vector<uint32_t>& dims, const std::vector<uint32_t>& perm, uint32_t valueBytes) {
  const std::vector<uint64_t> in = denseStrides(dims, valueBytes);
  std::vector<uint32_t> outDims;
  for (uint32_t p : perm) outDims.push_back(dims[p]);
  const std::vector<uint64_t> out = denseStrides(outDims, valueBytes);
  CopyBox box;
  for (size_t k = 0; k < perm.size(); ++k) box.axes.push_back(CopyAxis{dims[perm[k]], in[perm[k]], out[k]});
  return box;
}

std::shared_ptr<VectorLayer> stridedCopyLayer(std::vector<CopyBox> boxes, uint32_t valueBytes, std::string description) {
  auto layer = std::make_shared<StridedCopyLayer>();
  layer->boxes = std::move(boxes);
  layer->bytes = valueBytes;
  layer->description = std::move(description);
  return layer;
}

namespace {

// The byte strides of a tensor of logical `dims` as kept: dense, or (nchw, rank 4) the NHWC image
// of [N, C, H, W], whose strides along N, C, H, W are H*W*C, 1, W*C and C values.
// A stride or offset of dense `dims` moved onto `kept` strides: a dense stride of an axis of more
// than one value is that axis's alone (a dense stride repeats only past axes of size 1).
uint64_t rebased(uint64_t offset, const std::vector<uint32_t>& dims, const std::vector<uint64_t>& dense,
                 const std::vector<uint64_t>& kept) {
  uint64_t out = 0;
  for (size_t a = 0; a < dims.size(); ++a) {
    out += offset / dense[a] * kept[a];
    offset %= dense[a];
  }
  return out + offset;  // the bytes within a value
}

uint64_t rebasedStride(uint64_t stride, uint64_t size, const std::vector<uint32_t>& dims,
                       const std::vector<uint64_t>& dense, const std::vector<uint64_t>& kept) {
  if (size <= 1) return stride;
  for (size_t a = 0; a < dims.size(); ++a) {
    if (dims[a] > 1 && dense[a] == stride) return kept[a];
  }
  return rebased(stride, dims, dense, kept);  // a merged run of axes (not made before the plan)
}

}  // namespace

std::shared_ptr<VectorLayer> onKeptImages(const VectorLayer& copy, const std::vector<uint32_t>& inDims,
                                          const std::vector<uint64_t>* inStrides, const std::vector<uint32_t>& outDims,
                                          const std::vector<uint64_t>* outStrides) {
  const auto* strided = dynamic_cast<const StridedCopyLayer*>(&copy);
  if (strided == nullptr) return nullptr;
  auto layer = std::make_shared<StridedCopyLayer>(*strided);
  const uint32_t bytes = strided->bytes;
  const auto inDense = denseStrides(inDims, bytes), outDense = denseStrides(outDims, bytes);
  const auto inKept = inStrides ? *inStrides : inDense, outKept = outStrides ? *outStrides : outDense;
  for (CopyBox& box : layer->boxes) {
    box.inputOffset = rebased(box.inputOffset, inDims, inDense, inKept);
    box.outputOffset = rebased(box.outputOffset, outDims, outDense, outKept);
    for (CopyAxis& a : box.axes) {
      a.inputStride = rebasedStride(a.inputStride, a.size, inDims, inDense, inKept);
      a.outputStride = rebasedStride(a.outputStride, a.size, outDims, outDense, outKept);
    }
    // A copy writes each value once, in whatever order its axes are walked: the axis now
    // contiguous in both tensors (an NCHW tensor's channels, innermost in the image) goes
    // innermost, so that its values move Cols bytes a scratchpad row instead of one a row (YOLO's
    // channel split of an NCHW image: a value a request before).
    const auto contiguous = std::find_if(box.axes.begin(), box.axes.end(), [&](const CopyAxis& a) {
      return a.size > 1 && a.inputStride == bytes && a.outputStride == bytes;
    });
    if (contiguous != box.axes.end()) std::rotate(contiguous, contiguous + 1, box.axes.end());
  }
  layer->description +=
      fmt::format(" ({} kept as an image)", inStrides && outStrides ? "input and output" : inStrides ? "input" : "output");
  return layer;
}

nn::Status checkCopiedOperands(const OperationReader& r) {
  if (nn::Status valid = nn::validateOperation(r.model(), r.model().main, r.op()); !valid.ok()) {
    return r.fail("{}", valid.error().message);
  }
  const nn::Operand& in = r.input(0);
  NN_TRY(r.halfType(in) ? r.halfTensor(in, "input", 1, 4) : r.quant8Tensor(in, "input", 1, 4));
  return r.sameType(in, r.output(0), "input and output");
}

nn::Result<LoweredOperation> lowerToCopies(const OperationReader& r, uint32_t index, std::vector<CopyBox> boxes,
                                           nn::Dimensions outDims, std::string description) {
  NN_TRY(r.checkOutputDims(outDims));
  const nn::Operand& in = r.input(0);
  const ElementType type = r.valueType(in);
  const uint32_t valueBytes = bytesPerElement(type);
  const uint64_t inBytes = nn::numberOfElements(in.dimensions) * valueBytes;
  const uint64_t outBytes = nn::numberOfElements(outDims) * valueBytes;
  if (std::max(inBytes, outBytes) > UINT32_MAX) return r.fail("a tensor of over 4 GiB");
  auto layer = stridedCopyLayer(std::move(boxes), valueBytes, std::move(description));
  layer->operationIndex = index;
  layer->type = r.op().type;
  layer->valueType = type;
  layer->inputs = {{r.op().inputs[0], ImageShape{1, 1, 1, static_cast<uint32_t>(inBytes)}, DataLayout::kFlat}};
  layer->outputs = {{r.op().outputs[0], ImageShape{1, 1, 1, static_cast<uint32_t>(outBytes)}, DataLayout::kFlat}};
  LoweredLayer lo;
  lo.work = std::move(layer);
  lo.outputDims = std::move(outDims);
  return LoweredOperation(std::move(lo));
}

}  // namespace weft::accel
