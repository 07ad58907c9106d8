#include "AccelTestUtil.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "../../driver/accel/Device.h"
#include "weft/accel/AcceleratorDevice.h"
#include "weft/hw/fp16.h"
#include "weft/kernels/CpuExecutor.h"
#include "weft/kernels/Extensions.h"

namespace weft::accel::test {

using nn::OperandType;

uint32_t ModelBuilder::tensor(OperandType type, nn::Dimensions dims, float scale, int32_t zeroPoint) {
  nn::Operand o;
  o.type = type;
  o.dimensions = std::move(dims);
  o.scale = scale;
  o.zeroPoint = zeroPoint;
  o.lifetime = nn::Operand::LifeTime::TEMPORARY_VARIABLE;
  model_.main.operands.push_back(std::move(o));
  return static_cast<uint32_t>(model_.main.operands.size() - 1);
}

uint32_t ModelBuilder::input(OperandType type, nn::Dimensions dims, float scale, int32_t zeroPoint) {
  const uint32_t i = tensor(type, std::move(dims), scale, zeroPoint);
  model_.main.operands[i].lifetime = nn::Operand::LifeTime::SUBGRAPH_INPUT;
  model_.main.inputIndexes.push_back(i);
  return i;
}

uint32_t ModelBuilder::constant(OperandType type, nn::Dimensions dims, const void* bytes, size_t length,
                                float scale, int32_t zeroPoint) {
  const uint32_t i = tensor(type, std::move(dims), scale, zeroPoint);
  auto& o = model_.main.operands[i];
  o.lifetime = nn::Operand::LifeTime::CONSTANT_COPY;
  // 4-byte aligned, as the runtime lays CONSTANT_COPY values out.
  while (model_.operandValues.size() % 4) model_.operandValues.push_back(0);
  o.location.offset = static_cast<uint32_t>(model_.operandValues.size());
  o.location.length = static_cast<uint32_t>(length);
  const auto* p = static_cast<const uint8_t*>(bytes);
  model_.operandValues.insert(model_.operandValues.end(), p, p + length);
  return i;
}

uint32_t ModelBuilder::int32Scalar(int32_t v) { return constant(OperandType::INT32, {}, &v, 4); }
uint32_t ModelBuilder::boolScalar(bool v) {
  const uint8_t b = v ? 1 : 0;
  return constant(OperandType::BOOL, {}, &b, 1);
}
uint32_t ModelBuilder::omitted(OperandType type) {
  const uint32_t i = tensor(type, {});
  model_.main.operands[i].lifetime = nn::Operand::LifeTime::NO_VALUE;
  return i;
}

void ModelBuilder::output(uint32_t operand) {
  model_.main.operands[operand].lifetime = nn::Operand::LifeTime::SUBGRAPH_OUTPUT;
  model_.main.outputIndexes.push_back(operand);
}

void ModelBuilder::operation(nn::OperationType type, std::vector<uint32_t> inputs, std::vector<uint32_t> outputs) {
  model_.main.operations.push_back({type, std::move(inputs), std::move(outputs)});
}

namespace {

std::vector<uint8_t> randomBytes(std::mt19937& rng, size_t n) {
  std::uniform_int_distribution<int> byte(0, 255);
  std::vector<uint8_t> v(n);
  for (auto& b : v) b = static_cast<uint8_t>(byte(rng));
  return v;
}

const char* typeName(OperandType t) {
  switch (t) {
    case OperandType::TENSOR_QUANT8_ASYMM: return "u8";
    case OperandType::TENSOR_QUANT8_ASYMM_SIGNED: return "s8";
    case OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL: return "pc8";
    default: return nn::toString(t);
  }
}

int32_t randomZeroPoint(std::mt19937& rng, OperandType t) {
  if (t == OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL) return 0;
  const bool s = t == OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
  return std::uniform_int_distribution<int32_t>(s ? -128 : 0, s ? 127 : 255)(rng);
}

// Bias values of roughly the accumulator's magnitude.
std::vector<int32_t> randomBias(std::mt19937& rng, uint32_t n, uint32_t k) {
  const int32_t bound = static_cast<int32_t>(std::min<uint64_t>(1u << 20, 64ull * k + 16));
  std::uniform_int_distribution<int32_t> d(-bound, bound);
  std::vector<int32_t> b(n);
  for (auto& x : b) x = d(rng);
  return b;
}

}  // namespace

std::string ConvCase::describe() const {
  std::string pad = implicitPadding ? (paddingScheme == 1 ? "SAME" : "VALID")
                                    : fmt::format("pad(l{} r{} t{} b{})", padLeft, padRight, padTop, padBottom);
  return fmt::format("conv {}x{}x{}x{} -> {} filter {}x{} stride {}x{} dilation {}x{} {} act {} {} in {}(s{} z{}) "
                     "w {}(s{} z{}) out s{} z{}",
                     batches, height, width, inChannels, outChannels, filterH, filterW, strideH, strideW,
                     dilationH, dilationW, pad, activation, nchw ? "NCHW" : "NHWC", typeName(in.type), in.scale,
                     in.zeroPoint, typeName(filter.type), filter.scale, filter.zeroPoint, out.scale, out.zeroPoint);
}

std::string FcCase::describe() const {
  std::string dims;
  for (uint32_t d : inputDims) dims += (dims.empty() ? "" : "x") + std::to_string(d);
  return fmt::format("fc [{}] -> {} units act {} in {}(s{} z{}) w s{} z{} out s{} z{}", dims, units, activation,
                     typeName(in.type), in.scale, in.zeroPoint, weights.scale, weights.zeroPoint, out.scale,
                     out.zeroPoint);
}

OpModel makeConvModel(const ConvCase& c, std::mt19937& rng) {
  ModelBuilder b;
  const nn::Dimensions inDims = c.nchw ? nn::Dimensions{c.batches, c.inChannels, c.height, c.width}
                                       : nn::Dimensions{c.batches, c.height, c.width, c.inChannels};
  const uint32_t in = b.input(c.in.type, inDims, c.in.scale, c.in.zeroPoint);
  const uint32_t k = c.filterH * c.filterW * c.inChannels;
  const auto filterBytes = randomBytes(rng, size_t{c.outChannels} * k);
  const uint32_t filter = b.constant(c.filter.type, {c.outChannels, c.filterH, c.filterW, c.inChannels},
                                     filterBytes.data(), filterBytes.size(), c.filter.scale, c.filter.zeroPoint);
  const bool perChannel = c.filter.type == OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL;
  if (perChannel) b.operand(filter).extraParams = nn::SymmPerChannelQuantParams{c.perChannelScales, 0};
  const auto bias = randomBias(rng, c.outChannels, k);
  const float biasScale = perChannel ? 0.0f : c.in.scale * c.filter.scale;
  const uint32_t biasOp = b.constant(OperandType::TENSOR_INT32, {c.outChannels}, bias.data(), 4 * bias.size(),
                                     biasScale, 0);
  std::vector<uint32_t> inputs{in, filter, biasOp};
  if (c.implicitPadding) {
    inputs.push_back(b.int32Scalar(c.paddingScheme));
  } else {
    for (int32_t p : {c.padLeft, c.padRight, c.padTop, c.padBottom}) inputs.push_back(b.int32Scalar(p));
  }
  inputs.push_back(b.int32Scalar(static_cast<int32_t>(c.strideW)));
  inputs.push_back(b.int32Scalar(static_cast<int32_t>(c.strideH)));
  inputs.push_back(b.int32Scalar(c.activation));
  const bool dilated = c.dilationH != 1 || c.dilationW != 1;
  if (c.nchw || dilated || c.withLayoutOperand) inputs.push_back(b.boolScalar(c.nchw));
  if (dilated || c.withLayoutOperand) {
    inputs.push_back(b.int32Scalar(static_cast<int32_t>(c.dilationW)));
    inputs.push_back(b.int32Scalar(static_cast<int32_t>(c.dilationH)));
  }
  const uint32_t out = b.tensor(c.out.type, {}, c.out.scale, c.out.zeroPoint);  // shape inferred
  b.output(out);
  b.operation(nn::OperationType::CONV_2D, inputs, {out});
  // Declare the output's real dimensions (the prepared model needs none, the CPU infers them too).
  OpModel m;
  m.model = b.build();
  m.inputs.push_back(randomBytes(rng, nn::numberOfElements(inDims)));
  const auto effH = (c.filterH - 1) * c.dilationH + 1, effW = (c.filterW - 1) * c.dilationW + 1;
  int64_t pt = c.padTop, pb = c.padBottom, pl = c.padLeft, pr = c.padRight;
  if (c.implicitPadding) {
    pt = pb = pl = pr = 0;
    if (c.paddingScheme == 1) {
      auto same = [](int64_t size, int64_t stride, int64_t eff, int64_t& head, int64_t& tail) {
        const int64_t outSize = (size + stride - 1) / stride;
        const int64_t need = std::max<int64_t>(0, (outSize - 1) * stride + eff - size);
        head = need / 2;
        tail = need - head;
      };
      same(c.height, c.strideH, effH, pt, pb);
      same(c.width, c.strideW, effW, pl, pr);
    }
  }
  const int64_t oh = (int64_t{c.height} - effH + c.strideH + pt + pb) / c.strideH;
  const int64_t ow = (int64_t{c.width} - effW + c.strideW + pl + pr) / c.strideW;
  m.outputBytes.push_back(static_cast<size_t>(c.batches * std::max<int64_t>(oh, 0) * std::max<int64_t>(ow, 0) *
                                              c.outChannels));
  return m;
}

OpModel makeFcModel(const FcCase& c, std::mt19937& rng) {
  ModelBuilder b;
  const uint32_t in = b.input(c.in.type, c.inputDims, c.in.scale, c.in.zeroPoint);
  const uint32_t inputSize = c.inputDims.back();
  const uint32_t batch = static_cast<uint32_t>(nn::numberOfElements(c.inputDims) / inputSize);
  const auto w = randomBytes(rng, size_t{c.units} * inputSize);
  const uint32_t weights = b.constant(c.weights.type, {c.units, inputSize}, w.data(), w.size(), c.weights.scale,
                                      c.weights.zeroPoint);
  const auto bias = randomBias(rng, c.units, inputSize);
  const uint32_t biasOp = b.constant(OperandType::TENSOR_INT32, {c.units}, bias.data(), 4 * bias.size(),
                                     c.in.scale * c.weights.scale, 0);
  const uint32_t out = b.tensor(c.out.type, {batch, c.units}, c.out.scale, c.out.zeroPoint);
  b.output(out);
  b.operation(nn::OperationType::FULLY_CONNECTED, {in, weights, biasOp, b.int32Scalar(c.activation)}, {out});
  OpModel m;
  m.model = b.build();
  m.inputs.push_back(randomBytes(rng, nn::numberOfElements(c.inputDims)));
  m.outputBytes.push_back(size_t{batch} * c.units);
  return m;
}

std::string MatmulCase::describe() const {
  return fmt::format("matmul [{}, {}] x [{}, {}]^T lhs {}(s{} z{}) rhs {}(s{} z{}){}{}", m, k, n, k, typeName(lhs.type),
                     lhs.scale, lhs.zeroPoint, typeName(rhs.type), rhs.scale, rhs.zeroPoint,
                     rhsAtExecution ? " rhs at execution" : "", accumulatorOutput ? " -> accumulator" : " -> int32");
}

nn::OperationType weftOperationType(uint16_t code) {
  return static_cast<nn::OperationType>(uint32_t{kWeftPrefix} << nn::kExtensionTypeBits | code);
}
nn::OperationType weftMatmulType() { return weftOperationType(nn::weft_extension::kMatmulInt32); }
nn::OperandType weftAccumulatorType() {
  return static_cast<nn::OperandType>(uint32_t{kWeftPrefix} << nn::kExtensionTypeBits | 0);
}

OpModel makeMatmulModel(const MatmulCase& c, std::mt19937& rng) {
  ModelBuilder b;
  OpModel m;
  const uint32_t lhs = b.input(c.lhs.type, {c.m, c.k}, c.lhs.scale, c.lhs.zeroPoint);
  m.inputs.push_back(randomBytes(rng, size_t{c.m} * c.k));
  uint32_t rhs = 0;
  auto rhsBytes = randomBytes(rng, size_t{c.n} * c.k);
  if (c.rhsAtExecution) {
    rhs = b.input(c.rhs.type, {c.n, c.k}, c.rhs.scale, c.rhs.zeroPoint);
    m.inputs.push_back(std::move(rhsBytes));
  } else {
    rhs = b.constant(c.rhs.type, {c.n, c.k}, rhsBytes.data(), rhsBytes.size(), c.rhs.scale, c.rhs.zeroPoint);
  }
  uint32_t out = 0;
  if (c.accumulatorOutput) {
    out = b.tensor(weftAccumulatorType(), {c.m, c.n});
    const float scale = c.lhs.scale * c.rhs.scale;
    std::vector<uint8_t> params(sizeof(scale));
    std::memcpy(params.data(), &scale, sizeof(scale));
    b.operand(out).extraParams = params;
  } else {
    out = b.tensor(OperandType::TENSOR_INT32, {c.m, c.n});
  }
  b.output(out);
  b.operation(weftMatmulType(), {lhs, rhs}, {out});
  m.model = b.build();
  m.model.extensionNameToPrefix = {{"org.weft.accel", kWeftPrefix}};
  m.outputBytes.push_back(size_t{c.m} * c.n * 4);
  return m;
}

namespace {

// Scales such that in * w / out spans small and large multipliers (a few above 1).
void randomScales(std::mt19937& rng, float& in, float& w, float& out, uint32_t k) {
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  in = std::ldexp(0.5f + u(rng), -static_cast<int>(rng() % 8));
  w = std::ldexp(0.5f + u(rng), -static_cast<int>(rng() % 8));
  // Output scale: around the accumulator's spread, sometimes tiny (multiplier > 1).
  const float spread = in * w * std::sqrt(static_cast<float>(k)) * 64.0f;
  out = spread * std::ldexp(0.5f + u(rng), -static_cast<int>(rng() % 6)) / (rng() % 10 == 0 ? 4096.0f : 1.0f);
}

Quant quantOfType(std::mt19937& rng, OperandType t, float scale) { return Quant{t, scale, randomZeroPoint(rng, t)}; }

}  // namespace

MatmulCase randomMatmulCase(std::mt19937& rng, uint32_t maxRows, uint32_t maxSize) {
  auto pick = [&](uint32_t lo, uint32_t hi) { return std::uniform_int_distribution<uint32_t>(lo, hi)(rng); };
  auto type = [&] { return rng() % 2 ? OperandType::TENSOR_QUANT8_ASYMM_SIGNED : OperandType::TENSOR_QUANT8_ASYMM; };
  MatmulCase c;
  c.m = pick(1, maxRows);
  c.n = pick(1, maxSize);
  c.k = pick(1, maxSize);
  // Each input its own type, signedness and zero point: the array reads them independently.
  c.lhs = quantOfType(rng, type(), 0.25f);
  c.rhs = quantOfType(rng, type(), 0.5f);
  c.rhsAtExecution = rng() % 4 == 0;
  c.accumulatorOutput = rng() % 2 == 0;
  return c;
}

ConvCase randomConvCase(std::mt19937& rng, uint32_t maxSpatial, uint32_t maxChannels) {
  auto pick = [&](uint32_t lo, uint32_t hi) { return std::uniform_int_distribution<uint32_t>(lo, hi)(rng); };
  ConvCase c;
  c.batches = pick(1, 2);
  c.height = pick(1, maxSpatial);
  c.width = pick(1, maxSpatial);
  c.inChannels = pick(1, maxChannels);
  c.outChannels = pick(1, maxChannels);
  c.filterH = pick(1, std::min(5u, c.height + 2));
  c.filterW = pick(1, std::min(5u, c.width + 2));
  c.strideH = pick(1, 3);
  c.strideW = pick(1, 3);
  if (rng() % 5 == 0) {
    c.dilationH = pick(1, 3);
    c.dilationW = pick(1, 3);
  }
  c.activation = static_cast<int32_t>(pick(0, 3));
  c.nchw = rng() % 4 == 0;
  c.withLayoutOperand = rng() % 3 == 0;
  const uint32_t effH = (c.filterH - 1) * c.dilationH + 1, effW = (c.filterW - 1) * c.dilationW + 1;
  switch (pick(0, 2)) {
    case 0:
      c.implicitPadding = true;
      c.paddingScheme = 1;
      break;
    case 1:
      c.implicitPadding = true;
      c.paddingScheme = 2;
      break;
    default:
      c.padTop = static_cast<int32_t>(pick(0, effH));
      c.padBottom = static_cast<int32_t>(pick(0, effH));
      c.padLeft = static_cast<int32_t>(pick(0, effW));
      c.padRight = static_cast<int32_t>(pick(0, effW));
  }
  // VALID (and small explicit pads) must leave at least one output pixel.
  const int64_t padH = c.implicitPadding ? (c.paddingScheme == 1 ? effH : 0) : c.padTop + c.padBottom;
  const int64_t padW = c.implicitPadding ? (c.paddingScheme == 1 ? effW : 0) : c.padLeft + c.padRight;
  if (c.height + padH < effH || c.width + padW < effW) {
    c.implicitPadding = true;
    c.paddingScheme = 1;
  }
  const OperandType act = rng() % 3 == 0 ? OperandType::TENSOR_QUANT8_ASYMM_SIGNED : OperandType::TENSOR_QUANT8_ASYMM;
  OperandType filterType = act;
  if (rng() % 3 == 0) filterType = OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL;
  float si, sw, so;
  randomScales(rng, si, sw, so, c.filterH * c.filterW * c.inChannels);
  c.in = quantOfType(rng, act, si);
  c.out = quantOfType(rng, act, so);
  c.filter = quantOfType(rng, filterType, sw);
  if (filterType == OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL) {
    std::uniform_real_distribution<float> f(0.25f, 4.0f);
    for (uint32_t i = 0; i < c.outChannels; ++i) c.perChannelScales.push_back(sw * f(rng));
    c.filter.scale = 0.0f;
  }
  return c;
}

FcCase randomFcCase(std::mt19937& rng, uint32_t maxBatch, uint32_t maxSize) {
  auto pick = [&](uint32_t lo, uint32_t hi) { return std::uniform_int_distribution<uint32_t>(lo, hi)(rng); };
  FcCase c;
  const uint32_t batch = pick(1, maxBatch), inputSize = pick(1, maxSize);
  c.inputDims = rng() % 3 == 0 ? nn::Dimensions{batch, 1, 1, inputSize} : nn::Dimensions{batch, inputSize};
  c.units = pick(1, maxSize);
  c.activation = static_cast<int32_t>(pick(0, 3));
  const OperandType t = rng() % 3 == 0 ? OperandType::TENSOR_QUANT8_ASYMM_SIGNED : OperandType::TENSOR_QUANT8_ASYMM;
  float si, sw, so;
  randomScales(rng, si, sw, so, inputSize);
  c.in = quantOfType(rng, t, si);
  c.weights = quantOfType(rng, t, sw);
  c.out = quantOfType(rng, t, so);
  return c;
}

nn::Request makeRequest(const OpModel& m, std::vector<std::vector<uint8_t>>& outputs) {
  nn::Request r;
  for (const auto& in : m.inputs) {
    nn::RequestArgument a;
    a.lifetime = nn::RequestArgument::LifeTime::POINTER;
    a.location.pointer = in.data();
    a.location.length = static_cast<uint32_t>(in.size());
    r.inputs.push_back(a);
  }
  outputs.clear();
  for (size_t bytes : m.outputBytes) outputs.emplace_back(bytes, 0xEE);
  for (auto& out : outputs) {
    nn::RequestArgument a;
    a.lifetime = nn::RequestArgument::LifeTime::POINTER;
    a.location.pointer = out.data();
    a.location.length = static_cast<uint32_t>(out.size());
    r.outputs.push_back(a);
  }
  return r;
}

nn::Result<RunResult> runOnCpu(const OpModel& m) {
  RunResult result;
  const nn::Request r = makeRequest(m, result.outputs);
  auto shapes = nn::executeOnCpu(m.model, r);
  if (!shapes.ok()) return shapes.error();
  for (const auto& s : shapes.value()) {
    if (!s.isSufficient) return NN_ERROR(OUTPUT_INSUFFICIENT_SIZE) << "the test's output buffer is too small";
  }
  return result;
}

nn::Result<RunResult> runOnPrepared(const hal::IPreparedModel& prepared, const OpModel& m, nn::MeasureTiming measure,
                                    const hal::OptionalTimePoint& deadline) {
  RunResult result;
  const nn::Request r = makeRequest(m, result.outputs);
  auto e = prepared.execute(r, measure, deadline, {});
  if (!e.ok()) return e.error();
  for (const auto& s : e.value().outputShapes) {
    if (!s.isSufficient) return NN_ERROR(OUTPUT_INSUFFICIENT_SIZE) << "the test's output buffer is too small";
  }
  result.execution = std::move(e).value();
  return result;
}

nn::Result<hal::SharedPreparedModel> prepare(const hal::IDevice& device, const nn::Model& model) {
  return device.prepareModel(model, nn::ExecutionPreference::FAST_SINGLE_ANSWER, nn::Priority::MEDIUM, {}, std::nullopt);
}

hal::SharedDevice approxDevice(const std::string& config) {
  AcceleratorOptions o;
  o.backend = "approx";
  o.hwConfig = config;
  auto d = createAcceleratorDevice(o);
  if (!d.ok()) throw std::runtime_error(d.error().message);
  return d.value();
}

hal::SharedDevice deviceOn(std::unique_ptr<sim::IDeviceBackend> backend) {
  auto d = Device::create(std::move(backend));
  if (!d.ok()) throw std::runtime_error(d.error().message);
  return d.value();
}

int64_t firstMismatch(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b) {
  if (a.size() != b.size()) return 0;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i] != b[i]) return static_cast<int64_t>(i);
  }
  return -1;
}

