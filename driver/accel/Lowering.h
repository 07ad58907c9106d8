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

#include "GemmLayer.h"
#include "ImageView.h"
#include "VectorLayer.h"
#include "weft/nn/Result.h"

namespace weft::accel {

struct LoweredOperation {
  GemmLayer layer;                      // the array's work (when `vector` is empty)
  std::shared_ptr<VectorLayer> vector;  // the vector unit's work
  DataLayout inputLayout = DataLayout::kFlat;   // GEMM: kFlat for FULLY_CONNECTED
  DataLayout outputLayout = DataLayout::kFlat;
  nn::Dimensions outputDims;  // GEMM: the output's logical dimensions, as computed
  // FULLY_CONNECTED only: the logical dimensions of the input tensor (for the image form).
  nn::Dimensions fcInputDims;
  // Support check only: a shape parameter is a model input, so the operation is compiled at
  // execution (ExecutionParameters.h); `vector` then names its tensors and nothing else.
  bool pending = false;

  bool isVector() const { return vector != nullptr; }
  uint32_t operationIndex() const { return isVector() ? vector->operationIndex : layer.operationIndex; }
  nn::OperationType type() const { return isVector() ? vector->type : layer.type; }
};

// Lowers model.main.operations[index], or BAD_DATA saying why it is not supported.
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
nn::Result<GemmLayer> fullyConnectedOverImage(const LoweredOperation& fc, DataLayout layout);

// Lowering once the layouts are settled (MemoryPlan.h): a FULLY_CONNECTED layer whose input the
// plan keeps as an image (with a halo, or in NCHW order) reads that image whole, in its image
// form. A layer that has none is dropped from the plan and `rejected` receives its operation
// index and the reason.
struct LayoutPlan;
void lowerFullyConnectedInputs(LayoutPlan& plan, std::map<uint32_t, nn::Error>* rejected);

}  // namespace weft::accel
