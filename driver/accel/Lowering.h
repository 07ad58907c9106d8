// Lowering: one NNAPI operation -> the accelerator's work for it, through one resolver.
//
// Every operation family lives in ops/<Family>.cpp (the support check on exact operand types
// and parameters, beside the lowering that uses them) and is listed once in Lowering.cpp's
// table. The array runs CONV_2D and FULLY_CONNECTED (a GemmLayer: the tiling, memory planning
// and command generation of Tiling.h / CommandGenerator.h); the vector unit runs everything
// else the accelerator supports (a VectorLayer: ops/*Layer.h). What no family accepts, or
// accepts only with operands or parameters the hardware cannot take, is BAD_DATA with the
// reason, and the runtime's partitioner sends it to the CPU.
//
// A FULLY_CONNECTED layer is a 1x1 convolution over an image of `batch` pixels of `input_size`
// channels (its input read as a dense [batch, input_size] matrix). When its input is an image
// tensor kept with a halo or in NCHW order (MemoryPlan.h), it is instead a convolution whose
// filter covers the whole image: see fullyConnectedOverImage().
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "ElementType.h"
#include "GemmLayer.h"
#include "ImageView.h"
#include "VectorLayer.h"
#include "weft/nn/Result.h"

namespace weft::accel {

// Visitor helper: one lambda per alternative (LoweredLayer::visit).
template <typename... F>
struct Overloaded : F... {
  using F::operator()...;
};
template <typename... F>
Overloaded(F...) -> Overloaded<F...>;

// One layer of work, on the unit that runs it: the systolic array's GEMM or a vector-unit layer.
// A variant rather than one base class: a GemmLayer is a plain value the tiling search copies,
// keys and hashes, and each stage's array work (tiling, weight images, the loop nest) is the
// stage's own; a VectorLayer is the interface every vector family implements. What all layers
// answer alike (their operation, type, tensors, scratch) is asked of LoweredLayer, and a stage
// that treats the two units differently visits it (visit()) instead of testing which it is.
using LayerWork = std::variant<GemmLayer, std::shared_ptr<VectorLayer>>;

struct LoweredLayer {
  LayerWork work;  // a GemmLayer unless a family puts a vector layer here
  DataLayout inputLayout = DataLayout::kFlat;   // GEMM: kFlat for FULLY_CONNECTED
  DataLayout outputLayout = DataLayout::kFlat;
  nn::Dimensions outputDims;  // the (first) output's logical dimensions, as computed
  // FULLY_CONNECTED only: the logical dimensions of the input tensor (for the image form).
  nn::Dimensions fcInputDims;

  // The array's layer, or nullptr.
  GemmLayer* gemm() { return std::get_if<GemmLayer>(&work); }
  const GemmLayer* gemm() const { return std::get_if<GemmLayer>(&work); }
  // The vector unit's layer, or nullptr.
  VectorLayer* vector() const {
    const auto* v = std::get_if<std::shared_ptr<VectorLayer>>(&work);
    return v ? v->get() : nullptr;
  }
  // f(GemmLayer&) or f(VectorLayer&), whichever the layer is.
  template <typename F>
  decltype(auto) visit(F&& f) const {
    if (const GemmLayer* g = gemm()) return f(*g);
    return f(static_cast<const VectorLayer&>(*vector()));
  }
  template <typename F>
  decltype(auto) visit(F&& f) {
    if (GemmLayer* g = gemm()) return f(*g);
    return f(*vector());
  }