void expectBitExactOnDevice(const hal::IDevice& device, const OpModel& m, const std::string& what) {
  auto cpu = runOnCpu(m);
  ASSERT_TRUE(cpu.ok()) << what << ": " << cpu.error().message;
  auto supported = device.getSupportedOperations(m.model);
  ASSERT_TRUE(supported.ok());
  ASSERT_TRUE(supported.value().at(0)) << what;
  auto prepared = prepare(device, m.model);
  ASSERT_TRUE(prepared.ok()) << what << ": " << prepared.error().message;
  auto dev = runOnPrepared(*prepared.value(), m);
  ASSERT_TRUE(dev.ok()) << what << ": " << dev.error().message;
  const int64_t at = firstMismatch(dev.value().outputs[0], cpu.value().outputs[0]);
  EXPECT_EQ(at, -1) << what << ": byte " << at << " is " << int(dev.value().outputs[0][at < 0 ? 0 : at])
                    << ", the reference says " << int(cpu.value().outputs[0][at < 0 ? 0 : at]);
}

void expectRefusedOnDevice(const hal::IDevice& device, const nn::Model& model, const std::string& reason) {
  auto supported = device.getSupportedOperations(model);
  ASSERT_TRUE(supported.ok());
  EXPECT_FALSE(supported.value().back());
  auto prepared = prepare(device, model);
  ASSERT_FALSE(prepared.ok());
  EXPECT_EQ(prepared.error().code, nn::ErrorStatus::BAD_DATA);
  EXPECT_NE(prepared.error().message.find(reason), std::string::npos) << prepared.error().message;
}

