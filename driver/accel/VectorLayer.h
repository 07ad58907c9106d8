// A layer the vector unit runs: depthwise convolution, pooling and MEAN (WINDOW), element-wise
// arithmetic, activations and copies (ELTWISE), SOFTMAX. Each operation family (ops/*.cpp)
// lowers an NNAPI operation into one of these; the compiler (ModelCompiler.h) places its
// tensors and constants in DRAM and asks it for its commands.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ElementType.h"
#include "GemmLayer.h"
#include "ImageView.h"
#include "PlannedCommand.h"
#include "weft/hw/config.h"
#include "weft/nn/Result.h"
#include "weft/nn/Types.h"

namespace weft::accel {

// One tensor of a vector layer, as the layer indexes it: an NHWC image (a tensor of lower rank is
// padded with leading 1s; an NCHW operation's tensors are kept NHWC like the array's).
struct LayerTensor {
  uint32_t operand = 0;
  ImageShape shape;
  DataLayout layout = DataLayout::kFlat;  // how the operation indexes it (kNCHW: logically NCHW;
                                          // kFlat: as dense bytes, `shape` a view of them)
  bool inPlace = false;  // already where the layer would copy it (a CONCATENATION input its
                         // producer wrote into the output: MemoryPlan's zero-copy views)
};

// Where a vector layer's data are in DRAM.
struct VectorPlacement {
  std::vector<ImageView> inputs, outputs;  // per LayerTensor, in order
  std::vector<uint64_t> constants;         // per constantImages() entry
  uint64_t scratch = 0;                    // scratchBytes() of DRAM of its own (0: none asked)
};

class VectorLayer {
 public:
  virtual ~VectorLayer() = default;

  uint32_t operationIndex = 0;
  nn::OperationType type = nn::OperationType::ADD;
  std::vector<LayerTensor> inputs, outputs;
  // The type of the values its lanes compute on: its input's 8-bit type, or kFloat16 (Fp16
  // hardware: WINDOW and ELTWISE in fp16 mode, STORE mode fp16) when its tensors are
  // TENSOR_FLOAT16 (or relaxed float32 kept as binary16). Shapes count bytes as channels (two a
  // binary16 value), so a scratchpad row of Cols bytes holds Cols/2 values, one a lane below
  // Cols/2, and its STOREs write two bytes a column.
  ElementType valueType = ElementType::kQuant8Asymm;
  uint32_t valueBytes() const { return bytesPerElement(valueType); }

  // Device images the layer reads besides its tensors (weights, parameter rows, lookup table),
  // written at preparation.
  virtual std::vector<std::vector<uint8_t>> constantImages(const hw::HwConfig& config) const = 0;
  // DRAM the layer's commands may write and read back as they please (a partial result too large
  // for the scratchpad, say): placed for it alone at preparation, its address in
  // VectorPlacement::scratch. None unless a layer asks.
  virtual uint64_t scratchBytes(const hw::HwConfig& /*config*/) const { return 0; }
  // Its commands, without tokens, in program order. BAD_DATA when something does not fit a
  // command field (the support check rejects such layers first).
  virtual nn::Status generate(const VectorPlacement& where, const hw::HwConfig& config, CommandSink& out) const = 0;
  // Useful lane operations (a depthwise convolution's MACs, a pool's taps, one per element
  // otherwise): what utilization is measured against.
  virtual uint64_t laneOps() const = 0;
  virtual std::string describe() const = 0;
  // What an output tensor holds wherever the layer does not write it (PAD's border), as
  // TensorLayout::fill.
  virtual std::optional<uint16_t> outputFill() const { return std::nullopt; }
  // The channel of output 0 from which input i is a plain copy of its bytes (same quantization,
  // same pixels), so that its producer may write it there directly; nullopt otherwise.
  virtual std::optional<uint32_t> channelOffsetInOutput(size_t /*input*/) const { return std::nullopt; }
  // Its 4-D kAny tensors (DataLayout::kAny) are NCHW tensors, kept as NHWC images: the memory
  // plan has given them their images' shapes, and a layer that indexes a logical axis (a
  // CONCATENATION's) maps it onto the image here. Called once, before generate().
  virtual void keptInNchw() {}
};

}  // namespace weft::accel