  uint32_t operationIndex() const {
    return visit([](const auto& l) { return l.operationIndex; });
  }
  nn::OperationType type() const {
    return visit([](const auto& l) { return l.type; });
  }
  // The type its unit computes in (kFloat16 needs the fp16 datapath).
  ElementType computeType() const {
    return visit(Overloaded{[](const GemmLayer& g) { return g.inputType; },
                            [](const VectorLayer& v) { return v.valueType; }});
  }
  // DRAM the layer's commands may use as they please, placed for it alone (0: none).
  uint64_t scratchBytes(const hw::HwConfig& config) const {
    return visit(Overloaded{[](const GemmLayer&) { return uint64_t{0}; },
                            [&](const VectorLayer& v) { return v.scratchBytes(config); }});
  }
};

// A tensor a lowering makes between its own layers: in no model, so described here (type,
// dimensions, quantization) as the model describes its operands. Its operand index comes from
// OperationReader::intermediateOperand, past the model's operands.
struct IntermediateTensor {
  uint32_t operand = 0;
  nn::Operand description;  // lifetime TEMPORARY_VARIABLE
};

// What one NNAPI operation lowers to: one layer, or several run in order with intermediate
// tensors between them. Each layer is tiled, placed, emitted (with its own snapshot barrier) and
// costed on its own, and profiled under the operation's index.
struct LoweredOperation {
  LoweredOperation() = default;
  // Most operations are one layer.
  LoweredOperation(LoweredLayer single) { layers.push_back(std::move(single)); }  // NOLINT: implicit

  std::vector<LoweredLayer> layers;
  std::vector<IntermediateTensor> intermediates;
  // Support check only: a shape parameter is a model input, so the operation is compiled at
  // execution (ExecutionParameters.h); its layer then names its tensors and nothing else.
  bool pending = false;

  uint32_t operationIndex() const { return layers.front().operationIndex(); }
  nn::OperationType type() const { return layers.front().type(); }
};

// Lowers model.main.operations[index] into its layers, or BAD_DATA saying why it is not supported.
// With withValues = false the weights and column parameters are validated but not built
// (getSupportedOperations). With gemmFilterValues = false an array layer's filter is left out
// (GemmLayer::weights empty), its column parameters built: for the timing backend, which
// writes no weight image.
nn::Result<LoweredOperation> lowerOperation(const nn::Model& model, uint32_t index, bool withValues = true,
                                            bool gemmFilterValues = true);

// The image form of a FULLY_CONNECTED layer whose input is a 4-D image tensor of logical
// dimensions `dims` in `layout` (kNHWC or kNCHW): the filter covers the whole image, the output
// is one pixel per batch, and the weights are permuted to the NHWC order of the image bytes.
// BAD_DATA when input_size is not the product of the three inner dimensions.
nn::Result<GemmLayer> fullyConnectedOverImage(const LoweredLayer& fc, DataLayout layout);

// Lowering once the layouts are settled (MemoryPlan.h): a FULLY_CONNECTED layer whose input the
// plan keeps as an image (with a halo, or in NCHW order) reads that image whole, in its image
// form. A layer that has none is dropped from the plan and `rejected` receives its operation
// index and the reason.
struct LayoutPlan;
void lowerFullyConnectedInputs(LayoutPlan& plan, std::map<uint32_t, nn::Error>* rejected);

// And a RESHAPE whose input the plan keeps in NCHW order (an NCHW convolution's output: ViT's
// patch embedding, flattened to [N, C, H*W]) reads the NHWC image bytes in NCHW order, and one
// whose output it keeps so (MaxViT's grid departition, [B, C, H, W] for the next block's
// convolutions) writes them from its dense input: a strided copy (ops/StridedCopy.h) in place of
// its flat copy.
// So does a TRANSPOSE, SLICE or GATHER whose input or output the plan keeps in NCHW order: its
// boxes are walked on the image (ops/StridedCopy.h, onNchwImages).
void lowerReshapeInputs(LayoutPlan& plan);

// The operations lowered to strided copies (ops/StridedCopy.h), whose dense tensors may also be
// NCHW images without a halo (MemoryPlan's checkDense, lowerReshapeInputs).
inline bool isStridedCopy(nn::OperationType t) {
  return t == nn::OperationType::TRANSPOSE || t == nn::OperationType::CHANNEL_SHUFFLE || t == nn::OperationType::SLICE ||
         t == nn::OperationType::STRIDED_SLICE || t == nn::OperationType::GATHER ||
         t == nn::OperationType::RESIZE_NEAREST_NEIGHBOR || t == nn::OperationType::DEPTH_TO_SPACE ||
         t == nn::OperationType::SPACE_TO_DEPTH || t == nn::OperationType::MIRROR_PAD;
}

}  // namespace weft::accel
