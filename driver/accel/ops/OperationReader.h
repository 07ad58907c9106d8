// Reading an NNAPI operation the way every operation family's support check and lowering do:
// its operands, constant scalar parameters, quantization, windows and output dimensions, with
// BAD_DATA naming the operation and the reason when something is not supported.
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <optional>
#include <vector>

#include "../ElementType.h"
#include "../GemmLayer.h"
#include "../Lowering.h"
#include "../ModelAccess.h"
#include "../Requantization.h"
#include "weft/hw/postproc.h"
#include "weft/nn/Result.h"
#include "weft/nn/Types.h"

namespace weft::accel {

bool isQuant8Activation(nn::OperandType t);
bool isSignedType(nn::OperandType t);

// A convolution's quantization as the hardware takes it: zero points, signedness, one
// (bias, multiplier, shift) per output channel, the clamp; the filter bytes with values.
struct ConvQuantization {
  int32_t inZp = 0, wZp = 0, outZp = 0;
  ElementType inputType = ElementType::kQuant8Asymm, weightType = ElementType::kQuant8Asymm,
              outputType = ElementType::kQuant8Asymm;
  std::vector<hw::ColumnParams> columns;
  ClampRange clamp;
  std::vector<uint8_t> weights;  // the filter's bytes in its own order (withValues; the zero
                                 // point throughout when the filter is given at execution)
  // Filter and bias given at execution (model inputs or tensors other operations compute): the
  // operand indexes the device reads them from, repacking them into its images first.
  std::optional<uint32_t> runtimeWeights, runtimeBias;
};

// Gives `layer` the quantization's zero points, types, columns and clamp (not the filter, which
// each family places its own way).
inline void applyQuantization(GemmLayer& layer, const ConvQuantization& q) {
  layer.inZp = q.inZp;
  layer.wZp = q.wZp;
  layer.outZp = q.outZp;
  layer.inputType = q.inputType;
  layer.weightType = q.weightType;
  layer.outputType = q.outputType;
  layer.columns = q.columns;
  layer.clamp = q.clamp;
}

// Padding of one dimension of a window: before and after.
struct Padding {
  int64_t head = 0, tail = 0;
};

// A windowed operation's padding: rows (height) and columns (width).
struct WindowPadding {
  Padding h, w;
};

// A convolution's optional trailing parameters: the data layout, then the dilation factors.
struct LayoutAndDilation {
  bool nchw = false;
  int32_t dilationW = 1, dilationH = 1;
};

class OperationReader {
 public:
  // filterValues false: convQuantization() and fp16Convolution() leave the filter's bytes out
  // (ConvQuantization::weights empty) even with values, for a compiler that builds no weight
  // image (the timing backend): copying a GNMT filter was 60 MB at the compilation's peak.
  OperationReader(const nn::Model& model, uint32_t index, bool filterValues = true);

  const nn::Model& model() const { return model_; }
  const nn::Operation& op() const { return op_; }
  const nn::Operand& input(uint32_t i) const { return model_.main.operands[op_.inputs[i]]; }
  const nn::Operand& output(uint32_t i) const { return model_.main.operands[op_.outputs[i]]; }

  nn::Status checkIndexes() const;

  // How many tensors one operation's lowering may make between its layers.
  static constexpr uint32_t kIntermediatesPerOperation = 16;
  // The operand index of intermediate tensor k (< kIntermediatesPerOperation) of this operation's
  // lowering (LoweredOperation::intermediates): past every operand of the model, distinct for
  // every operation, and the same however often or in whatever order operations are lowered (the
  // support check lowers them one by one, the compilation in dependency order).
  uint32_t intermediateOperand(uint32_t k) const;
  nn::Status expectCounts(std::initializer_list<size_t> inputs, size_t outputs) const;

  // Constant scalars.
  nn::Result<int32_t> int32Param(uint32_t i, const char* what) const;
  nn::Result<bool> boolParam(uint32_t i, const char* what) const;
  nn::Result<float> floatParam(uint32_t i, const char* what) const;
  // A constant FLOAT16 scalar's bits, or a constant FLOAT32 one rounded to binary16 (the scalars
  // of a relaxed model's operations).
  nn::Result<uint16_t> halfParam(uint32_t i, const char* what) const;
  // A constant TENSOR_INT32 operand's values (a shape, a permutation, paddings).
  nn::Result<std::vector<int32_t>> int32Tensor(uint32_t i, const char* what) const;

  // A fully specified quant8 (asymmetric or signed) tensor of one of the given ranks.
  nn::Status quant8Tensor(const nn::Operand& o, const char* what, size_t minRank, size_t maxRank) const;
  // Output `i` has input 0's type and, when given, the quantization (scale, zero point).
  nn::Status sameType(const nn::Operand& a, const nn::Operand& b, const char* what) const;

