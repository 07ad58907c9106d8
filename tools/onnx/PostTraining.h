// Post-training int8 quantization of a float NNAPI model, the way the TFLite converter does it:
// weights symmetric int8 (per output channel for convolutions, per tensor for FULLY_CONNECTED),
// activations asymmetric int8 (TENSOR_QUANT8_ASYMM_SIGNED) from ranges observed on calibration
// inputs, int32 biases of scale input_scale * weight_scale, and the fixed output quantizations
// NNAPI asks of SOFTMAX, LOGISTIC and TANH; BATCH_MATMUL of computed values, a DIV by a constant as
// the MUL by its reciprocal (NNAPI has no int8 DIV), org.weft.accel's WEFT_GELU and WEFT_LAYER_NORM
// (gamma and beta stay float32). Operations NNAPI has no quantized form of here stay
// float32 between a DEQUANTIZE and a QUANTIZE. Works on any float32 model (an imported ONNX model
// is one); calibration runs are the caller's (they need a device), through observingModel().
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "HostTensor.h"
#include "TestModel.h"

namespace weft::onnx {

// The values one operand took over the calibration runs, widened to hold 0 (so 0 is exact).
// Masked values (an attention mask's -inf, or float's extremes, |v| >= kMaskedValue, as
// exporters write masks) are left out of lo and hi and only noted: they stand for "as far below
// (or above) the rest as can be", which int8 holds as its end of a range at least kMaskDepth wide
// (int8Quantization). A softmax then gives them exp(-kMaskDepth), 0 at its 1/256 output step.
struct Range {
  float lo = 0.0f, hi = 0.0f;
  bool maskedLow = false, maskedHigh = false;
  // The values seen themselves (lo and hi start from 0): whether they keep away from 0, for a
  // divisor's reciprocal; +inf and -inf before any.
  float least = std::numeric_limits<float>::infinity(), most = -std::numeric_limits<float>::infinity();
};
inline constexpr float kMaskedValue = 1e30f;
inline constexpr float kMaskDepth = 16.0f;
// A constant's entries of this magnitude or more (BERT's -10000 too) are a mask's: the quantizer
// holds them kMaskMagnitude deep, and an ADD of such a constant takes its output's range from its
// other operand (the unmasked sums), not from the calibration's (which the masked sums widen).
inline constexpr float kMaskMagnitude = 1e4f;
// How far below its top a SOFTMAX's input range reaches (in units of 1 / beta): exp(-64) is
// 1.6e-28, nothing an 8-bit output of step 1/256 can show.
inline constexpr float kSoftmaxDepth = 64.0f;

// The operands a calibration run observes: every float32 tensor computed at run time (the
// model's inputs, its outputs and the temporaries between), in operand order.
std::vector<uint32_t> calibratedOperands(const test::TestModel& model);

// `model` with those of `operands` that operations write as its outputs, in operand order (its
// inputs and operations unchanged): run it on the calibration inputs and give a RangeObserver
// each run's inputs and outputs.
test::TestModel observingModel(const test::TestModel& model, const std::vector<uint32_t>& operands);

// The ranges of a model's values over the calibration runs: each run's model inputs and the
// observing model's outputs, operand by operand (float32 bytes). NaN is refused (a model that
// makes it cannot be calibrated); masked values are noted (Range).
class RangeObserver {
 public:
  void observe(uint32_t operand, const uint8_t* data, size_t bytes);
  const std::map<uint32_t, Range>& ranges() const { return ranges_; }

 private:
  std::map<uint32_t, Range> ranges_;
};

// `r` widened by one observed value (a masked one, |v| >= `masked`, only noted).
void widen(Range& r, float v, float masked = kMaskedValue);

// Asymmetric int8 parameters of a range (scale > 0; zero point in [-128, 127], 0 exact): over lo
// and hi, and at least kMaskDepth wide below hi (above lo) where masked values were seen.
Quantization int8Quantization(Range range);

struct QuantizedModel {
  test::TestModel model;
  // The quantization of each model input and output (the model takes and gives int8 values; an
  // integer or boolean input has none: it is taken as it is).
  std::vector<Quantization> inputs, outputs;
  // For each operation of the quantized model, the float model's operation it comes from (a
  // DEQUANTIZE or QUANTIZE inserted around a float operation points at that operation).
  std::vector<size_t> origin;
  // What each operation is in the quantized model: "" for the operation itself, "dequantize" or
  // "quantize" for the ones inserted around an operation kept in float, "rescale" for the ADD that
  // requantizes a LOGISTIC's or TANH's input of too fine steps.
  std::vector<std::string> role;
  // For each operation, the float model's RELU, RELU1 or RELU6 folded into it as its fused
  // activation (-1: none).
  std::vector<int64_t> folded;
  // The float model's operations that stayed float32, as "TYPE#index".
  std::vector<std::string> keptInFloat;
};

// Quantizes `model` (float32, main graph only) with the observed `ranges` (every operand of
// calibratedOperands). ImportError when the model is not float32 or an operand has no range.
// With `weftExtensions` the float operations NNAPI's 8-bit types do not take, EXP, LOG, SQRT, ABS,
// SIN and NEG, become org.weft.accel's WEFT_UNARY of their calibrated ranges (the accelerator's
// lookup table), and a DIV by a value kept away from 0 a WEFT_UNARY RECIPROCAL and a MUL;
// without, they stay float32 between DEQUANTIZE and QUANTIZE.
QuantizedModel quantizeInt8(const test::TestModel& model, const std::map<uint32_t, Range>& ranges,
                            bool weftExtensions = true);

}  // namespace weft::onnx
