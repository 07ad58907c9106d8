#include "MemoryPlan.h"

#include <algorithm>
#include <functional>

#include "weft/kernels/Extensions.h"

namespace weft::accel {
namespace {

// Whether the device keeps a tensor of `o`'s type as binary16 though its type is float32.
bool halfOnDevice(const nn::Model& model, const nn::Operand& o) {
  return o.type == nn::OperandType::TENSOR_FLOAT32 && model.relaxComputationFloat32toFloat16;
}

// Bytes of a value of `o`'s type on the device: an extension type (org.weft.accel's
// accumulators) has the element size its extension declares; a relaxed float32 is binary16.
uint32_t deviceElementBytes(const nn::Model& model, const nn::Operand& o) {
  if (halfOnDevice(model, o)) return 2;
  const auto info = nn::operandTypeInfo(model, o.type);
  return info ? info->elementSize : 0;
}

uint64_t tensorBytes(const nn::Model& model, const nn::Operand& o, const nn::Dimensions& dims) {
  return uint64_t{deviceElementBytes(model, o)} * nn::numberOfElements(dims);
}

TensorLayout flatLayout(const nn::Model& model, const nn::Operand& o, uint32_t index, const nn::Dimensions& dims) {
  TensorLayout t;
  t.operand = index;
  t.type = o.type;
  t.zeroPoint = o.zeroPoint;
  t.fill = byteTwice(static_cast<uint8_t>(o.zeroPoint));
  t.dims = dims;
  t.halfOnDevice = halfOnDevice(model, o);
  t.layout = DataLayout::kFlat;
  t.image = ImageShape{1, 1, 1, static_cast<uint32_t>(tensorBytes(model, o, dims))};
  return t;
}

ImageShape imageOf(const nn::Dimensions& d, DataLayout layout) {
  return layout == DataLayout::kNCHW ? ImageShape{d[0], d[2], d[3], d[1]}
                                     : ImageShape{d[0], d[1], d[2], d[3]};
}

// The tensors an operation reads and writes, with how it indexes each (kFlat: no constraint).
struct TensorUse {
  uint32_t operand;
  DataLayout layout;
};
std::vector<TensorUse> usesOf(const std::vector<LayerTensor>& tensors) {
  std::vector<TensorUse> uses;
  for (const auto& t : tensors) uses.push_back({t.operand, t.layout});
  return uses;
}
std::vector<TensorUse> inputsOf(const LoweredLayer& lo) {
  return lo.visit(Overloaded{[&](const GemmLayer& g) {
                               std::vector<TensorUse> uses{{g.inputOperand, lo.inputLayout}};
                               for (const auto& runtime : {g.runtimeWeights, g.runtimeBias}) {
                                 if (runtime) uses.push_back({*runtime, DataLayout::kFlat});
                               }
                               return uses;
                             },
                             [](const VectorLayer& v) { return usesOf(v.inputs); }});
}
std::vector<TensorUse> outputsOf(const LoweredLayer& lo) {
  return lo.visit(Overloaded{[&](const GemmLayer& g) { return std::vector<TensorUse>{{g.outputOperand, lo.outputLayout}}; },
                             [](const VectorLayer& v) { return usesOf(v.outputs); }});
}
std::vector<TensorUse> usesOf(const LoweredLayer& lo) {
  std::vector<TensorUse> uses = inputsOf(lo);
  for (const TensorUse& u : outputsOf(lo)) uses.push_back(u);
  return uses;
}

// Zero-copy CONCATENATION: an input only the concatenation reads, made by one layer that writes
// it as an NHWC image, becomes a view of its channels in the output, so that its producer stores
// it there and the concatenation copies nothing for it. Temporaries and model outputs (the host
// reads those back pixel by pixel), not model inputs or constants; one level (the output is no view itself,
// and a tensor that is an output's parent is not made a view).
void concatenateInPlace(const nn::Model& model, LayoutPlan& plan) {
  std::map<uint32_t, int> readers, writers;
  std::map<uint32_t, bool> writtenAsImage;
  for (const auto& lo : plan.layers) {
    for (const TensorUse& u : inputsOf(lo)) ++readers[u.operand];
    for (const TensorUse& u : outputsOf(lo)) {
      ++writers[u.operand];
      writtenAsImage[u.operand] = u.layout == DataLayout::kNHWC;
    }
  }
  std::map<uint32_t, bool> isParent;
  for (auto& lo : plan.layers) {
    if (lo.vector() == nullptr || lo.type() != nn::OperationType::CONCATENATION) continue;
    VectorLayer& layer = *lo.vector();
    const uint32_t outOperand = layer.outputs[0].operand;
    TensorLayout& out = plan.tensors.at(outOperand);
    if (out.aliasOf || out.layout != DataLayout::kNHWC) continue;
    for (size_t i = 0; i < layer.inputs.size(); ++i) {
      const uint32_t x = layer.inputs[i].operand;
      const auto channel = layer.channelOffsetInOutput(i);
      TensorLayout& t = plan.tensors.at(x);
      const auto life = plan.operand(model, x).lifetime;
      const bool temporary = life == nn::Operand::LifeTime::TEMPORARY_VARIABLE ||
                             life == nn::Operand::LifeTime::SUBGRAPH_OUTPUT;  // read back pixel by pixel
      // A tensor whose bytes its producer does not all write (PAD_V2's border: its fill) keeps its
      // own buffer, or the border would hold the output's fill instead of the pad value.
      if (!channel || !temporary || readers[x] != 1 ||
          writers[x] != 1 || !writtenAsImage[x] || t.layout != DataLayout::kNHWC || t.hasHalo() || t.aliasOf ||
          t.fill != out.fill || isParent[x] || x == outOperand) {
        continue;
      }
      const nn::Dimensions dims = t.dims;
      t = out;
      t.operand = x;
      t.dims = dims;
      t.aliasOf = outOperand;
      t.channelOffset = *channel;
      layer.inputs[i].inPlace = true;
      isParent[outOperand] = true;
    }
  }
}

// Zero-copy RESHAPE: a RESHAPE reads its input as dense bytes and writes the same bytes, so an
// input only it reads, a temporary kept dense (no halo, not NCHW), becomes a view of the output's
// buffer: its producers write the output's bytes and the RESHAPE copies nothing. The importers
// put a RESHAPE on each side of every FULLY_CONNECTED over tokens and around attention's head
// split; each was a copy of the whole tensor through the scratchpad. Not a tensor that is a view
// already, nor one that has views (one level, as for CONCATENATION).
void reshapeInPlace(const nn::Model& model, LayoutPlan& plan) {
  std::map<uint32_t, int> readers;
  std::map<uint32_t, bool> isParent;
  for (const auto& lo : plan.layers) {
    for (const TensorUse& u : inputsOf(lo)) ++readers[u.operand];
  }
  for (const auto& [operand, t] : plan.tensors) {
    if (t.aliasOf) isParent[*t.aliasOf] = true;
  }
  auto dense = [](const TensorLayout& t) { return t.layout == DataLayout::kFlat && !t.hasHalo(); };
  for (auto& lo : plan.layers) {
    if (lo.vector() == nullptr || lo.type() != nn::OperationType::RESHAPE) continue;
    VectorLayer& layer = *lo.vector();
    if (layer.inputs.size() != 1 || layer.outputs.size() != 1 || layer.inputs[0].inPlace) continue;
    const uint32_t x = layer.inputs[0].operand, outOperand = layer.outputs[0].operand;
    TensorLayout& t = plan.tensors.at(x);
    const TensorLayout& out = plan.tensors.at(outOperand);
    const bool temporary = plan.operand(model, x).lifetime == nn::Operand::LifeTime::TEMPORARY_VARIABLE;
    if (!temporary || readers[x] != 1 || x == outOperand || !dense(t) || !dense(out) || t.aliasOf || out.aliasOf ||
        isParent[x] || t.fill != out.fill || t.bytes() != out.bytes() || t.halfOnDevice != out.halfOnDevice) {
      continue;
    }
    t.aliasOf = outOperand;
    t.channelOffset = 0;
    layer.inputs[0].inPlace = true;
    isParent[outOperand] = true;
  }
}

using Operations = std::vector<std::optional<LoweredOperation>>;
using Reject = std::function<void(uint32_t, nn::Error)>;

// Whether a layer's image tensors take its layouts: every vector layer and CONV_2D; a
// FULLY_CONNECTED reads whatever its input is kept as (its image form).
bool fixesImageLayouts(const LoweredLayer& lo) {
  return lo.visit(Overloaded{[](const GemmLayer& g) { return g.isConvolution(); },
                             [](const VectorLayer&) { return true; }});
}

// Whether an operation's image uses agree with the layouts settled so far and with each other
// (its layers may share a tensor between them).
bool imageLayoutsAgree(const std::vector<TensorUse>& uses, const std::map<uint32_t, DataLayout>& settled) {
  std::map<uint32_t, DataLayout> own;
  for (const TensorUse& u : uses) {
    if (u.layout != DataLayout::kNHWC && u.layout != DataLayout::kNCHW) continue;
    auto it = settled.find(u.operand);
    if (it != settled.end() && it->second != u.layout) return false;
    if (!own.emplace(u.operand, u.layout).second && own.at(u.operand) != u.layout) return false;
  }
  return true;
}

// Image layouts are fixed by the operations that index a tensor as an image (NHWC or NCHW);
// the first one in model order wins and a disagreeing one is dropped. Dropping an operation
// can only remove constraints, so one pass settles it.
std::map<uint32_t, DataLayout> imageLayouts(const Operations& ops, const Reject& reject) {
  std::map<uint32_t, DataLayout> imageLayout;
  for (uint32_t i = 0; i < ops.size(); ++i) {
    if (!ops[i]) continue;
    const auto& lo = *ops[i];
    std::vector<TensorUse> uses;
    for (const LoweredLayer& layer : lo.layers) {
      if (!fixesImageLayouts(layer)) continue;
      for (const TensorUse& u : usesOf(layer)) uses.push_back(u);
    }
    if (!imageLayoutsAgree(uses, imageLayout)) {
      reject(i, NN_ERROR(BAD_DATA) << nn::toString(lo.type()) << ": a tensor it uses is read elsewhere in the other "
                                                                  "data layout (NHWC vs NCHW)");
      continue;
    }
    for (const TensorUse& u : uses) {
      if (u.layout == DataLayout::kNHWC || u.layout == DataLayout::kNCHW) imageLayout[u.operand] = u.layout;
    }
  }
  return imageLayout;
}

// The layout a vector layer's kAny tensors already have (nullopt: none yet); BAD_DATA when two
// of them have different ones.
nn::Result<std::optional<DataLayout>> sharedAnyLayout(const VectorLayer& v,
                                                      const std::map<uint32_t, DataLayout>& imageLayout) {
  std::optional<DataLayout> fixed;
  for (const auto* list : {&v.inputs, &v.outputs}) {
    for (const auto& t : *list) {
      if (t.layout != DataLayout::kAny) continue;
      auto it = imageLayout.find(t.operand);
      if (it == imageLayout.end()) continue;
      if (fixed && *fixed != it->second) return NN_ERROR(BAD_DATA) << "kAny tensors in two layouts";
      fixed = it->second;
    }
  }
  return fixed;
}

// One operation's share of propagateAnyLayouts (below); false when a layer's kAny tensors
// already have different layouts.
bool propagateAnyLayouts(const LoweredOperation& op, std::map<uint32_t, DataLayout>& imageLayout, bool& changed) {
  for (const LoweredLayer& layer : op.layers) {
    const VectorLayer* v = layer.vector();
    if (v == nullptr) continue;
    const auto fixed = sharedAnyLayout(*v, imageLayout);
    if (!fixed.ok()) return false;
    if (!fixed.value()) continue;
    for (const auto* list : {&v->inputs, &v->outputs}) {
      for (const auto& t : *list) {
        if (t.layout == DataLayout::kAny) changed = imageLayout.emplace(t.operand, *fixed.value()).second || changed;
      }
    }
  }
  return true;
}

// kAny tensors of a layer share one layout: the one any of them has been given, else NHWC.
// Propagate until nothing changes (each pass fixes at least one tensor or stops).
void propagateAnyLayouts(const Operations& ops, std::map<uint32_t, DataLayout>& imageLayout, const Reject& reject) {
  for (bool changed = true; changed;) {
    changed = false;
    for (uint32_t i = 0; i < ops.size(); ++i) {
      if (!ops[i]) continue;
      if (!propagateAnyLayouts(*ops[i], imageLayout, changed)) {
        reject(i, NN_ERROR(BAD_DATA) << nn::toString(ops[i]->type()) << ": its tensors are kept in different data "
                                                                       "layouts (NHWC and NCHW)");
        changed = true;
      }
    }
  }
}

// Logical dimensions: declared for inputs (fully specified, the lowering checked), computed
// for outputs (their declaration may leave dimensions unspecified).
std::map<uint32_t, nn::Dimensions> logicalDimensions(const nn::Model& model, const Operations& ops,
                                                     const LayoutPlan& plan) {
  std::map<uint32_t, nn::Dimensions> dims;
  for (const auto& op : ops) {
    if (!op) continue;
    for (const LoweredLayer& layer : op->layers) {
      for (const TensorUse& u : inputsOf(layer)) dims[u.operand] = plan.operand(model, u.operand).dimensions;
    }
  }
  for (const auto& op : ops) {
    if (!op) continue;
    for (const LoweredLayer& layer : op->layers) dims[outputsOf(layer).front().operand] = layer.outputDims;
  }
  return dims;
}

// The image tensors' layouts, with the largest padding any convolution on the array reads on
// each side as their halo.
void layOutImages(const nn::Model& model, const Operations& ops, const std::map<uint32_t, DataLayout>& imageLayout,
                  const std::map<uint32_t, nn::Dimensions>& dims, LayoutPlan& plan) {
  for (const auto& [index, layout] : imageLayout) {
    const nn::Operand& operand = plan.operand(model, index);
    TensorLayout t = flatLayout(model, operand, index, dims.at(index));
    if (t.dims.size() == 4) {
      t.layout = layout;
      t.image = imageOf(t.dims, layout);
      // The image counts bytes: a value of more than one (TENSOR_FLOAT16) is that many channels.
      t.image.channels *= std::max<uint32_t>(1, deviceElementBytes(model, operand));
    }
    plan.tensors[index] = t;
  }
  for (const auto& op : ops) {
    if (!op) continue;
    for (const LoweredLayer& layer : op->layers) {
      const GemmLayer* conv = layer.gemm();
      if (conv == nullptr || !conv->isConvolution()) continue;
      auto& t = plan.tensors.at(conv->inputOperand);
      t.haloTop = std::max(t.haloTop, conv->padTop);
      t.haloBottom = std::max(t.haloBottom, conv->padBottom);
      t.haloLeft = std::max(t.haloLeft, conv->padLeft);
      t.haloRight = std::max(t.haloRight, conv->padRight);
    }
  }
}

// Whether a tensor's bytes on the device are in its logical order: an NCHW tensor is kept as an
// NHWC image, the same order only when each image is one pixel (a global pool's [N, C, 1, 1],
// flattened before a classifier) or one channel.
}  // namespace

bool inLogicalOrder(const TensorLayout& t) {
  return t.layout != DataLayout::kNCHW || t.image.height * t.image.width == 1 || t.image.channels == 1;
}

namespace {

// What an operation indexes as dense bytes (kFlat) must be kept dense: without a halo and in
// logical order. The exceptions read an image form instead, after the plan: FULLY_CONNECTED's
// input (lowerFullyConnectedInputs, any image), RESHAPE's input or its output (one of the two) and
// a TRANSPOSE's, SLICE's or GATHER's input and output (lowerReshapeInputs: an image in NCHW order
// without a halo).
bool denseOrAbsent(const LayoutPlan& plan, uint32_t operand) {
  auto it = plan.tensors.find(operand);
  return it == plan.tensors.end() || inLogicalOrder(it->second);
}

void checkDense(const Operations& ops, const LayoutPlan& plan, const Reject& reject) {
  for (uint32_t i = 0; i < ops.size(); ++i) {
    if (!ops[i]) continue;
    const auto& lo = *ops[i];
    bool dense = true;
    for (const LoweredLayer& layer : lo.layers) {
      const GemmLayer* g = layer.gemm();
      const bool fc = g != nullptr && g->type == nn::OperationType::FULLY_CONNECTED;
      const VectorLayer* reshape = layer.type() == nn::OperationType::RESHAPE ? layer.vector() : nullptr;
      for (const TensorUse& u : usesOf(layer)) {
        if (u.layout != DataLayout::kFlat || (fc && u.operand == g->inputOperand)) continue;
        auto it = plan.tensors.find(u.operand);
        if (it == plan.tensors.end()) continue;
        // A RESHAPE reads an NCHW image, or writes one from dense bytes (not both: one strided copy).
        const bool reshapedImage = reshape != nullptr && reshape->inputs.size() == 1 && reshape->outputs.size() == 1 &&
                                   it->second.layout == DataLayout::kNCHW && !it->second.hasHalo() &&
                                   (u.operand == reshape->inputs[0].operand ||
                                    (u.operand == reshape->outputs[0].operand &&
                                     denseOrAbsent(plan, reshape->inputs[0].operand)));
        // It reads or writes an image with a halo (a 1-D convolution's [N, C, 1, W] input, padded)
        // where the other side is plain dense bytes: one strided copy too (lowerReshapeInputs).
        const auto plain = [&](uint32_t operand) {
          auto t = plan.tensors.find(operand);
          return t == plan.tensors.end() || (!t->second.hasHalo() && inLogicalOrder(t->second));
        };
        const bool reshapedHalo = reshape != nullptr && reshape->inputs.size() == 1 && reshape->outputs.size() == 1 &&
                                  it->second.hasHalo() && it->second.dims.size() == 4 &&
                                  ((u.operand == reshape->inputs[0].operand && plain(reshape->outputs[0].operand)) ||
                                   (u.operand == reshape->outputs[0].operand && plain(reshape->inputs[0].operand)));
        // A strided copy reads and writes images where they are kept, NCHW or with a halo
        // (lowerReshapeInputs).
        const bool copiedImage = isStridedCopy(layer.type()) && layer.vector() != nullptr &&
                                 (it->second.layout == DataLayout::kNCHW || it->second.layout == DataLayout::kNHWC) &&
                                 it->second.dims.size() == 4 &&
                                 (u.operand == layer.vector()->inputs[0].operand ||
                                  u.operand == layer.vector()->outputs[0].operand);
        dense = dense && (copiedImage || reshapedHalo || (!it->second.hasHalo() && (reshapedImage || inLogicalOrder(it->second))));
      }
    }
    if (!dense) {
      reject(i, NN_ERROR(BAD_DATA) << nn::toString(lo.type()) << ": it reads a tensor as dense bytes that is kept "
                                                                  "with a halo or in NCHW order for another operation");
    }
  }
}

// The remaining operations become the plan's layers, every tensor they use laid out (dense bytes
// where no image layout was fixed).
void addLayers(const nn::Model& model, Operations& ops, const std::map<uint32_t, nn::Dimensions>& dims,
               LayoutPlan& plan) {
  plan.layers.reserve(ops.size());
  for (auto& op : ops) {
    if (!op) continue;
    for (LoweredLayer& layer : op->layers) {
      for (const TensorUse& u : usesOf(layer)) {
        if (plan.tensors.count(u.operand) == 0) {
          plan.tensors[u.operand] = flatLayout(model, plan.operand(model, u.operand), u.operand, dims.at(u.operand));
        }
      }
      if (VectorLayer* v = layer.vector()) {
        if (auto fill = v->outputFill()) plan.tensors.at(outputsOf(layer).front().operand).fill = *fill;
        // An element-wise layer on NCHW tensors works on the bytes as kept: NHWC images.
        bool nchw = false;
        for (auto* list : {&v->inputs, &v->outputs}) {
          for (auto& t : *list) {
            const TensorLayout& placed = plan.tensors.at(t.operand);
            if (t.layout == DataLayout::kAny && placed.layout == DataLayout::kNCHW) t.shape = placed.image, nchw = true;
          }
        }
        if (nchw) v->keptInNchw();
      }
      plan.layers.push_back(std::move(layer));  // a layer's weights are copied nowhere else
    }
  }
}

}  // namespace

LayoutPlan planLayouts(const nn::Model& model, std::vector<std::optional<LoweredOperation>> ops,
                       std::map<uint32_t, nn::Error>* rejected) {
  const Reject reject = [&](uint32_t i, nn::Error e) {
    if (rejected) rejected->emplace(i, std::move(e));
    ops[i].reset();
  };
  LayoutPlan plan;
  for (const auto& op : ops) {
    if (!op) continue;
    for (const IntermediateTensor& t : op->intermediates) plan.intermediates[t.operand] = t.description;
  }
  std::map<uint32_t, DataLayout> imageLayout = imageLayouts(ops, reject);
  propagateAnyLayouts(ops, imageLayout, reject);
  const std::map<uint32_t, nn::Dimensions> dims = logicalDimensions(model, ops, plan);
  layOutImages(model, ops, imageLayout, dims, plan);
  checkDense(ops, plan, reject);
  addLayers(model, ops, dims, plan);
  concatenateInPlace(model, plan);
  reshapeInPlace(model, plan);
  return plan;
}

namespace {

// The view of a tensor kept as an image (any halo around its interior), at `addr`: its own strides.
ImageView imageStrides(const TensorLayout& t, uint64_t addr) {
  ImageView v;
  v.origin = addr + t.interiorOffset();
  v.pixelStride = t.image.channels;
  v.rowStride = t.rowStride();
  v.imageStride = t.imageStride();
  return v;
}

}  // namespace

LayerPlacement gemmViews(const LayoutPlan& plan, const GemmLayer& layer, const std::function<uint64_t(uint32_t)>& addressOf) {
  auto view = [&](uint32_t operand, const ImageShape& shape) {
    const TensorLayout& t = plan.tensors.at(operand);
    const uint64_t addr = addressOf(t.aliasOf ? *t.aliasOf : operand);
    const bool image = t.layout == DataLayout::kNHWC || t.layout == DataLayout::kNCHW;
    // A group of a grouped convolution reads and writes a slice of the image's channels
    // (GemmLayer::inputOffset, outputOffset), a phase of a transposed convolution every s-th
    // pixel of its output: the pixels are the image's, not the slice's or the phase's.
    if (image && !t.aliasOf && (shape.channels != t.image.channels || layer.phased())) return imageStrides(t, addr);
    return viewOf(t, shape, addr);
  };
  LayerPlacement where;
  where.input = view(layer.inputOperand, layer.input);
  where.input.origin += layer.inputOffset;  // one matrix of a batch (GemmLayer::inputOffset)
  where.input.origin += layer.inputFirstRow * where.input.rowStride + layer.inputFirstCol * where.input.pixelStride;
  ImageShape outputBytes = layer.output;  // the view in bytes, as tensor images count them
  outputBytes.channels *= layer.outputElementBytes();
  where.output = view(layer.outputOperand, outputBytes);
  where.output.origin += layer.outputOffset;
  where.output.origin += layer.outputFirstRow * where.output.rowStride + layer.outputFirstCol * where.output.pixelStride;
  where.output.rowStride *= layer.outputRowStep;
  where.output.pixelStride *= layer.outputColStep;
  return where;
}

ImageView viewOf(const TensorLayout& t, const ImageShape& s, uint64_t addr) {
  ImageView v;
  if (t.aliasOf && t.layout == DataLayout::kFlat) {  // a RESHAPE's input: dense bytes from the parent's start
    v.origin = addr + t.channelOffset;
    v.pixelStride = s.channels;
    v.rowStride = uint64_t{s.width} * s.channels;
    v.imageStride = uint64_t{s.height} * v.rowStride;
    return v;
  }
  if (t.aliasOf) {  // `addr` is the parent's buffer; the parent's strides
    v.origin = addr + t.interiorOffset() + t.channelOffset;
    v.pixelStride = t.image.channels;
    v.rowStride = t.rowStride();
    v.imageStride = t.imageStride();
    return v;
  }
  if (t.layout == DataLayout::kFlat || !t.hasHalo()) {
    // Dense bytes: the layer's own shape defines the strides.
    v.origin = addr;
    v.pixelStride = s.channels;
    v.rowStride = uint64_t{s.width} * s.channels;
    v.imageStride = uint64_t{s.height} * v.rowStride;
    return v;
  }
  return imageStrides(t, addr);
}

}  // namespace weft::accel