std::vector<uint8_t> randomHalves(std::mt19937& rng, size_t count, float range) {
  std::uniform_real_distribution<float> value(-range, range);
  std::vector<uint8_t> bytes(2 * count);
  for (size_t i = 0; i < count; ++i) {
    const uint16_t h = hw::fp::fp32ToFp16(hw::fp::bitsOf(value(rng)));
    bytes[2 * i] = static_cast<uint8_t>(h);
    bytes[2 * i + 1] = static_cast<uint8_t>(h >> 8);
  }
  return bytes;
}

OpModel makeFp16Chain(nn::OperandType type, std::mt19937& rng, bool nchw) {
  const bool relaxed = type == OperandType::TENSOR_FLOAT32;
  auto values = [&](size_t count, float range) {
    if (!relaxed) return randomHalves(rng, count, range);
    std::uniform_real_distribution<float> value(-range, range);
    std::vector<uint8_t> bytes(4 * count);
    for (size_t i = 0; i < count; ++i) {
      const float f = value(rng);
      std::memcpy(&bytes[4 * i], &f, 4);
    }
    return bytes;
  };
  ModelBuilder b;
  const uint32_t H = 7, W = 6, C0 = 5, C1 = 12, C2 = 9, units = 10;
  auto image = [&](uint32_t channels) {
    return nchw ? nn::Dimensions{1, channels, H, W} : nn::Dimensions{1, H, W, channels};
  };
  const uint32_t in = b.input(type, image(C0), 0, 0);
  auto conv = [&](uint32_t input, uint32_t cin, uint32_t cout, int32_t activation) {
    const auto f = values(size_t{cout} * 9 * cin, 0.5f);
    const auto bias = values(cout, 1.0f);
    const uint32_t out = b.tensor(type, image(cout));
    std::vector<uint32_t> inputs{input, b.constant(type, {cout, 3, 3, cin}, f.data(), f.size()),
                                 b.constant(type, {cout}, bias.data(), bias.size()), b.int32Scalar(1),
                                 b.int32Scalar(1), b.int32Scalar(1), b.int32Scalar(activation)};
    if (nchw) inputs.push_back(b.boolScalar(true));
    b.operation(nn::OperationType::CONV_2D, inputs, {out});
    return out;
  };
  const uint32_t x1 = conv(in, C0, C1, 1);
  const uint32_t x2 = conv(x1, C1, C2, 3);
  const auto w = values(size_t{units} * H * W * C2, 0.1f);
  const auto bias = values(units, 1.0f);
  const uint32_t out = b.tensor(type, {1, units});
  b.operation(nn::OperationType::FULLY_CONNECTED,
              {x2, b.constant(type, {units, H * W * C2}, w.data(), w.size()),
               b.constant(type, {units}, bias.data(), bias.size()), b.int32Scalar(0)},
              {out});
  b.output(out);
  OpModel m;
  m.model = b.build();
  m.model.relaxComputationFloat32toFloat16 = relaxed;
  m.inputs.push_back(values(size_t{H} * W * C0, 1.0f));
  m.outputBytes.push_back((relaxed ? 4 : 2) * size_t{units});
  return m;
}

}  // namespace weft::accel::test
