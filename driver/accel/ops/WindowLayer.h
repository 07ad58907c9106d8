// A window reduction on the vector unit (WINDOW commands): DEPTHWISE_CONV_2D, AVERAGE_POOL_2D,
// MAX_POOL_2D and MEAN.
//
// Tiling: per batch, bands of output rows (and, for very wide images, column segments) sized
// so that a band's output fits half the accumulator and its input box (only the rows and
// columns its windows reach, clipped to the image: taps outside the image are skipped by the
// hardware, so padding needs no halo) fits half of the vector scratchpad left beside the
// resident weights. A box holds all channel groups pixel-major when the channels are a
// multiple of Cols (one LOAD with merged requests per band), or group by group otherwise.
// Loads, windows and stores alternate between two buffers, so the DMA and the STOREs run
// under the vector unit's work. One WINDOW per (band, channel group); its STORE post-processes
// the accumulator rows (depthwise: bias and per-channel requantization; pools: identity) into
// the output. Parameter rows (one per channel group) and depthwise weights (k_h x k_w rows per
// group) are loaded once per epoch of ParamRows groups; epochs are separated by a barrier.
//
// binary16 (VectorLayer::valueType kFloat16; depth multiplier 1): `in`, `out` and `weights` count bytes as
// channels, so a channel group of Cols bytes is Cols/2 values, the WINDOWs run in fp16 mode and
// the STOREs in mode fp16; `columns` holds one binary32 bias a value, which the parameter rows
// place group by group in their first Cols/2 columns (fp16Columns).
#pragma once

#include <optional>
#include <vector>

#include "../Requantization.h"
#include "../VectorLayer.h"
#include "../VectorTiles.h"

namespace weft::accel {

// A binary16 layer's column parameters from one binary32 bias per value (`biases` as
// ColumnParams::bias bits): group g's row holds values [g*Cols/2, (g+1)*Cols/2) in its first
// Cols/2 columns.
std::vector<hw::ColumnParams> fp16Columns(const std::vector<hw::ColumnParams>& biases, uint32_t cols);

class WindowLayer final : public VectorLayer {
 public:
  hw::WinKind kind = hw::WinKind::kMax;
  ImageShape in, out;  // NHWC
  uint32_t kh = 1, kw = 1, sh = 1, sw = 1, dh = 1, dw = 1;
  int32_t padTop = 0, padLeft = 0;  // the window of output (0, 0) starts at (-padTop, -padLeft)
  uint32_t depthMultiplier = 1;     // depthwise: output channel o reads input channel o / dm
  ElementType weightType = ElementType::kQuant8Asymm;  // depthwise: the filter's (pools: unused)
  int32_t inZp = 0, wZp = 0;        // pools and MEAN: 0 (raw values)
  std::vector<uint8_t> weights;     // depthwise: [k_h x k_w][out channels], tap-major
  std::vector<hw::ColumnParams> columns;  // per output channel; empty: identity
  int32_t outZp = 0;
  ClampRange clamp;
  // Depthwise filter and bias given at execution: their positions in `inputs` (dense tensors).
  // The filter is loaded straight from its tensor ([1, k_h, k_w, out channels] is already a row
  // per tap); the bias is first copied into the parameter rows (RuntimeOperands.h).
  std::optional<uint32_t> weightsInput, biasInput;
  // The parameter rows already hold this layer's (every group's alike: a bilinear resize's windows
  // after the first, ops/ResizeBilinear.cpp): not loaded again, so that no barrier need order
  // the load after the STOREs of the window before, which read them.
  bool paramRowsLoaded = false;
  // A second output the STOREs write from the same accumulator rows, post-processed by its own
  // column parameters and clamp (out_zp 0): a signed bilinear resize's values below -0.5 beside
  // those from -0.5 up (ops/ResizeBilinear.cpp). The parameter rows hold both sets, each group's
  // second row an epoch's groups after its first; the tensor is outputs[1].
  struct SecondOutput {
    std::vector<hw::ColumnParams> columns;  // per output channel
    ClampRange clamp;
  };
  std::optional<SecondOutput> second;

  std::vector<std::vector<uint8_t>> constantImages(const hw::HwConfig& config) const override;
  // How many images constantImages() makes, without making them.
  size_t constantImageCount() const { return copyRowIndex() + (biasInput ? 1 : 0); }
  nn::Status generate(const VectorPlacement& where, const hw::HwConfig& config, CommandSink& out) const override;
  uint64_t laneOps() const override;
  std::string describe() const override;
  // Its channel groups' epochs: as many groups as the parameter memory holds and, for a
  // depthwise layer, as leave half the vector scratchpad for input tiles beside their weights.
  uint32_t epochGroups(const hw::HwConfig& config) const;
  uint32_t epochs(const hw::HwConfig& config) const;

 private:
  class Emission;  // generate()'s work (WindowLayer.cpp)
  uint32_t taps() const { return kh * kw; }
  // constantImages() order: parameter rows, then the depthwise weight rows (constant filter),
  // then the copies' identity row (bias given at execution).
  uint32_t weightImageIndex() const { return 1; }
  uint32_t copyRowIndex() const { return depthwise() && !weightsInput ? 2 : 1; }
  bool depthwise() const { return kind == hw::WinKind::kDwconv; }
};

}  // namespace weft::accel
