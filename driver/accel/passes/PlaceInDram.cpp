#include "PlaceInDram.h"

#include <fmt/format.h>

#include <string>
#include <utility>

#include "../CommandGenerator.h"
#include "../ModelAccess.h"
#include "../RuntimeOperands.h"
#include "../Transfer.h"

namespace weft::accel {
namespace {

nn::Result<SharedRegion> allocateAndWrite(DeviceQueue& q, const std::vector<uint8_t>& bytes, const std::string& what) {
  auto region = q.allocator()->allocate(bytes.size(), kRegionAlignment, what);
  if (!region.ok()) return region.error();
  q.backend().writeDram(region.value()->addr(), bytes.data(), bytes.size());
  return region;
}

// Places one constant image, written when the backend reads data (`image` builds it) and only
// sized otherwise (`bytes`); its address, and the region kept in `out`.
class ConstantWriter {
 public:
  ConstantWriter(DeviceQueue& queue, DramPlacement& out) : queue_(queue), out_(out) {}
  nn::Result<uint64_t> write(const std::vector<uint8_t>& image, const std::string& what) {
    return keep(allocateAndWrite(queue_, image, what));
  }
  nn::Result<uint64_t> reserve(uint64_t bytes, const std::string& what) {
    return keep(queue_.allocator()->allocate(bytes, kRegionAlignment, what));
  }

 private:
  nn::Result<uint64_t> keep(nn::Result<SharedRegion> region) {
    if (!region.ok()) return region.error();
    const uint64_t addr = region.value()->addr();
    out_.constants.push_back(std::move(region).value());
    return addr;
  }
  DeviceQueue& queue_;
  DramPlacement& out_;
};

// Every tensor gets its device buffer, filled for good (the halo with the zero point, the
// interior with its fill: PAD's border), with Cols bytes of slack: the vector unit's last row of
// a tensor may read past it. A view into another tensor shares its parent's buffer.
nn::Status placeTensors(const nn::Model& model, const LayoutPlan& plan, DeviceQueue& queue,
                        const CompileTarget& target, DramPlacement& out) {
  const hw::HwConfig& config = target.config;
  for (const auto& [index, layout] : plan.tensors) {
    if (layout.aliasOf) continue;  // placed below, in its parent's buffer
    const std::string what = fmt::format("tensor {}", index);
    auto region = target.computesData ? allocateAndWrite(queue, initialTensorImage(layout, config), what)
                                      : queue.allocator()->allocate(tensorImageBytes(layout, config), kRegionAlignment, what);
    if (!region.ok()) return region.error();
    const nn::Operand& o = plan.operand(model, index);
    if (isConstant(o) && target.computesData) {  // a constant activation: its value is written now, once
      const uint8_t* bytes = constantBytes(model, o);
      if (bytes == nullptr || o.location.length < logicalBytes(layout)) {
        return NN_ERROR(BAD_DATA) << "constant operand " << index << " is shorter than its shape";
      }
      copyToDevice(queue.backend(), layout, region.value()->addr(), bytes);
    }
    out.tensors[index] = PlacedTensor{layout, std::move(region).value()};
  }
  for (const auto& [index, layout] : plan.tensors) {
    if (layout.aliasOf) out.tensors[index] = PlacedTensor{layout, out.tensors.at(*layout.aliasOf).region};
  }
  return {};
}

nn::Result<LayerConstants> placeVectorConstants(const VectorLayer& layer, const hw::HwConfig& config,
                                                ConstantWriter& writer) {
  LayerConstants c;
  size_t k = 0;
  for (auto& image : layer.constantImages(config)) {
    auto addr = writer.write(image, fmt::format("constants {} of operation {}", k++, layer.operationIndex));
    if (!addr.ok()) return addr.error();
    c.images.push_back(addr.value());
  }
  return c;
}

// The timing backend never reads data: its weight image is placed (the same bytes, so the same
// timing) but not built, the largest image of a compilation.
nn::Result<LayerConstants> placeGemmConstants(const GemmLayer& layer, const TilePlan& tp, const CompileTarget& target,
                                              ConstantWriter& writer) {
  const hw::HwConfig& config = target.config;
  const uint32_t op = layer.operationIndex;
  LayerConstants c;
  const std::string weightsWhat = fmt::format("weights of operation {}", op);
  auto weights = target.computesData ? writer.write(weightImage(layer, tp, config), weightsWhat)
                                     : writer.reserve(weightImageBytes(tp, config), weightsWhat);
  if (!weights.ok()) return weights.error();
  c.weights = weights.value();
  auto params = writer.write(paramImage(layer, tp, config), fmt::format("parameters of operation {}", op));
  if (!params.ok()) return params.error();
  c.params = params.value();
  if (tp.inputMode == InputMode::kWindowed) {
    auto padding = writer.write(paddingImage(layer, tp, config), fmt::format("input padding of operation {}", op));
    if (!padding.ok()) return padding.error();
    c.padding = padding.value();
  }
  if (layer.runtimeWeights || layer.runtimeBias) {
    auto row = writer.write(copyParamRow(config), fmt::format("copy parameters of operation {}", op));
    if (!row.ok()) return row.error();
    c.copyRow = row.value();
  }
  return c;
}

// The scratch DRAM a layer asks for (LoweredLayer::scratchBytes), its own: placed, not written
// (the layer's commands write it before they read it). Kept with the constants, so that a cached
// model places it again and its commands are relocated with it.
nn::Status placeScratch(const LoweredLayer& lo, size_t position, const hw::HwConfig& config, ConstantWriter& writer,
                        LayerConstants& constants) {
  const uint64_t bytes = lo.scratchBytes(config);
  if (bytes == 0) return {};
  auto addr = writer.reserve(bytes, fmt::format("scratch of layer {} (operation {})", position, lo.operationIndex()));
  if (!addr.ok()) return addr.error();
  constants.scratch = addr.value();
  return {};
}

}  // namespace

std::vector<uint8_t> initialTensorImage(const TensorLayout& layout, const hw::HwConfig& config) {
  std::vector<uint8_t> image = fillImage(layout);
  image.resize(image.size() + config.cols(), static_cast<uint8_t>(layout.zeroPoint));
  return image;
}

uint64_t tensorImageBytes(const TensorLayout& layout, const hw::HwConfig& config) {
  return layout.bytes() + config.cols();
}

nn::Result<DramPlacement> placeInDram(const nn::Model& model, const LayoutPlan& plan, const ModelTilings& tilings,
                                      DeviceQueue& queue, const CompileTarget& target) {
  DramPlacement out;
  NN_TRY(placeTensors(model, plan, queue, target, out));
  const size_t layerCount = plan.layers.size();
  auto snapshots = queue.allocator()->allocate(hw::kSnapshotBytes * (layerCount + 1), kRegionAlignment, "snapshot records");
  if (!snapshots.ok()) return snapshots.error();
  out.snapshots = std::move(snapshots).value();
  ConstantWriter writer(queue, out);
  for (size_t l = 0; l < layerCount; ++l) {
    const LoweredLayer& lo = plan.layers[l];
    auto constants = lo.visit(Overloaded{
        [&](const GemmLayer& g) { return placeGemmConstants(g, *tilings.plans[l], target, writer); },
        [&](const VectorLayer& v) { return placeVectorConstants(v, target.config, writer); }});
    if (!constants.ok()) return constants.error();
    NN_TRY(placeScratch(lo, l, target.config, writer, constants.value()));
    out.layers.push_back(std::move(constants).value());
  }
  return out;
}

}  // namespace weft::accel
