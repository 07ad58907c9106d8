// Test support for the accelerator driver: building FULLY_CONNECTED / CONV_2D models, random
// quantized cases, running them on the CPU reference (executeOnCpu, the oracle) and on a
// device through the HAL, and creating devices on wrapped backends.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "weft/hal/IDevice.h"
#include "weft/hal/IPreparedModel.h"
#include "weft/nn/Types.h"
#include "weft/sim/backend.h"

namespace weft::accel::test {

// Builds an nn::Model operand by operand (constants as CONSTANT_COPY).
class ModelBuilder {
 public:
  uint32_t tensor(nn::OperandType type, nn::Dimensions dims, float scale = 0, int32_t zeroPoint = 0);
  uint32_t input(nn::OperandType type, nn::Dimensions dims, float scale, int32_t zeroPoint);
  uint32_t constant(nn::OperandType type, nn::Dimensions dims, const void* bytes, size_t length, float scale = 0,
                    int32_t zeroPoint = 0);
  uint32_t int32Scalar(int32_t v);
  uint32_t boolScalar(bool v);
  uint32_t omitted(nn::OperandType type);
  void output(uint32_t operand);
  void operation(nn::OperationType type, std::vector<uint32_t> inputs, std::vector<uint32_t> outputs);
  nn::Operand& operand(uint32_t i) { return model_.main.operands[i]; }
  nn::Model build() const { return model_; }

 private:
  nn::Model model_;
};

// One quantized tensor's parameters.
struct Quant {
  nn::OperandType type = nn::OperandType::TENSOR_QUANT8_ASYMM;
  float scale = 0.5f;
  int32_t zeroPoint = 0;
};

struct ConvCase {
  uint32_t batches = 1, height = 8, width = 8, inChannels = 3, outChannels = 4;
  uint32_t filterH = 3, filterW = 3, strideH = 1, strideW = 1, dilationH = 1, dilationW = 1;
  bool implicitPadding = false;
  int32_t paddingScheme = 1;  // SAME = 1, VALID = 2 (implicit)
  int32_t padLeft = 0, padRight = 0, padTop = 0, padBottom = 0;  // explicit
  int32_t activation = 0;
  bool nchw = false;
  bool withLayoutOperand = false;  // pass the layout (and dilation) operands explicitly
  Quant in, out;
  Quant filter;                    // filter.type PER_CHANNEL: perChannelScales used
  std::vector<float> perChannelScales;
  std::string describe() const;
};

struct FcCase {
  nn::Dimensions inputDims{2, 8};
  uint32_t units = 4;
  int32_t activation = 0;
  Quant in, out, weights;
  std::string describe() const;
};

// org.weft.accel's WEFT_MATMUL_INT32 (weft/WeftExtension.h): lhs [m, k] x rhs [n, k] -> int32.
struct MatmulCase {
  uint32_t m = 4, n = 4, k = 8;
  Quant lhs, rhs;
  bool rhsAtExecution = false;  // rhs a model input instead of a constant
  bool accumulatorOutput = false;  // WEFT_TENSOR_INT32_ACCUMULATOR (with its scale) or TENSOR_INT32
  std::string describe() const;
};
// The model's prefix for org.weft.accel, and the extension types it makes.
inline constexpr uint16_t kWeftPrefix = 1;
nn::OperationType weftOperationType(uint16_t code);  // WEFT_MATMUL_INT32, WEFT_GELU, ...
nn::OperationType weftMatmulType();
nn::OperandType weftAccumulatorType();

// A model with one operation and its input values (random bytes of the input type).
struct OpModel {
  nn::Model model;
  std::vector<std::vector<uint8_t>> inputs;
  std::vector<size_t> outputBytes;
};
OpModel makeConvModel(const ConvCase& c, std::mt19937& rng);
OpModel makeFcModel(const FcCase& c, std::mt19937& rng);
OpModel makeMatmulModel(const MatmulCase& c, std::mt19937& rng);

// `count` random binary16 values in [-range, range] (rounded to nearest), as bytes.
std::vector<uint8_t> randomHalves(std::mt19937& rng, size_t count, float range);
// Three layers, conv 3x3 SAME -> conv 3x3 SAME -> fully connected, every tensor of `type`:
// TENSOR_FLOAT16, or TENSOR_FLOAT32 in a model relaxed to float16. The first output is read with
// padding (a halo around it on the device), the second densely by the fully connected layer,
// which flattens it in NCHW order when `nchw` (the convolutions' layout).
OpModel makeFp16Chain(nn::OperandType type, std::mt19937& rng, bool nchw = false);

// Random cases with valid quantization (scales such that multipliers are representable).
ConvCase randomConvCase(std::mt19937& rng, uint32_t maxSpatial, uint32_t maxChannels);
FcCase randomFcCase(std::mt19937& rng, uint32_t maxBatch, uint32_t maxSize);
MatmulCase randomMatmulCase(std::mt19937& rng, uint32_t maxRows, uint32_t maxSize);

// Results of one run: the output bytes and, for device runs, the execution result.
struct RunResult {
  std::vector<std::vector<uint8_t>> outputs;
  std::optional<hal::ExecutionResult> execution;
};
// A request with m's inputs (pointers into m) and `outputs` sized by m.outputBytes.
nn::Request makeRequest(const OpModel& m, std::vector<std::vector<uint8_t>>& outputs);
// The CPU reference (the oracle).
nn::Result<RunResult> runOnCpu(const OpModel& m);
nn::Result<RunResult> runOnPrepared(const hal::IPreparedModel& prepared, const OpModel& m,
                                    nn::MeasureTiming measure = nn::MeasureTiming::YES,
                                    const hal::OptionalTimePoint& deadline = std::nullopt);
nn::Result<hal::SharedPreparedModel> prepare(const hal::IDevice& device, const nn::Model& model);

// The process's accelerator on the approx backend with the given configuration (tests in one
// process share it, as the device is a process singleton).
hal::SharedDevice approxDevice(const std::string& config = "weft8");

// A device on a backend created by the caller (wrapped for fault injection), outside the
// singleton.
hal::SharedDevice deviceOn(std::unique_ptr<sim::IDeviceBackend> backend);

// Index of the first differing byte, or -1.
int64_t firstMismatch(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b);

// GoogleTest expectations: `device` claims the one operation of `m`, prepares and runs it, and
// its output 0 equals the CPU reference's byte for byte. `what` names the case in failures.
void expectBitExactOnDevice(const hal::IDevice& device, const OpModel& m, const std::string& what);

// GoogleTest expectations: `device` does not claim the model's last operation, and preparing the
// model fails with BAD_DATA whose message holds `reason` (any message when empty).
void expectRefusedOnDevice(const hal::IDevice& device, const nn::Model& model, const std::string& reason = "");

}  // namespace weft::accel::test
