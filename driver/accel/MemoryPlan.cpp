#include "MemoryPlan.h"

#include <algorithm>

namespace weft::accel {
namespace {

TensorLayout flatLayout(const nn::Operand& o, uint32_t index, const nn::Dimensions& dims) {
  TensorLayout t;
  t.operand = index;
  t.type = o.type;
  t.zeroPoint = o.zeroPoint;
  t.dims = dims;
  t.layout = DataLayout::kFlat;
  t.image = ImageShape{1, 1, 1, static_cast<uint32_t>(nn::sizeOfData(o.type, dims))};
  return t;
}

ImageShape imageOf(const nn::Dimensions& d, DataLayout layout) {
  return layout == DataLayout::kNCHW ? ImageShape{d[0], d[2], d[3], d[1]}
                                     : ImageShape{d[0], d[1], d[2], d[3]};
}

}  // namespace

LayoutPlan planLayouts(const nn::Model& model, std::vector<std::optional<LoweredOperation>> ops,
                       std::map<uint32_t, nn::Error>* rejected) {
  const auto& operands = model.main.operands;
  auto reject = [&](uint32_t i, nn::Error e) {
    if (rejected) rejected->emplace(i, std::move(e));
    ops[i].reset();
  };
  // Image layouts are fixed by the convolutions that touch a tensor; the first one in model
  // order wins and a disagreeing one is dropped. Dropping a convolution can only remove
  // constraints, so one pass settles it.
  std::map<uint32_t, DataLayout> imageLayout;
  for (uint32_t i = 0; i < ops.size(); ++i) {
    if (!ops[i] || ops[i]->layer.type != nn::OperationType::CONV_2D) continue;
    const auto& lo = *ops[i];
    const uint32_t in = lo.layer.inputOperand, out = lo.layer.outputOperand;
    auto conflicts = [&](uint32_t t, DataLayout l) {
      auto it = imageLayout.find(t);
      return it != imageLayout.end() && it->second != l;
    };
    if (conflicts(in, lo.inputLayout) || conflicts(out, lo.outputLayout)) {
      reject(i, NN_ERROR(BAD_DATA) << "CONV_2D: a tensor it uses is read elsewhere in the other "
                                      "data layout (NHWC vs NCHW)");
      continue;
    }
    imageLayout[in] = lo.inputLayout;
    imageLayout[out] = lo.outputLayout;
  }

  // Logical dimensions: declared for inputs (fully specified, the lowering checked), computed
  // for outputs (their declaration may leave dimensions unspecified).
  std::map<uint32_t, nn::Dimensions> dims;
  for (const auto& op : ops) {
    if (!op) continue;
    dims[op->layer.inputOperand] = operands[op->layer.inputOperand].dimensions;
  }
  for (const auto& op : ops) {
    if (op) dims[op->layer.outputOperand] = op->outputDims;
  }
  LayoutPlan plan;
  for (const auto& [index, layout] : imageLayout) {
    TensorLayout t = flatLayout(operands[index], index, dims.at(index));
    t.layout = layout;
    t.image = imageOf(t.dims, layout);
    plan.tensors[index] = t;
  }
  // Halo: the largest padding any consumer reads on each side.
  for (const auto& op : ops) {
    if (!op || op->layer.type != nn::OperationType::CONV_2D) continue;
    auto& t = plan.tensors.at(op->layer.inputOperand);
    t.haloTop = std::max(t.haloTop, op->layer.padTop);
    t.haloBottom = std::max(t.haloBottom, op->layer.padBottom);
    t.haloLeft = std::max(t.haloLeft, op->layer.padLeft);
    t.haloRight = std::max(t.haloRight, op->layer.padRight);
  }
  // FULLY_CONNECTED reads dense bytes when it can, the whole image otherwise.
  for (uint32_t i = 0; i < ops.size(); ++i) {
    if (!ops[i] || ops[i]->layer.type != nn::OperationType::FULLY_CONNECTED) continue;
    const auto& lo = *ops[i];
    auto it = plan.tensors.find(lo.layer.inputOperand);
    if (it != plan.tensors.end() && (it->second.hasHalo() || it->second.layout == DataLayout::kNCHW)) {
      auto image = fullyConnectedOverImage(lo, it->second.layout);
      if (!image.ok()) {
        reject(i, image.error());
        continue;
      }
      ops[i]->layer = std::move(image).value();
    }
  }
  for (const auto& op : ops) {
    if (!op) continue;
    for (uint32_t index : {op->layer.inputOperand, op->layer.outputOperand}) {
      if (plan.tensors.count(index) == 0) plan.tensors[index] = flatLayout(operands[index], index, dims.at(index));
    }
    plan.layers.push_back(op->layer);
  }
  return plan;
}

ImageView viewOf(const TensorLayout& t, const ImageShape& s, uint64_t addr) {
  ImageView v;
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
