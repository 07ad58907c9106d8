// The GEMM layer description: what every supported NNAPI operation is lowered to, and what the
// tiling, memory planning and command generation stages work on.
//
// A layer is a convolution over an NHWC image (fully-connected layers are convolutions too,
// see Lowering.h): M = batches x outH x outW output pixels, N = output channels,
// K = filterH x filterW x input channels, in the filter's own (fh, fw, ci) order.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "ElementType.h"
#include "Requantization.h"
#include "weft/hw/postproc.h"
#include "weft/nn/Types.h"

namespace weft::accel {

// An image as the hardware sees it: NHWC bytes.
struct ImageShape {
  uint32_t batches = 1, height = 1, width = 1, channels = 1;
  uint64_t pixels() const { return uint64_t{batches} * height * width; }
  uint64_t elements() const { return pixels() * channels; }
};

struct GemmLayer {
  uint32_t operationIndex = 0;
  nn::OperationType type = nn::OperationType::CONV_2D;
  uint32_t inputOperand = 0, outputOperand = 0;

  ImageShape input;   // the physical view of the input the layer reads
  ImageShape output;  // the physical view of the output it writes
  uint32_t filterH = 1, filterW = 1;
  uint32_t strideH = 1, strideW = 1;
  uint32_t dilationH = 1, dilationW = 1;
  // Padding the windows reach into, in input pixels (bottom/right: only what is actually read).
  uint32_t padTop = 0, padLeft = 0, padBottom = 0, padRight = 0;
  bool nchw = false;  // the operation's data layout (CONV_2D): how its tensors are indexed

  // The types of the input, the filter and what the STORE writes. kFloat16 (Fp16 hardware: GEMM
  // fp16 and STORE mode fp16): input, filter and output are binary16, seen as bytes. `input`
  // then counts bytes as channels (two a value), so K is in bytes and every K chunk of the tiling
  // holds whole values (Rows is even, runs are whole pixels); `output` counts values (columns) and
  // a column writes two bytes. `weights` are the filter's bytes, the columns' bias the binary32
  // bits of the bias, `clamp` the fused activation's bounds as binary16 bits; zero points are 0.
  // outputType kInt32Raw: the STORE writes the int32 accumulators unrequantized (raw32 mode, four
  // bytes a column: the org.weft.accel matmul); the columns' multipliers, shifts, outZp and clamp
  // are then unused.
  ElementType inputType = ElementType::kQuant8Asymm;
  ElementType weightType = ElementType::kQuant8Asymm;
  ElementType outputType = ElementType::kQuant8Asymm;

  // outC x K weight bytes (of weightType), K in (fh, fw, ci) order.
  std::vector<uint8_t> weights;
  int32_t inZp = 0, wZp = 0, outZp = 0;
  std::vector<hw::ColumnParams> columns;  // one per output channel: bias, multiplier, shift
  ClampRange clamp;
  // Filter and bias given at execution, not constants: the operands the device repacks into the
  // weight and parameter images before the layer runs (RuntimeOperands.h). `weights` then
  // holds the zero point, the columns' bias 0.
  std::optional<uint32_t> runtimeWeights, runtimeBias;
  // Where in its tensors the layer's data start, in bytes: one matrix of a batch (BATCH_MATMUL
  // lowers a batch of B products to B layers over the same three tensors, each at its own
  // offset). The input and output views start that far into their tensors, the runtime filter
  // is read from that far into its operand.
  uint64_t inputOffset = 0, outputOffset = 0, runtimeWeightsOffset = 0;
  // The runtime filter's order in DRAM: false [N, K] (a row per output channel, as FULLY_CONNECTED
  // and WEFT_MATMUL_INT32 give it), true [K, N] (BATCH_MATMUL's rhs without adj_y): then each
  // weight tile row is Cols contiguous bytes of a filter row and the repack copies whole rows.
  bool runtimeWeightsKMajor = false;
  // A phase of a transposed convolution (ops/TransposeConvolution.cpp): the layer's output pixel
  // (y, x) is the tensor's pixel (outputFirstRow + y * outputRowStep, outputFirstCol + x *
  // outputColStep), and its input pixel (y, x) the tensor's (inputFirstRow + y, inputFirstCol + x).
  // The views take the tensors' own strides (MemoryPlan.cpp gemmViews).
  uint32_t outputFirstRow = 0, outputFirstCol = 0, outputRowStep = 1, outputColStep = 1;
  uint32_t inputFirstRow = 0, inputFirstCol = 0;
  bool phased() const {
    return outputRowStep != 1 || outputColStep != 1 || outputFirstRow != 0 || outputFirstCol != 0 ||
           inputFirstRow != 0 || inputFirstCol != 0;
  }

  // A convolution over an image (CONV_2D, or a group of a GROUPED_CONV_2D): its input and output
  // are images in its layout, its input kept with the halo its padding reads.
  bool isConvolution() const {
    return type == nn::OperationType::CONV_2D || type == nn::OperationType::GROUPED_CONV_2D ||
           type == nn::OperationType::TRANSPOSE_CONV_2D;
  }
  uint32_t k() const { return filterH * filterW * input.channels; }
  uint32_t n() const { return output.channels; }
  uint64_t m() const { return output.pixels(); }
  // Bytes of K one input value takes: its lanes of the array (two for binary16).
  uint32_t inputValueBytes() const { return bytesPerElement(inputType); }
  // Multiply-accumulates: K counts bytes, two a value for an fp16 layer.
  uint64_t macs() const { return m() * n() * (k() / inputValueBytes()); }
  // Bytes the STORE writes per output element.
  uint32_t outputElementBytes() const { return bytesPerElement(outputType); }
};

}  // namespace weft::accel
