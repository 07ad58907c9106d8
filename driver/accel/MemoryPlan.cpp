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
  t.fill = static_cast<uint8_t>(o.zeroPoint);
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
std::vector<TensorUse> inputsOf(const LoweredOperation& lo) {
  if (!lo.isVector()) {
    std::vector<TensorUse> uses{{lo.layer.inputOperand, lo.inputLayout}};
    for (const auto& runtime : {lo.layer.runtimeWeights, lo.layer.runtimeBias}) {
      if (runtime) uses.push_back({*runtime, DataLayout::kFlat});
    }
    return uses;
  }
  std::vector<TensorUse> uses;
  for (const auto& t : lo.vector->inputs) uses.push_back({t.operand, t.layout});
  return uses;
}
std::vector<TensorUse> outputsOf(const LoweredOperation& lo) {
  if (!lo.isVector()) return {{lo.layer.outputOperand, lo.outputLayout}};
  std::vector<TensorUse> uses;
  for (const auto& t : lo.vector->outputs) uses.push_back({t.operand, t.layout});
  return uses;
}

// Zero-copy CONCATENATION: an input only the concatenation reads, made by one layer that writes
// it as an NHWC image, becomes a view of its channels in the output, so that its producer stores
// it there and the concatenation copies nothing for it. Temporaries and model outputs (the host
// reads those back pixel by pixel), not model inputs or constants; one level (the output is no view itself,
// and a tensor that is an output's parent is not made a view).
void concatenateInPlace(const nn::Model& model, LayoutPlan& plan) {
  const auto& operands = model.main.operands;
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
    if (!lo.isVector() || lo.type() != nn::OperationType::CONCATENATION) continue;
    VectorLayer& layer = *lo.vector;
    const uint32_t outOperand = layer.outputs[0].operand;
    TensorLayout& out = plan.tensors.at(outOperand);
    if (out.aliasOf || out.layout != DataLayout::kNHWC) continue;
    for (size_t i = 0; i < layer.inputs.size(); ++i) {
      const uint32_t x = layer.inputs[i].operand;
      const auto channel = layer.channelOffsetInOutput(i);
      TensorLayout& t = plan.tensors.at(x);
      const auto life = operands[x].lifetime;
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

using Operations = std::vector<std::optional<LoweredOperation>>;
using Reject = std::function<void(uint32_t, nn::Error)>;

std::vector<TensorUse> usesOf(const LoweredOperation& lo) {
  std::vector<TensorUse> uses = inputsOf(lo);
  for (const TensorUse& u : outputsOf(lo)) uses.push_back(u);
  return uses;
}

// Image layouts are fixed by the operations that index a tensor as an image (NHWC or NCHW);
// the first one in model order wins and a disagreeing one is dropped. Dropping an operation
// can only remove constraints, so one pass settles it.
std::map<uint32_t, DataLayout> imageLayouts(const Operations& ops, const Reject& reject) {
  std::map<uint32_t, DataLayout> imageLayout;
  for (uint32_t i = 0; i < ops.size(); ++i) {
    if (!ops[i]) continue;
    const auto& lo = *ops[i];
    if (!lo.isVector() && lo.layer.type != nn::OperationType::CONV_2D) continue;
    const std::vector<TensorUse> uses = usesOf(lo);
    bool conflict = false;
    for (const TensorUse& u : uses) {
      if (u.layout != DataLayout::kNHWC && u.layout != DataLayout::kNCHW) continue;
      auto it = imageLayout.find(u.operand);
      conflict = conflict || (it != imageLayout.end() && it->second != u.layout);
    }
    if (conflict) {
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

// kAny tensors of an operation share one layout: the one any of them has been given, else NHWC.
// Propagate until nothing changes (each pass fixes at least one tensor or stops).
void propagateAnyLayouts(const Operations& ops, std::map<uint32_t, DataLayout>& imageLayout, const Reject& reject) {
  for (bool changed = true; changed;) {
    changed = false;
    for (uint32_t i = 0; i < ops.size(); ++i) {
      if (!ops[i] || !ops[i]->isVector()) continue;
      std::vector<LayerTensor*> any;
      for (auto* list : {&ops[i]->vector->inputs, &ops[i]->vector->outputs}) {
        for (auto& t : *list) {
          if (t.layout == DataLayout::kAny) any.push_back(&t);
        }
      }
      std::optional<DataLayout> fixed;
      bool conflict = false;
      for (LayerTensor* t : any) {
        auto it = imageLayout.find(t->operand);
        if (it == imageLayout.end()) continue;
        conflict = conflict || (fixed && *fixed != it->second);
        fixed = it->second;
      }
      if (conflict) {
        reject(i, NN_ERROR(BAD_DATA) << nn::toString(ops[i]->type()) << ": its tensors are kept in different data "
                                                                       "layouts (NHWC and NCHW)");
        changed = true;
        continue;
      }
      if (!fixed) continue;
      for (LayerTensor* t : any) changed = imageLayout.emplace(t->operand, *fixed).second || changed;
    }
  }
}

// Logical dimensions: declared for inputs (fully specified, the lowering checked), computed
// for outputs (their declaration may leave dimensions unspecified).
std::map<uint32_t, nn::Dimensions> logicalDimensions(const nn::Model& model, const Operations& ops) {
  std::map<uint32_t, nn::Dimensions> dims;
  for (const auto& op : ops) {
    if (!op) continue;
    for (const TensorUse& u : inputsOf(*op)) dims[u.operand] = model.main.operands[u.operand].dimensions;
  }
  for (const auto& op : ops) {
    if (op) dims[outputsOf(*op).front().operand] = op->outputDims;
  }
  return dims;
}

// The image tensors' layouts, with the largest padding any convolution on the array reads on
// each side as their halo.
void layOutImages(const nn::Model& model, const Operations& ops, const std::map<uint32_t, DataLayout>& imageLayout,
                  const std::map<uint32_t, nn::Dimensions>& dims, LayoutPlan& plan) {
  const auto& operands = model.main.operands;
  for (const auto& [index, layout] : imageLayout) {
    TensorLayout t = flatLayout(model, operands[index], index, dims.at(index));
    if (t.dims.size() == 4) {
      t.layout = layout;
      t.image = imageOf(t.dims, layout);
      // The image counts bytes: a value of more than one (TENSOR_FLOAT16) is that many channels.
      t.image.channels *= std::max<uint32_t>(1, deviceElementBytes(model, operands[index]));
    }
    plan.tensors[index] = t;
  }
  for (const auto& op : ops) {
    if (!op || op->isVector() || op->layer.type != nn::OperationType::CONV_2D) continue;
    auto& t = plan.tensors.at(op->layer.inputOperand);
    t.haloTop = std::max(t.haloTop, op->layer.padTop);
    t.haloBottom = std::max(t.haloBottom, op->layer.padBottom);
    t.haloLeft = std::max(t.haloLeft, op->layer.padLeft);
    t.haloRight = std::max(t.haloRight, op->layer.padRight);
  }
}

// What an operation indexes as dense bytes (kFlat) must be kept dense: without a halo and in
// logical order. FULLY_CONNECTED's input is the exception: it reads an image form instead
// (lowerFullyConnectedInputs, after the plan).
void checkDense(const Operations& ops, const LayoutPlan& plan, const Reject& reject) {
  for (uint32_t i = 0; i < ops.size(); ++i) {
    if (!ops[i]) continue;
    const auto& lo = *ops[i];
    const bool fc = !lo.isVector() && lo.layer.type == nn::OperationType::FULLY_CONNECTED;
    bool dense = true;
    for (const TensorUse& u : usesOf(lo)) {
      if (u.layout != DataLayout::kFlat || (fc && u.operand == lo.layer.inputOperand)) continue;
      auto it = plan.tensors.find(u.operand);
      dense = dense && (it == plan.tensors.end() || (!it->second.hasHalo() && it->second.layout != DataLayout::kNCHW));
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
    for (const TensorUse& u : usesOf(*op)) {
      if (plan.tensors.count(u.operand) == 0) {
        plan.tensors[u.operand] = flatLayout(model, model.main.operands[u.operand], u.operand, dims.at(u.operand));
      }
    }
    if (op->isVector()) {
      if (auto fill = op->vector->outputFill()) plan.tensors.at(outputsOf(*op).front().operand).fill = *fill;
      // An element-wise layer on NCHW tensors works on the bytes as kept: NHWC images.
      for (auto* list : {&op->vector->inputs, &op->vector->outputs}) {
        for (auto& t : *list) {
          const TensorLayout& placed = plan.tensors.at(t.operand);
          if (t.layout == DataLayout::kAny && placed.layout == DataLayout::kNCHW) t.shape = placed.image;
        }
      }
    }
    plan.layers.push_back(std::move(*op));  // a layer's weights are copied nowhere else
  }
}

}  // namespace

LayoutPlan planLayouts(const nn::Model& model, std::vector<std::optional<LoweredOperation>> ops,
                       std::map<uint32_t, nn::Error>* rejected) {
  const Reject reject = [&](uint32_t i, nn::Error e) {
    if (rejected) rejected->emplace(i, std::move(e));
    ops[i].reset();
  };
  std::map<uint32_t, DataLayout> imageLayout = imageLayouts(ops, reject);
  propagateAnyLayouts(ops, imageLayout, reject);
  const std::map<uint32_t, nn::Dimensions> dims = logicalDimensions(model, ops);
  LayoutPlan plan;
  layOutImages(model, ops, imageLayout, dims, plan);
  checkDense(ops, plan, reject);
  addLayers(model, ops, dims, plan);
  concatenateInPlace(model, plan);
  return plan;
}

LayerPlacement gemmViews(const LayoutPlan& plan, const GemmLayer& layer, const std::function<uint64_t(uint32_t)>& addressOf) {
  auto view = [&](uint32_t operand, const ImageShape& shape) {
    const TensorLayout& t = plan.tensors.at(operand);
    return viewOf(t, shape, addressOf(t.aliasOf ? *t.aliasOf : operand));
  };
  LayerPlacement where;
  where.input = view(layer.inputOperand, layer.input);
  ImageShape outputBytes = layer.output;  // the view in bytes, as tensor images count them
  outputBytes.channels *= layer.outputElementBytes();
  where.output = view(layer.outputOperand, outputBytes);
  return where;
}

ImageView viewOf(const TensorLayout& t, const ImageShape& s, uint64_t addr) {
  ImageView v;
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
  v.origin = addr + t.interiorOffset();
  v.pixelStride = t.image.channels;
  v.rowStride = t.rowStride();
  v.imageStride = t.imageStride();
  return v;
}

}  // namespace weft::accel
