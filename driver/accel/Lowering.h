// Lowering: one NNAPI operation -> one GEMM layer.
//
// Supported: CONV_2D and FULLY_CONNECTED with TENSOR_QUANT8_ASYMM or TENSOR_QUANT8_ASYMM_SIGNED
// activations; weights of the same type, or TENSOR_QUANT8_SYMM_PER_CHANNEL (CONV_2D, channel
// dimension 0); int32 bias; constant weights, bias and scalar parameters; fully specified input
// shapes; NHWC or NCHW; explicit or implicit (SAME/VALID) padding; any strides and dilations;
// fused NONE/RELU/RELU1/RELU6. Everything else is reported unsupported with the reason, so the
// runtime's partitioner sends it to the CPU.
//
// A FULLY_CONNECTED layer is a 1x1 convolution over an image of `batch` pixels of `input_size`
// channels (its input read as a dense [batch, input_size] matrix). When its input is an image
// tensor kept with a halo or in NCHW order (MemoryPlan.h), it is instead a convolution whose
// filter covers the whole image: see fullyConnectedOverImage().
#pragma once

#include <string>

#include "GemmLayer.h"
#include "weft/nn/Result.h"

namespace weft::accel {

// How the operation indexes its input and output tensors.
enum class DataLayout { kFlat, kNHWC, kNCHW };

struct LoweredOperation {
  GemmLayer layer;
  DataLayout inputLayout = DataLayout::kFlat;   // kFlat for FULLY_CONNECTED
  DataLayout outputLayout = DataLayout::kFlat;
  nn::Dimensions outputDims;  // the output's logical dimensions, as computed
  // FULLY_CONNECTED only: the logical dimensions of the input tensor (for the image form).
  nn::Dimensions fcInputDims;
};

// Lowers model.main.operations[index], or BAD_DATA saying why it is not supported.
// With withValues = false the weights and column parameters are validated but not built
// (getSupportedOperations).
nn::Result<LoweredOperation> lowerOperation(const nn::Model& model, uint32_t index,
                                            bool withValues = true);

// The image form of a FULLY_CONNECTED layer whose input is a 4-D image tensor of logical
// dimensions `dims` in `layout` (kNHWC or kNCHW): the filter covers the whole image, the output
// is one pixel per batch, and the weights are permuted to the NHWC order of the image bytes.
// BAD_DATA when input_size is not the product of the three inner dimensions.
nn::Result<GemmLayer> fullyConnectedOverImage(const LoweredOperation& fc, DataLayout layout);

}  // namespace weft::accel