  // The quantization of a convolution over input 0 with filter 1 (outChannels x kSize bytes),
  // bias 2 and output 0. perChannelDim: the filter dimension a TENSOR_QUANT8_SYMM_PER_CHANNEL
  // filter may be quantized along (-1: not allowed).
  nn::Result<ConvQuantization> convQuantization(uint32_t outChannels, uint64_t kSize, int32_t activation,
                                                int perChannelDim, bool checkBiasScale, bool withValues) const;

  // A TENSOR_FLOAT16 convolution over input 0 with constant filter 1 (outChannels x kElements
  // values) and constant bias 2 (TENSOR_FLOAT16, or omitted) into output 0, as the fp16 datapath
  // takes it (GemmLayer types kFloat16): the filter's bytes, each bias as binary32 bits, the fused
  // activation's bounds as binary16 bits. BAD_DATA for other types or operands given at execution.
  nn::Result<ConvQuantization> fp16Convolution(uint32_t outChannels, uint64_t kElements, int32_t activation,
                                               bool withValues) const;

  // Whether `o` is computed in binary16 here: TENSOR_FLOAT16, or TENSOR_FLOAT32 in a model that
  // lets float32 be computed in float16 (kept as binary16 on the device, MemoryPlan.h).
  bool halfType(const nn::Operand& o) const;
  // The type the device computes `o`'s values in: kFloat16 when halfType(), else its 8-bit type.
  ElementType valueType(const nn::Operand& o) const;
  // A fully specified tensor halfType() accepts, of one of the given ranks.
  nn::Status halfTensor(const nn::Operand& o, const char* what, size_t minRank, size_t maxRank) const;
  // A fused activation's bounds as binary16 bit patterns (STORE mode fp16's clamp): NONE
  // (-inf, +inf), RELU [0, +inf), RELU1 [-1, 1], RELU6 [0, 6].
  nn::Result<ClampRange> fp16Clamp(int32_t activation) const;

  // The clamp of a fused activation on output `o`.
  nn::Result<ClampRange> activationClamp(int32_t activation, const nn::Operand& o) const;

  // Explicit paddings at inputs first.. (left, right, top, bottom) or an implicit scheme at
  // `first` (SAME: TFLite's split, VALID: none) for an input of size (h, w), window (kh, kw)
  // dilated (dh, dw) and strides (sh, sw).
  nn::Result<Padding> implicitPadding(int32_t scheme, uint32_t size, uint32_t stride, uint32_t effective) const;
  // A convolution's padding, implicit (the scheme at input 3) or explicit (left, right, top,
  // bottom at inputs 3 to 6, none negative), over an image of `height` x `width` with the given
  // strides and dilated window.
  nn::Result<WindowPadding> convolutionPadding(bool implicit, uint32_t height, uint32_t width, uint32_t strideH,
                                               uint32_t strideW, uint32_t effH, uint32_t effW) const;
  // The data layout at `layoutIdx` and the dilation factors after it, where the operation has
  // those inputs.
  nn::Result<LayoutAndDilation> layoutAndDilation(uint32_t layoutIdx) const;

  // The declared output dimensions must agree with the computed ones where they are given.
  nn::Status checkOutputDims(const nn::Dimensions& computed, uint32_t output = 0) const;

  // The operation's name: its type's, or an extension operation's own (WEFT_LAYER_NORM).
  const char* name() const { return name_; }

  template <typename... Args>
  nn::Error fail(fmt::format_string<Args...> f, Args&&... args) const {
    return NN_ERROR(BAD_DATA) << name_ << ": " << fmt::format(f, std::forward<Args>(args)...);
  }

 private:
  const nn::Model& model_;
  const nn::Operation& op_;
  uint32_t index_;
  const char* name_;
  bool filterValues_;
};

inline uint32_t effectiveFilter(uint32_t filter, uint32_t dilation) { return (filter - 1) * dilation + 1; }

// A tensor of rank up to 4 as an NHWC image: its dimensions padded with leading 1s.
inline ImageShape paddedImage(const nn::Dimensions& d) {
  uint32_t v[4] = {1, 1, 1, 1};
  for (size_t i = 0; i < d.size() && i < 4; ++i) v[4 - d.size() + i] = d[i];
  return ImageShape{v[0], v[1], v[2], v[3]};
}
// How an element-wise operation indexes such a tensor: a 4-D one as an NHWC image.
inline DataLayout elementwiseLayout(const nn::Dimensions& d) {
  return d.size() == 4 ? DataLayout::kNHWC : DataLayout::kFlat;
}

}  // namespace weft::accel
