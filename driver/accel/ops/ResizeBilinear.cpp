// RESIZE_BILINEAR on the vector unit: depthwise windows of the pixels each output interpolates.
//
// Where the reference's sampling lands on whole sixteenths along both axes
// (weft/kernels/ResizeSampling.h bilinearSixteenths: whole up- and downscales by 2, 4 and 8 with
// half-pixel centres, as PyTorch's and ONNX's bilinear upsampling of segmentation heads and
// feature pyramids asks), its 8-bit arithmetic is exact in float, so an integer window that
// weighs the same pixels with the same weights in 1/256ths accumulates 256 times the very value
// the reference rounds. Where the reference clamps at the image's edges (both taps on the first
// or last pixel), it weighs that pixel by (1 - f) + f = 1; so does interpolating between the pixel
// and a copy of it. So the input is first copied into an image one pixel larger on every side,
// its border a copy of its edge pixels, and every output interpolates there between the two
// pixels around its position, unclamped. The outputs along an axis repeat their weights with a
// period (an upscale by s: s phases, each reading the input pixel after pixel); each phase of rows
// by each phase of columns is one WINDOW layer (kind dwconv, 1 or 2 taps an axis, the phase's
// weights in every channel) reading the padded input from the phase's first pixel and writing
// every s-th output pixel of every s-th row: 64 windows for an upscale by 8.
//
// The rounding: the reference truncates value + 0.5 toward zero. The STORE's requantization
// (multiplier 2^31 - 1, which leaves an accumulator below 2^30 as it is, and a right shift by 8,
// rounding half away from zero) gives round(acc / 256) exactly. For unsigned bytes that is the
// reference's rounding (the value is never negative). For signed bytes it differs where the value
// is below -0.5, where truncating value + 0.5 rounds toward zero: there the result is round((acc +
// 256) / 256). So each window of a signed resize has two STOREs (WindowLayer::second), one
// clamped to [0, 127] (the outputs at or above -0.5, zero elsewhere) and one with a bias of 256
// clamped to [-128, 0] (the outputs below -0.5, zero elsewhere), into two intermediate images that
// an element-wise ADD sums exactly.
#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "../Requantization.h"
#include "EltwiseLayer.h"
#include "Families.h"
#include "ReferenceTables.h"
#include "ResizeOperands.h"
#include "WindowLayer.h"
#include "weft/kernels/ResizeSampling.h"
#include "weft/kernels/CpuExecutor.h"

namespace weft::accel {
namespace {

// Outputs first, first + outStep, ... (count of them) along one axis, each reading `taps` input
// pixels from inFirst, inFirst + inStep, ... with the same weights (sixteenths).
struct AxisRun {
  uint32_t outFirst = 0, outStep = 1, count = 1;
  uint32_t inFirst = 0, inStep = 1;
  uint32_t taps = 1;
  uint32_t weights[2] = {16, 0};
};

// An axis's outputs as runs over the padded input (one pixel before the first): output o reads
// the two padded pixels around its position (one where the position is whole). The positions
// advance by a fixed number of sixteenths an output, so after `period` outputs they have advanced
// by whole pixels (`advance`) and the weights repeat: each phase (outputs r, r + period, ...) is
// one run. nullopt when a run would step more than a WINDOW's stride allows.
std::optional<std::vector<AxisRun>> axisRuns(const std::vector<int32_t>& positions) {
  const auto n = static_cast<uint32_t>(positions.size());
  const auto padded = [&](uint32_t o) {
    const int64_t at = positions[o], whole = at >= 0 ? at / 16 : -((-at + 15) / 16);  // floor
    const auto upper = static_cast<uint32_t>(at - 16 * whole);
    AxisRun run;
    run.outFirst = o;
    run.inFirst = static_cast<uint32_t>(whole + 1);  // >= 0: positions are above -1
    run.taps = upper == 0 ? 1 : 2;
    run.weights[0] = 16 - upper;
    run.weights[1] = upper;
    return run;
  };
  uint32_t period = n, advance = 0;
  for (uint32_t p = 1; p < n; ++p) {
    const int64_t step = int64_t{positions[p]} - positions[0];
    if (step < 16 || step % 16 != 0) continue;
    bool repeats = true;
    for (uint32_t o = p; o < n && repeats; ++o) repeats = int64_t{positions[o]} - positions[o - p] == step;
    if (repeats) {
      period = p;
      advance = static_cast<uint32_t>(step / 16);
      break;
    }
  }
  if (period < n && advance > 255) return std::nullopt;
  std::vector<AxisRun> runs;
  for (uint32_t r = 0; r < period; ++r) {
    AxisRun run = padded(r);
    run.count = (n - r + period - 1) / period;
    run.outStep = period;
    run.inStep = run.count > 1 ? advance : 1;
    runs.push_back(run);
  }
  return runs;
}

// The padded input along an axis of n pixels: pixel 0 is a copy of the first, 1..n the input,
// n + 1 a copy of the last.
std::vector<AxisRun> paddingRuns(uint32_t n) {
  std::vector<AxisRun> runs(3);
  runs[0].outFirst = 0, runs[0].inFirst = 0;
  runs[1].outFirst = 1, runs[1].count = n, runs[1].inFirst = 0;
  runs[2].outFirst = n + 1, runs[2].inFirst = n - 1;
  return runs;
}

// Forwards commands, not the windows' notes of their tiles' layout (one a window: hundreds).
class QuietSink final : public CommandSink {
 public:
  explicit QuietSink(CommandSink& sink) : sink_(sink) {}
  void add(PlannedCommand&& command) override { sink_.add(std::move(command)); }
  void expect(size_t commands) override { sink_.expect(commands); }
  bool provesFitOnly() const override { return sink_.provesFitOnly(); }

