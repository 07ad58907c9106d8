// Memory planning, part 1: how every tensor of a prepared model is kept in device DRAM.
//
// Activations are NHWC images with a halo: a border as wide as the largest padding any
// consuming CONV_2D reads, filled once with the tensor's zero point. The DMA then reads padded
// windows like any other bytes and the array needs no zero-fill logic ((zp - zp) * w = 0).
// The vector unit needs no halo (its windows skip taps outside the image) and reads any of
// these layouts through a view. Tensors no convolution touches are plain dense bytes. NCHW
// tensors are kept in NHWC order too; the host converts model inputs and outputs when it copies
// them (Transfer.h), and a FULLY_CONNECTED layer reading such a tensor gets its weights
// permuted instead.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <vector>

#include "DramAllocator.h"
#include "GemmLayer.h"
#include "ImageView.h"
#include "Lowering.h"

namespace weft::accel {

// A byte as TensorLayout::fill: the byte at every address.
constexpr uint16_t byteTwice(uint8_t b) { return static_cast<uint16_t>(b * 0x101u); }

struct TensorLayout {
  uint32_t operand = 0;
  nn::OperandType type = nn::OperandType::TENSOR_QUANT8_ASYMM;
  int32_t zeroPoint = 0;
  nn::Dimensions dims;                  // logical dimensions
  DataLayout layout = DataLayout::kFlat;  // how the logical order maps onto the bytes
  ImageShape image;                     // physical NHWC dimensions in bytes: channels are the bytes
                                        // of a pixel (a TENSOR_FLOAT16 value is two; kFlat: 1 x 1 x 1 x bytes)
  uint32_t haloTop = 0, haloBottom = 0, haloLeft = 0, haloRight = 0;
  // The interior bytes no layer writes: byte i of the buffer is byte i % 2 of `fill` (little-
  // endian), so the zero point twice, or PAD's value (a binary16 one whole: every value starts
  // at an even byte). The halo always holds the zero point.
  uint16_t fill = 0;
  // A view into another tensor's bytes (a CONCATENATION input written in place): the channels
  // from channelOffset of `aliasOf`, whose image and halo this layout repeats. It has no
  // buffer of its own.
  std::optional<uint32_t> aliasOf;
  uint32_t channelOffset = 0;
  // A TENSOR_FLOAT32 of a model that allows float32 to be computed in float16 (relaxed), kept on
  // the device as binary16 for the fp16 datapath: `image` counts its two-byte values, and the
  // host's copies convert (to binary16 rounding to nearest even, back exactly; Transfer.h).
  bool halfOnDevice = false;

  uint64_t rowStride() const { return uint64_t{image.width + haloLeft + haloRight} * image.channels; }
  uint64_t imageStride() const { return uint64_t{image.height + haloTop + haloBottom} * rowStride(); }
  uint64_t bytes() const { return image.batches * imageStride(); }
  uint64_t interiorOffset() const { return haloTop * rowStride() + uint64_t{haloLeft} * image.channels; }
  bool hasHalo() const { return haloTop + haloBottom + haloLeft + haloRight > 0; }
};

// Whether a tensor's bytes on the device are in its logical order: an NCHW tensor is kept as an
// NHWC image, the same order only when each image is one pixel or one channel.
bool inLogicalOrder(const TensorLayout& t);

struct LayoutPlan {
  std::map<uint32_t, TensorLayout> tensors;  // every operand a layer reads or writes
  std::vector<LoweredLayer> layers;          // every operation's layers, in the order given
                                             // (FULLY_CONNECTED in its final form once
                                             // lowerFullyConnectedInputs has run)
  // The tensors lowerings made between their layers (LoweredOperation::intermediates).
  std::map<uint32_t, nn::Operand> intermediates;

  // The description of a tensor a layer uses: the model's operand, or an intermediate.
  const nn::Operand& operand(const nn::Model& model, uint32_t index) const {
    auto it = intermediates.find(index);
    return it != intermediates.end() ? it->second : model.main.operands.at(index);
  }
};

// Decides the layout of every tensor the operations touch. `ops[i]` is the lowering of
// operation i or nullopt when it is not run here. When a tensor cannot satisfy all of them
// (an image read both as NHWC and as NCHW, a FULLY_CONNECTED over a haloed tensor whose
// flattening is not [batch, rest], a layer that needs dense bytes given a halo), the operation
// is dropped and `rejected` receives its index and the reason; the plan then describes the
// remaining operations.
LayoutPlan planLayouts(const nn::Model& model, std::vector<std::optional<LoweredOperation>> ops,
                       std::map<uint32_t, nn::Error>* rejected);

// The view a layer's input or output ImageShape has of a tensor placed at `addr`.
ImageView viewOf(const TensorLayout& t, const ImageShape& layerShape, uint64_t addr);

// Where a GEMM layer's data are in DRAM.
// How a GEMM layer's weights reach the weight scratchpad: from its weight image, or read where
// they are: a [K, N] matrix given at execution (tiles of Rows rows of Cols bytes, a row of the
// matrix each) or an [N, K] one (tiles loaded transposed: Cols rows of K bytes, a GEMM with
// w_transposed). RuntimeOperands.h decides.
enum class WeightSource : uint8_t { kImage, kInPlaceKMajor, kInPlaceTransposed };

struct LayerPlacement {
  ImageView input, output;
  uint64_t weights = 0;  // weightImage() bytes (CommandGenerator.h)
  WeightSource weightSource = WeightSource::kImage;
  // The previous layer (a product of the same BATCH_MATMUL, with this plan, not closed by a
  // barrier) left this layer's parameter rows loaded: no parameter LOAD (its STOREs could not
  // be ordered before one: no token queue joins the store unit to the load unit).
  bool paramsResident = false;
  // The half of the weight scratchpad (0 or 1) that resident weights use. A BATCH_MATMUL's
  // consecutive products alternate where their weights fit twice (weightBanksFit), so that a
  // product's weights load while the one before computes, not after it.
  uint32_t weightBank = 0;
  uint64_t filter = 0;   // the matrix the weights are read from in place
  uint64_t params = 0;   // paramImage() bytes
  uint64_t padding = 0;  // paddingImage() bytes (windowed inputs only)
};

// A GEMM layer's views of its input and output, each tensor (or, for a view into another
// tensor, its parent) at addressOf(operand); its constants' addresses 0.
LayerPlacement gemmViews(const LayoutPlan& plan, const GemmLayer& layer,
                         const std::function<uint64_t(uint32_t)>& addressOf);

}  // namespace weft::accel