 private:
  CommandSink& sink_;
};

// One window of the resize: a row run by a column run.
struct Piece {
  WindowLayer window;
  uint32_t inY = 0, inX = 0;    // the input pixel of the window's first tap
  AxisRun rows, cols;
};

// The windows of one pass over the output (ResizeBilinear.cpp's header), writing each piece's
// outputs where they lie in the output image.
class BilinearLayer final : public VectorLayer {
 public:
  std::vector<Piece> pieces;
  std::string description;

  std::vector<std::vector<uint8_t>> constantImages(const hw::HwConfig& config) const override {
    std::vector<std::vector<uint8_t>> images;
    for (const Piece& p : pieces) {
      for (auto& image : p.window.constantImages(config)) images.push_back(std::move(image));
    }
    return images;
  }
  nn::Status generate(const VectorPlacement& where, const hw::HwConfig& config, CommandSink& sink) const override {
    QuietSink out(sink);
    size_t constant = 0;
    bool wholeRows = false;  // the last window loaded every group's parameter row at once
    for (const Piece& piece : pieces) {
      // A window that loads its parameter rows over the last one's, which that one's STOREs may
      // still read: no token orders a LOAD after a STORE, a barrier does. A window whose
      // parameters are the same as the one before's keeps them (WindowLayer::paramRowsLoaded)
      // and runs on under the last one's work (weights and tiles: the vector unit's, which
      // tokens order), where both hold every group's row at once (a partial last group's row
      // differs, and would stand where a later epoch's full one is wanted).
      const bool once = piece.window.epochs(config) == 1;
      const bool keep = piece.window.paramRowsLoaded && wholeRows && once;
      wholeRows = once;
      std::optional<WindowLayer> reloading;
      if (!keep && piece.window.paramRowsLoaded) {
        reloading = piece.window;
        reloading->paramRowsLoaded = false;
      }
      const Piece& p = piece;
      const WindowLayer& window = reloading ? *reloading : piece.window;
      if (constant > 0 && !keep) out.add(PlannedCommand{hw::BarrierCmd{}, {}});
      const size_t n = p.window.constantImageCount();
      VectorPlacement w;
      ImageView in = where.inputs[0];
      in.origin += uint64_t{p.inY} * in.rowStride + uint64_t{p.inX} * in.pixelStride;
      w.inputs = {in};
      for (ImageView o : where.outputs) {  // every s-th pixel of every s-th row, from the phase's first
        o.origin += uint64_t{p.rows.outFirst} * o.rowStride + uint64_t{p.cols.outFirst} * o.pixelStride;
        o.rowStride *= p.rows.outStep;
        o.pixelStride *= p.cols.outStep;
        w.outputs.push_back(o);
      }
      w.constants.assign(where.constants.begin() + static_cast<std::ptrdiff_t>(constant),
                         where.constants.begin() + static_cast<std::ptrdiff_t>(constant + n));
      constant += n;
      NN_TRY(window.generate(w, config, out));
    }
    return {};
  }
  uint64_t laneOps() const override {
    uint64_t ops = 0;
    for (const Piece& p : pieces) ops += p.window.laneOps();
    return ops;
  }
  std::string describe() const override { return description; }
};

// The pass's windows, clamped to `clamp`; with `belowHalf` each also writes a second output from
// the same accumulator, one whole value added and clamped to [-128, 0] (a signed resize's values
// below -0.5).
std::shared_ptr<BilinearLayer> bilinearPass(const std::vector<AxisRun>& rows, const std::vector<AxisRun>& cols,
                                            const ImageShape& in, ElementType type, ClampRange clamp,
                                            bool belowHalf = false) {
  auto layer = std::make_shared<BilinearLayer>();
  for (const AxisRun& y : rows) {
    for (const AxisRun& x : cols) {
      Piece p;
      p.rows = y;
      p.cols = x;
      p.inY = y.inFirst;
      p.inX = x.inFirst;
      WindowLayer& w = p.window;
      w.kind = hw::WinKind::kDwconv;
      w.valueType = type;
      w.weightType = ElementType::kQuant8Asymm;  // weights 0..255, unsigned whatever the input
      w.kh = y.taps;
      w.kw = x.taps;
      w.sh = y.inStep;
      w.sw = x.inStep;
      w.in = ImageShape{in.batches, (y.count - 1) * y.inStep + y.taps, (x.count - 1) * x.inStep + x.taps, in.channels};
      w.out = ImageShape{in.batches, y.count, x.count, in.channels};
      // Weights in 1/256ths (products of sixteenths); a single pixel (256) in 1/128ths.
      std::vector<uint32_t> weights;
      for (uint32_t ty = 0; ty < y.taps; ++ty)
        for (uint32_t tx = 0; tx < x.taps; ++tx) weights.push_back(y.weights[ty] * x.weights[tx]);
      const bool halve = *std::max_element(weights.begin(), weights.end()) > 255;
      const int32_t shift = halve ? 7 : 8;
      w.weights.resize(weights.size() * in.channels);
      for (size_t t = 0; t < weights.size(); ++t) {
        std::fill_n(w.weights.begin() + static_cast<std::ptrdiff_t>(t * in.channels), in.channels,
                    static_cast<uint8_t>(halve ? weights[t] / 2 : weights[t]));
      }
      w.columns.assign(in.channels, hw::ColumnParams{0, INT32_MAX, static_cast<int8_t>(-shift)});
      w.clamp = clamp;
      if (belowHalf) {
        w.second = WindowLayer::SecondOutput{
            std::vector<hw::ColumnParams>(in.channels, hw::ColumnParams{int32_t{1} << shift, INT32_MAX,
                                                                        static_cast<int8_t>(-shift)}),
            ClampRange{-128, 0}};
      }
      layer->pieces.push_back(std::move(p));
    }
  }
  // Those of one shift after another, each after the first keeping its parameter rows.
  std::stable_sort(layer->pieces.begin(), layer->pieces.end(),
                   [](const Piece& a, const Piece& b) { return a.window.columns[0].shift < b.window.columns[0].shift; });
  for (size_t i = 1; i < layer->pieces.size(); ++i) {
    const hw::ColumnParams &a = layer->pieces[i - 1].window.columns[0], &b = layer->pieces[i].window.columns[0];
    layer->pieces[i].window.paramRowsLoaded = a.bias == b.bias && a.multiplier == b.multiplier && a.shift == b.shift;
  }
  return layer;
}

// A single pixel resized (DeepLabV3's image pooling branch, global average pooling brought back to
// the feature map's size): every output interpolates it with itself, its weights summing to 1
// within a few float roundings (below 10^-3 for bytes), so every output is the reference's
// rounding of the pixel itself, trunc(p + 0.5) (p + 1 for a negative signed byte): a lookup table
// the reference kernel computes (a 1x1 resize of each byte), broadcast over the output.
nn::Result<LoweredOperation> broadcastPixel(const OperationReader& r, uint32_t index, const ResizeOperands& o) {
  const nn::Operand& input = r.input(0);
  auto table = unaryTable(nn::OperationType::RESIZE_BILINEAR, input, r.output(0), {1, 1}, {}, {1, 1, 1, 256});
  if (!table.ok()) return r.fail("the reference kernel rejects it: {}", table.error().message);
  const bool isSigned = input.type == nn::OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
  EltwiseMath m;
  m.kind = hw::EltKind::kLut;
  m.aType = r.valueType(input);
  m.lut = std::move(table).value();
  m.clamp = ClampRange{isSigned ? -128 : 0, isSigned ? 127 : 255};
  auto layer = std::make_shared<EltwiseLayer>();
  layer->operationIndex = index;
  layer->type = r.op().type;
  layer->valueType = m.aType;
  layer->math = std::move(m);
  const nn::Dimensions& dims = input.dimensions;
  const uint32_t channels = o.nchw ? dims[1] : dims[3];
  const DataLayout layout = o.nchw ? DataLayout::kNCHW : DataLayout::kNHWC;
  layer->inputs = {{r.op().inputs[0], ImageShape{dims[0], 1, 1, channels}, layout}};
  layer->outputs = {{r.op().outputs[0], ImageShape{dims[0], o.outH, o.outW, channels}, layout}};
  LoweredLayer lo;
  lo.work = std::move(layer);
  lo.outputDims = o.outDims;
  return LoweredOperation(std::move(lo));
}

}  // namespace

nn::Result<LoweredOperation> lowerResizeBilinear(const OperationReader& r, uint32_t index, bool /*withValues*/) {
  // The operand rules are the reference kernel's, so that both devices accept the same models.
  if (nn::Status valid = nn::validateOperation(r.model(), r.model().main, r.op()); !valid.ok()) {
    return r.fail("{}", valid.error().message);
  }
  const nn::Operand& input = r.input(0);
  if (isFloat(r.valueType(input))) return r.fail("binary16 bilinear interpolation runs on the CPU");
  NN_TRY(r.quant8Tensor(input, "input", 4, 4));
  if (r.output(0).type != input.type) return r.fail("the output's type differs from the input's");
  auto operands = readResizeOperands(r);
  if (!operands.ok()) return operands.error();
  const ResizeOperands& o = *operands;
  NN_TRY(r.checkOutputDims(o.outDims));
  if (o.inH == 1 && o.inW == 1) return broadcastPixel(r, index, o);
  const auto rowPositions = nn::resize_image::bilinearSixteenths(o.inH, o.outH, o.alignCorners, o.halfPixel);
  const auto colPositions = nn::resize_image::bilinearSixteenths(o.inW, o.outW, o.alignCorners, o.halfPixel);
  if (!rowPositions || !colPositions) {
    return r.fail("{}x{} -> {}x{}{}: its interpolation weights are not whole sixteenths, so the reference's float "
                  "rounding is not the integer lanes'",
                  o.inW, o.inH, o.outW, o.outH, o.alignCorners ? " (align_corners)" : o.halfPixel ? " (half-pixel)" : "");
  }
  const auto rows = axisRuns(*rowPositions), cols = axisRuns(*colPositions);
  if (!rows || !cols) return r.fail("a downscale steps over more than 255 pixels an output");
  constexpr size_t kMaxWindows = 1024;
  if (rows->size() * cols->size() > kMaxWindows) {
    return r.fail("{}x{} -> {}x{} takes {} windows (more than {})", o.inW, o.inH, o.outW, o.outH,
                  rows->size() * cols->size(), kMaxWindows);
  }
  const nn::Dimensions& dims = input.dimensions;
  const ImageShape in{dims[0], o.inH, o.inW, o.nchw ? dims[1] : dims[3]};
  const ImageShape padded{in.batches, in.height + 2, in.width + 2, in.channels};
  const ImageShape out{in.batches, o.outH, o.outW, in.channels};
  const DataLayout layout = o.nchw ? DataLayout::kNCHW : DataLayout::kNHWC;
  const ElementType type = r.valueType(input);
  const bool isSigned = type == ElementType::kQuant8AsymmSigned;
  const std::string what = fmt::format("bilinear resize {}x{} -> {}x{} ({} windows", o.inW, o.inH, o.outW, o.outH,
                                       rows->size() * cols->size());
  LoweredOperation lowered;
  uint32_t intermediates = 0;
  // An intermediate image of the output's type and layout, `shape` NHWC.
  const auto intermediate = [&](const ImageShape& shape) {
    IntermediateTensor t{r.intermediateOperand(intermediates++), r.output(0)};
    t.description.lifetime = nn::Operand::LifeTime::TEMPORARY_VARIABLE;
    t.description.location = {};
    t.description.dimensions = o.nchw ? nn::Dimensions{shape.batches, shape.channels, shape.height, shape.width}
                                      : nn::Dimensions{shape.batches, shape.height, shape.width, shape.channels};
    lowered.intermediates.push_back(t);
    return t;
  };
  // A pass from tensor `from` into `to` (NHWC shapes), whose logical dimensions are `toDims`.
  const auto add = [&](std::shared_ptr<BilinearLayer> layer, uint32_t from, const ImageShape& fromShape, uint32_t to,
                       const ImageShape& toShape, const nn::Dimensions& toDims) {
    layer->operationIndex = index;
    layer->type = r.op().type;
    layer->valueType = type;
    layer->inputs = {{from, fromShape, layout}};
    layer->outputs = {{to, toShape, layout}};
    for (Piece& p : layer->pieces) {
      p.window.operationIndex = index;
      p.window.type = r.op().type;
      p.window.inputs = {{from, p.window.in, layout}};
      p.window.outputs = {{to, p.window.out, layout}};
    }
    LoweredLayer lo;
    lo.work = std::move(layer);
    lo.outputDims = toDims;
    lowered.layers.push_back(std::move(lo));
  };
  const ClampRange full = isSigned ? ClampRange{-128, 127} : ClampRange{0, 255};
  // The padded input: copies (a single pixel's weight, 256) of the input and its edges.
  const IntermediateTensor pad = intermediate(padded);
  auto copy = bilinearPass(paddingRuns(in.height), paddingRuns(in.width), in, type, full);
  copy->description = fmt::format("bilinear resize: its input with a border of its edges, {}x{}", padded.width,
                                  padded.height);
  add(copy, r.op().inputs[0], in, pad.operand, padded, pad.description.dimensions);
  if (!isSigned) {
    auto pass = bilinearPass(*rows, *cols, padded, type, full);
    pass->description = what + ")";
    add(pass, pad.operand, padded, r.op().outputs[0], out, o.outDims);
    return lowered;
  }
  // Signed: the outputs at or above -0.5 and those below it, into two images (one WINDOW, two
  // STOREs), then their sum.
  const IntermediateTensor atLeast = intermediate(out), below = intermediate(out);
  auto split = bilinearPass(*rows, *cols, padded, type, ClampRange{0, 127}, /*belowHalf=*/true);
  split->description = what + "; values from -0.5 up, and below)";
  add(split, pad.operand, padded, atLeast.operand, out, o.outDims);
  split->outputs.push_back({below.operand, out, layout});
  for (Piece& p : split->pieces) p.window.outputs.push_back({below.operand, p.window.out, layout});
  auto sum = std::make_shared<EltwiseLayer>();
  sum->operationIndex = index;
  sum->type = r.op().type;
  sum->valueType = type;
  EltwiseMath& m = sum->math;
  m.kind = hw::EltKind::kAdd;
  m.aType = m.bType = type;
  m.aMult = m.bMult = INT32_MAX;  // a and b as they are (below 2^30)
  m.column = kIdentityColumn;
  m.clamp = ClampRange{-128, 127};
  sum->inputs = {{atLeast.operand, out, layout}, {below.operand, out, layout}};
  sum->outputs = {{r.op().outputs[0], out, layout}};
  LoweredLayer sumLayer;
  sumLayer.work = std::move(sum);
  sumLayer.outputDims = o.outDims;
  lowered.layers.push_back(std::move(sumLayer));
  return lowered;
}

}  // namespace weft::accel
