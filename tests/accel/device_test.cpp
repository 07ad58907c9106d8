// The device as the runtime sees it: the factory's validation and singleton, per-operation
// support answers, preparation of unsupported models, request validation, bursts, and
// multi-operation models whose intermediate tensors live in device memory (with halos, and
// FULLY_CONNECTED over a haloed or NCHW image).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "../../driver/accel/Device.h"
#include "../../driver/accel/ModelCompiler.h"
#include "AccelTestUtil.h"
#include "weft/accel/AcceleratorDevice.h"
#include "weft/hal/IBurst.h"

namespace weft::accel::test {
namespace {

using nn::OperandType;

TEST(Factory, RejectsAnUnknownBackendNamingTheAcceptedValues) {
  AcceleratorOptions o;
  o.backend = "fpga";
  o.hwConfig = "weft8";
  auto d = createAcceleratorDevice(o);
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.error().code, nn::ErrorStatus::BAD_DATA);
  EXPECT_NE(d.error().message.find("rtl, approx"), std::string::npos) << d.error().message;
}

TEST(Factory, RejectsAnUnknownConfigurationNamingTheAcceptedValues) {
  AcceleratorOptions o;
  o.backend = "approx";
  o.hwConfig = "weft99";
  auto d = createAcceleratorDevice(o);
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.error().code, nn::ErrorStatus::BAD_DATA);
  EXPECT_NE(d.error().message.find("weft16"), std::string::npos) << d.error().message;
  EXPECT_NE(d.error().message.find("weft8"), std::string::npos) << d.error().message;
}

TEST(Factory, TheDeviceIsAProcessSingleton) {
  auto a = approxDevice("weft8");
  auto b = approxDevice("weft8");
  EXPECT_EQ(a.get(), b.get());
  EXPECT_EQ(a->getName(), "weft-accel");
  EXPECT_EQ(a->getType(), nn::DeviceType::ACCELERATOR);
  AcceleratorOptions other;
  other.backend = "approx";
  other.hwConfig = "weft16";
  auto c = createAcceleratorDevice(other);
  ASSERT_FALSE(c.ok()) << "a second configuration in one process";
  EXPECT_NE(c.error().message.find("one device per process"), std::string::npos) << c.error().message;
  // Once every user is gone, another configuration can be brought up.
  a.reset();
  b.reset();
  auto d = createAcceleratorDevice(other);
  ASSERT_TRUE(d.ok()) << d.error().message;
  EXPECT_NE(d.value()->getVersionString().find("weft16"), std::string::npos);
}

// One model, many operations, each supported or not for one reason.
TEST(SupportedOperations, AnswersPerOperation) {
  ModelBuilder b;
  const float s = 0.5f;
  const uint32_t in = b.input(OperandType::TENSOR_QUANT8_ASYMM, {1, 4, 4, 3}, s, 10);
  std::vector<uint8_t> w(2 * 3 * 3 * 3, 7);
  std::vector<int32_t> bias(2, 1);
  const uint32_t filter = b.constant(OperandType::TENSOR_QUANT8_ASYMM, {2, 3, 3, 3}, w.data(), w.size(), s, 3);
  const uint32_t biasOp = b.constant(OperandType::TENSOR_INT32, {2}, bias.data(), 8, s * s, 0);
  auto conv = [&](uint32_t input, uint32_t filterOp, uint32_t stride, OperandType outType, int32_t act) {
    const uint32_t out = b.tensor(outType, {1, 4, 4, 2}, 1.0f, 0);
    b.operation(nn::OperationType::CONV_2D, {input, filterOp, biasOp, b.int32Scalar(1), stride, stride, b.int32Scalar(act)},
                {out});
    return out;
  };
  const uint32_t one = b.int32Scalar(1);
  const uint32_t c0 = conv(in, filter, one, OperandType::TENSOR_QUANT8_ASYMM, 0);  // 0: supported
  // 1: a stride that is a model input (not constant)
  const uint32_t strideInput = b.input(OperandType::INT32, {}, 0, 0);
  conv(in, filter, strideInput, OperandType::TENSOR_QUANT8_ASYMM, 0);
  // 2: weights that are a model input: supported (repacked on the device at execution)
  const uint32_t wInput = b.input(OperandType::TENSOR_QUANT8_ASYMM, {2, 3, 3, 3}, s, 3);
  conv(in, wInput, one, OperandType::TENSOR_QUANT8_ASYMM, 0);
  // 3: an activation code outside NONE..RELU6
  conv(in, filter, one, OperandType::TENSOR_QUANT8_ASYMM, 7);
  // 4: float32
  const uint32_t fin = b.input(OperandType::TENSOR_FLOAT32, {1, 4, 4, 3}, 0, 0);
  std::vector<float> fw(2 * 27, 0.5f), fb(2, 0.f);
  const uint32_t ffilter = b.constant(OperandType::TENSOR_FLOAT32, {2, 3, 3, 3}, fw.data(), 4 * fw.size());
  const uint32_t fbias = b.constant(OperandType::TENSOR_FLOAT32, {2}, fb.data(), 8);
  const uint32_t fout = b.tensor(OperandType::TENSOR_FLOAT32, {1, 4, 4, 2});
  b.operation(nn::OperationType::CONV_2D, {fin, ffilter, fbias, b.int32Scalar(1), one, one, b.int32Scalar(0)}, {fout});
  // 5: ADD, supported (the vector unit)
  const uint32_t sum = b.tensor(OperandType::TENSOR_QUANT8_ASYMM, {1, 4, 4, 2}, 1.0f, 0);
  b.operation(nn::OperationType::ADD, {c0, c0, b.int32Scalar(0)}, {sum});
  // 6: FULLY_CONNECTED, supported
  std::vector<uint8_t> fcw(5 * 32, 1);
  std::vector<int32_t> fcb(5, 0);
  const uint32_t fcW = b.constant(OperandType::TENSOR_QUANT8_ASYMM, {5, 32}, fcw.data(), fcw.size(), 0.25f, 0);
  const uint32_t fcB = b.constant(OperandType::TENSOR_INT32, {5}, fcb.data(), 20, 0.25f, 0);
  const uint32_t fcOut = b.tensor(OperandType::TENSOR_QUANT8_ASYMM, {1, 5}, 2.0f, 0);
  b.operation(nn::OperationType::FULLY_CONNECTED, {c0, fcW, fcB, b.int32Scalar(0)}, {fcOut});
  // 7: FULLY_CONNECTED whose bias scale is not input x weights scale
  const uint32_t badB = b.constant(OperandType::TENSOR_INT32, {5}, fcb.data(), 20, 0.3f, 0);
  const uint32_t fcOut2 = b.tensor(OperandType::TENSOR_QUANT8_ASYMM, {1, 5}, 2.0f, 0);
  b.operation(nn::OperationType::FULLY_CONNECTED, {c0, fcW, badB, b.int32Scalar(0)}, {fcOut2});
  // 8: CONV_2D with an input of unknown dimensions
  const uint32_t unknown = b.input(OperandType::TENSOR_QUANT8_ASYMM, {1, 0, 4, 3}, s, 10);
  conv(unknown, filter, one, OperandType::TENSOR_QUANT8_ASYMM, 0);
  for (uint32_t o : {c0, sum, fcOut, fcOut2, fout}) b.output(o);

  auto device = approxDevice("weft8");
  auto supported = device->getSupportedOperations(b.build());
  ASSERT_TRUE(supported.ok()) << supported.error().message;
  const std::vector<bool> expected{true, false, true, false, false, true, true, false, false};
  EXPECT_EQ(supported.value(), expected);
  std::map<uint32_t, std::string> reasons;
  weft::accel::supportedOperations(b.build(), hw::HwConfig::load("weft8"), &reasons);
  // Every refused operation says why, in words a user can act on.
  const std::map<uint32_t, std::string> why{{1, "stride width"},   {3, "fused activation 7"},
                                            {4, "TENSOR_FLOAT32"}, {7, "bias scale"},
                                            {8, "fully specified"}};
  ASSERT_EQ(reasons.size(), why.size());
  for (const auto& [i, words] : why) EXPECT_NE(reasons.at(i).find(words), std::string::npos) << reasons.at(i);
}

TEST(SupportedOperations, AnImageReadAsNhwcAndNchwKeepsOnlyTheFirstReader) {
  ModelBuilder b;
  const uint32_t in = b.input(OperandType::TENSOR_QUANT8_ASYMM, {1, 4, 4, 4}, 0.5f, 0);
  std::vector<uint8_t> w(4 * 4, 1);
  std::vector<int32_t> bias(4, 0);
  const uint32_t filter = b.constant(OperandType::TENSOR_QUANT8_ASYMM, {4, 1, 1, 4}, w.data(), w.size(), 0.5f, 0);
  const uint32_t biasOp = b.constant(OperandType::TENSOR_INT32, {4}, bias.data(), 16, 0.25f, 0);
  const uint32_t one = b.int32Scalar(1);
  for (bool nchw : {false, true}) {
    const uint32_t out = b.tensor(OperandType::TENSOR_QUANT8_ASYMM, {1, 4, 4, 4}, 1.0f, 0);
    b.operation(nn::OperationType::CONV_2D, {in, filter, biasOp, b.int32Scalar(2), one, one, b.int32Scalar(0),
                                             b.boolScalar(nchw)}, {out});
    b.output(out);
  }
  auto supported = approxDevice("weft8")->getSupportedOperations(b.build());
  ASSERT_TRUE(supported.ok());
  EXPECT_EQ(supported.value(), (std::vector<bool>{true, false}));
}

TEST(PrepareModel, RefusesAModelWithAnUnsupportedOperation) {
  ModelBuilder b;
  // A float ADD: the accelerator computes quantized integers only.
  const uint32_t a = b.input(OperandType::TENSOR_FLOAT32, {4}, 0, 0);
  const uint32_t out = b.tensor(OperandType::TENSOR_FLOAT32, {4}, 0, 0);
  b.operation(nn::OperationType::ADD, {a, a, b.int32Scalar(0)}, {out});
  b.output(out);
  auto p = prepare(*approxDevice("weft8"), b.build());
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().code, nn::ErrorStatus::BAD_DATA);
  EXPECT_NE(p.error().message.find("ADD"), std::string::npos) << p.error().message;
}

FcCase smallFc() {
  FcCase c;
  c.inputDims = {3, 10};
  c.units = 6;
  c.in = {OperandType::TENSOR_QUANT8_ASYMM, 0.5f, 128};
  c.weights = {OperandType::TENSOR_QUANT8_ASYMM, 0.25f, 120};
  c.out = {OperandType::TENSOR_QUANT8_ASYMM, 16.0f, 100};
  return c;
}

TEST(Execute, ValidatesTheRequestAndReportsInsufficientOutputs) {
  std::mt19937 rng(1);
  OpModel m = makeFcModel(smallFc(), rng);
  auto prepared = prepare(*approxDevice("weft8"), m.model);
  ASSERT_TRUE(prepared.ok()) << prepared.error().message;
  // Too few input bytes.
  OpModel shortInput = m;
  shortInput.inputs[0].resize(5);
  auto r = runOnPrepared(*prepared.value(), shortInput);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, nn::ErrorStatus::BAD_DATA);
  // Too small an output: the call succeeds with the shape marked insufficient.
  std::vector<uint8_t> small(4);
  nn::Request shortRequest;
  nn::RequestArgument in, out;
  in.location.pointer = m.inputs[0].data();
  in.location.length = static_cast<uint32_t>(m.inputs[0].size());
  out.location.pointer = small.data();
  out.location.length = 4;
  shortRequest.inputs = {in};
  shortRequest.outputs = {out};
  auto s = prepared.value()->execute(shortRequest, nn::MeasureTiming::NO, {}, {});
  ASSERT_TRUE(s.ok()) << s.error().message;
  ASSERT_EQ(s.value().outputShapes.size(), 1u);
  EXPECT_FALSE(s.value().outputShapes[0].isSufficient);
  EXPECT_EQ(s.value().outputShapes[0].dimensions, (nn::Dimensions{3, 6}));
  // A wrong number of arguments.
  nn::Request empty;
  auto e = prepared.value()->execute(empty, nn::MeasureTiming::NO, {}, {});
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.error().code, nn::ErrorStatus::BAD_DATA);
  // And the model still runs.
  auto cpu = runOnCpu(m);
  auto dev = runOnPrepared(*prepared.value(), m);
  ASSERT_TRUE(cpu.ok() && dev.ok());
  EXPECT_EQ(firstMismatch(dev.value().outputs[0], cpu.value().outputs[0]), -1);
}

TEST(Execute, ABurstRunsThePreparedModel) {
  std::mt19937 rng(2);
  OpModel m = makeFcModel(smallFc(), rng);
  auto prepared = prepare(*approxDevice("weft8"), m.model);
  ASSERT_TRUE(prepared.ok()) << prepared.error().message;
  auto burst = prepared.value()->configureExecutionBurst();
  ASSERT_TRUE(burst.ok()) << burst.error().message;
  auto cpu = runOnCpu(m);
  ASSERT_TRUE(cpu.ok());
  for (int i = 0; i < 3; ++i) {
    std::vector<uint8_t> out(m.outputBytes[0]);
    nn::Request r;
    nn::RequestArgument in;
    in.location.pointer = m.inputs[0].data();
    in.location.length = static_cast<uint32_t>(m.inputs[0].size());
    nn::RequestArgument o;
    o.location.pointer = out.data();
    o.location.length = static_cast<uint32_t>(out.size());
    r.inputs = {in};
    r.outputs = {o};
    auto e = burst.value()->execute(r, nn::MeasureTiming::YES, {}, {});
    ASSERT_TRUE(e.ok()) << e.error().message;
    EXPECT_EQ(out, cpu.value().outputs[0]);
  }
}

// conv A (SAME) -> conv B (explicit pads 2) and -> FULLY_CONNECTED: A's output is kept with a
// halo for B, so the FC reads it as a whole-image convolution; optionally everything NCHW.
OpModel chain(std::mt19937& rng, bool nchw) {
  ModelBuilder b;
  const nn::Dimensions inDims = nchw ? nn::Dimensions{2, 5, 7, 6} : nn::Dimensions{2, 7, 6, 5};
  const uint32_t in = b.input(OperandType::TENSOR_QUANT8_ASYMM, inDims, 0.5f, 100);
  auto bytes = [&](size_t n) {
    std::vector<uint8_t> v(n);
    for (auto& x : v) x = static_cast<uint8_t>(rng());
    return v;
  };
  auto biasOf = [&](uint32_t n) {
    std::vector<int32_t> v(n);
    for (auto& x : v) x = static_cast<int32_t>(rng() % 2001) - 1000;
    return v;
  };
  const auto wa = bytes(9 * 3 * 3 * 5);
  const auto ba = biasOf(9);
  const uint32_t fa = b.constant(OperandType::TENSOR_QUANT8_ASYMM, {9, 3, 3, 5}, wa.data(), wa.size(), 0.2f, 128);
  const uint32_t biasA = b.constant(OperandType::TENSOR_INT32, {9}, ba.data(), 36, 0.5f * 0.2f, 0);
  const nn::Dimensions midDims = nchw ? nn::Dimensions{2, 9, 7, 6} : nn::Dimensions{2, 7, 6, 9};
  const uint32_t mid = b.tensor(OperandType::TENSOR_QUANT8_ASYMM, midDims, 4.0f, 30);
  std::vector<uint32_t> convA{in, fa, biasA, b.int32Scalar(1), b.int32Scalar(1), b.int32Scalar(1), b.int32Scalar(3)};
  if (nchw) convA.push_back(b.boolScalar(true));
  b.operation(nn::OperationType::CONV_2D, convA, {mid});
  const auto wb = bytes(4 * 2 * 3 * 9);
  const auto bb = biasOf(4);
  const uint32_t fb = b.constant(OperandType::TENSOR_QUANT8_ASYMM, {4, 2, 3, 9}, wb.data(), wb.size(), 0.1f, 127);
  const uint32_t biasB = b.constant(OperandType::TENSOR_INT32, {4}, bb.data(), 16, 4.0f * 0.1f, 0);
  const uint32_t outB = b.tensor(OperandType::TENSOR_QUANT8_ASYMM, {}, 8.0f, 5);
  std::vector<uint32_t> convB{mid, fb, biasB, b.int32Scalar(2), b.int32Scalar(1), b.int32Scalar(2), b.int32Scalar(0),
                              b.int32Scalar(2), b.int32Scalar(1), b.int32Scalar(0)};
  if (nchw) convB.push_back(b.boolScalar(true));
  b.operation(nn::OperationType::CONV_2D, convB, {outB});
  const auto wc = bytes(3 * 7 * 6 * 9);
  const auto bc = biasOf(3);
  const uint32_t fc = b.constant(OperandType::TENSOR_QUANT8_ASYMM, {3, 378}, wc.data(), wc.size(), 0.05f, 131);
  const uint32_t biasC = b.constant(OperandType::TENSOR_INT32, {3}, bc.data(), 12, 4.0f * 0.05f, 0);
  const uint32_t outC = b.tensor(OperandType::TENSOR_QUANT8_ASYMM, {2, 3}, 16.0f, 120);
  b.operation(nn::OperationType::FULLY_CONNECTED, {mid, fc, biasC, b.int32Scalar(1)}, {outC});
  b.output(outB);
  b.output(outC);
  OpModel m;
  m.model = b.build();
  m.inputs.push_back(bytes(nn::numberOfElements(inDims)));
  // conv B (pads l2 r1 t2 b0, strides w2 h1, filter 2x3): H (7+2+0-2)/1+1 = 8, W (6+2+1-3)/2+1 = 4
  m.outputBytes = {2 * 8 * 4 * 4, 2 * 3};
  return m;
}

TEST(Execute, ChainedLayersThroughHaloedAndNchwTensorsMatchTheReference) {
  for (bool nchw : {false, true}) {
    std::mt19937 rng(nchw ? 11 : 10);
    const OpModel m = chain(rng, nchw);
    auto cpu = runOnCpu(m);
    ASSERT_TRUE(cpu.ok()) << cpu.error().message;
    auto device = approxDevice("weft8");
    auto supported = device->getSupportedOperations(m.model);
    ASSERT_TRUE(supported.ok());
    EXPECT_EQ(supported.value(), (std::vector<bool>{true, true, true})) << (nchw ? "NCHW" : "NHWC");
    auto prepared = prepare(*device, m.model);
    ASSERT_TRUE(prepared.ok()) << prepared.error().message;
    auto dev = runOnPrepared(*prepared.value(), m);
    ASSERT_TRUE(dev.ok()) << dev.error().message;
    EXPECT_EQ(firstMismatch(dev.value().outputs[0], cpu.value().outputs[0]), -1) << (nchw ? "NCHW" : "NHWC");
    EXPECT_EQ(firstMismatch(dev.value().outputs[1], cpu.value().outputs[1]), -1) << (nchw ? "NCHW" : "NHWC");
    EXPECT_EQ(dev.value().execution->profile.operations.size(), 3u);
  }
}

// The dimensions of an image [N, C, H, W] in the layout a test builds its model in.
nn::Dimensions imageDims(bool nchw, uint32_t n, uint32_t c, uint32_t h, uint32_t w) {
  return nchw ? nn::Dimensions{n, c, h, w} : nn::Dimensions{n, h, w, c};
}

std::vector<uint8_t> randomBytes(std::mt19937& rng, size_t n) {
  std::vector<uint8_t> v(n);
  for (auto& x : v) x = static_cast<uint8_t>(rng());
  return v;
}

// The model `b` built, with random input bytes for its one input of `inDims`.
OpModel builtWithRandomInput(ModelBuilder& b, const nn::Dimensions& inDims, size_t outputBytes, std::mt19937& rng) {
  OpModel m;
  m.model = b.build();
  m.inputs.push_back(randomBytes(rng, nn::numberOfElements(inDims)));
  m.outputBytes = {outputBytes};
  return m;
}

// `m` claimed whole by the accelerator (weft8, approx), run there, and its outputs the CPU
// reference's; the execution, for what a test checks besides.
std::optional<hal::ExecutionResult> expectWholeAndExact(const OpModel& m, const char* what) {
  auto cpu = runOnCpu(m);
  EXPECT_TRUE(cpu.ok()) << what << ": " << cpu.error().message;
  if (!cpu.ok()) return std::nullopt;
  std::map<uint32_t, std::string> reasons;
  weft::accel::supportedOperations(m.model, hw::HwConfig::load("weft8"), &reasons);
  EXPECT_TRUE(reasons.empty()) << what << ": " << reasons.begin()->second;
  auto prepared = prepare(*approxDevice("weft8"), m.model);
  EXPECT_TRUE(prepared.ok()) << what << ": " << prepared.error().message;
  if (!prepared.ok()) return std::nullopt;
  auto dev = runOnPrepared(*prepared.value(), m);
  EXPECT_TRUE(dev.ok()) << what << ": " << dev.error().message;
  if (!dev.ok()) return std::nullopt;
  for (size_t i = 0; i < cpu.value().outputs.size(); ++i) {
    EXPECT_EQ(firstMismatch(dev.value().outputs[i], cpu.value().outputs[i]), -1) << what << ": output " << i;
  }
  return dev.value().execution;
}

// Two 1x1 convolutions -> CONCATENATION of their channels (one input requantized) -> MUL by a
// per-channel scale (rank 3, as an ONNX batch norm's) -> ADD of a per-channel shift (rank 4) ->
// PAD of height and width -> a 3x3 convolution: in NHWC, and in NCHW as an ONNX model has it
// (GoogLeNet's and DenseNet's concatenations, DenseNet's pre-activation batch norms, Inception's
// pads). Every operation on the accelerator in both, its outputs the reference's.
OpModel channelConcatChain(std::mt19937& rng, bool nchw) {
  ModelBuilder b;
  const auto dimsOf = [nchw](uint32_t n, uint32_t c, uint32_t h, uint32_t w) { return imageDims(nchw, n, c, h, w); };
  const auto bytes = [&](size_t n) { return randomBytes(rng, n); };
  const auto q8 = OperandType::TENSOR_QUANT8_ASYMM;
  const nn::Dimensions inDims = dimsOf(2, 4, 6, 5);
  const uint32_t in = b.input(q8, inDims, 0.5f, 100);
  const auto conv1x1 = [&](uint32_t channels, float outScale, int32_t outZero) {
    const auto w = bytes(size_t{channels} * 4);
    std::vector<int32_t> bias(channels);
    for (auto& x : bias) x = static_cast<int32_t>(rng() % 401) - 200;
    const uint32_t f = b.constant(q8, {channels, 1, 1, 4}, w.data(), w.size(), 0.05f, 128);
    const uint32_t bo = b.constant(OperandType::TENSOR_INT32, {channels}, bias.data(), 4 * bias.size(), 0.025f, 0);
    const uint32_t out = b.tensor(q8, dimsOf(2, channels, 6, 5), outScale, outZero);
    std::vector<uint32_t> args{in, f, bo, b.int32Scalar(0), b.int32Scalar(0), b.int32Scalar(0), b.int32Scalar(0),
                               b.int32Scalar(1), b.int32Scalar(1), b.int32Scalar(1)};
    if (nchw) args.push_back(b.boolScalar(true));
    b.operation(nn::OperationType::CONV_2D, args, {out});
    return out;
  };
  const uint32_t a = conv1x1(3, 0.25f, 120), c = conv1x1(5, 0.3f, 110);
  const uint32_t cat = b.tensor(q8, dimsOf(2, 8, 6, 5), 0.25f, 120);
  b.operation(nn::OperationType::CONCATENATION, {a, c, b.int32Scalar(nchw ? 1 : 3)}, {cat});
  const auto scale = bytes(8), shift = bytes(8);
  const uint32_t s = b.constant(q8, nchw ? nn::Dimensions{8, 1, 1} : nn::Dimensions{8}, scale.data(), 8, 0.01f, 0);
  const uint32_t scaled = b.tensor(q8, dimsOf(2, 8, 6, 5), 0.5f, 10);
  b.operation(nn::OperationType::MUL, {cat, s, b.int32Scalar(0)}, {scaled});
  const uint32_t t = b.constant(q8, dimsOf(1, 8, 1, 1), shift.data(), 8, 0.1f, 128);
  const uint32_t shifted = b.tensor(q8, dimsOf(2, 8, 6, 5), 0.5f, 60);
  b.operation(nn::OperationType::ADD, {scaled, t, b.int32Scalar(1)}, {shifted});
  const std::vector<int32_t> pads = nchw ? std::vector<int32_t>{0, 0, 0, 0, 1, 2, 0, 1}
                                         : std::vector<int32_t>{0, 0, 1, 2, 0, 1, 0, 0};
  const uint32_t padding = b.constant(OperandType::TENSOR_INT32, {4, 2}, pads.data(), 4 * pads.size());
  const uint32_t padded = b.tensor(q8, dimsOf(2, 8, 9, 6), 0.5f, 60);
  b.operation(nn::OperationType::PAD, {shifted, padding}, {padded});
  const auto w = bytes(6 * 3 * 3 * 8);
  std::vector<int32_t> bias(6, 0);
  const uint32_t f = b.constant(q8, {6, 3, 3, 8}, w.data(), w.size(), 0.02f, 128);
  const uint32_t bo = b.constant(OperandType::TENSOR_INT32, {6}, bias.data(), 24, 0.01f, 0);
  const uint32_t out = b.tensor(q8, dimsOf(2, 6, 7, 4), 2.0f, 128);
  std::vector<uint32_t> args{padded, f, bo, b.int32Scalar(2), b.int32Scalar(1), b.int32Scalar(1), b.int32Scalar(0)};
  if (nchw) args.push_back(b.boolScalar(true));
  b.operation(nn::OperationType::CONV_2D, args, {out});
  b.output(out);
  return builtWithRandomInput(b, inDims, 2 * 6 * 7 * 4, rng);
}

TEST(Execute, ChannelConcatenationPadAndBroadcastRunOnNchwTensorsToo) {
  for (bool nchw : {false, true}) {
    std::mt19937 rng(21);
    const auto execution = expectWholeAndExact(channelConcatChain(rng, nchw), nchw ? "NCHW" : "NHWC");
    ASSERT_TRUE(execution.has_value());
    EXPECT_EQ(execution->profile.operations.size(), 7u);
  }
}

// A 1x1 convolution -> CHANNEL_SHUFFLE of its channels in 3 groups -> SLICE of 4 of them -> a
// 1x1 convolution -> TRANSPOSE to [N, H, W, C]: in NHWC, and in NCHW, where the strided copies
// read and write the convolutions' NCHW tensors as the NHWC images they are kept as (ShuffleNet's
// split and shuffle, ConvNeXt's permutes). Every operation on the accelerator, the reference's
// outputs.
OpModel shuffleSliceTranspose(std::mt19937& rng, bool nchw) {
  ModelBuilder b;
  const auto dimsOf = [nchw](uint32_t n, uint32_t c, uint32_t h, uint32_t w) { return imageDims(nchw, n, c, h, w); };
  const auto bytes = [&](size_t n) { return randomBytes(rng, n); };
  const auto q8 = OperandType::TENSOR_QUANT8_ASYMM;
  const nn::Dimensions inDims = dimsOf(2, 5, 5, 4);
  const uint32_t in = b.input(q8, inDims, 0.5f, 100);
  const auto conv1x1 = [&](uint32_t x, float inScale, uint32_t from, uint32_t to) {
    const auto w = bytes(size_t{from} * to);
    std::vector<int32_t> bias(to, 0);
    const uint32_t f = b.constant(q8, {to, 1, 1, from}, w.data(), w.size(), 0.05f, 128);
    const uint32_t bo = b.constant(OperandType::TENSOR_INT32, {to}, bias.data(), 4 * bias.size(), inScale * 0.05f, 0);
    const uint32_t out = b.tensor(q8, dimsOf(2, to, 5, 4), 0.25f, 120);
    std::vector<uint32_t> args{x, f, bo, b.int32Scalar(0), b.int32Scalar(0), b.int32Scalar(0), b.int32Scalar(0),
                               b.int32Scalar(1), b.int32Scalar(1), b.int32Scalar(0)};
    if (nchw) args.push_back(b.boolScalar(true));
    b.operation(nn::OperationType::CONV_2D, args, {out});
    return out;
  };
  const uint32_t a = conv1x1(in, 0.5f, 5, 6);
  const uint32_t shuffled = b.tensor(q8, dimsOf(2, 6, 5, 4), 0.25f, 120);
  b.operation(nn::OperationType::CHANNEL_SHUFFLE, {a, b.int32Scalar(3), b.int32Scalar(nchw ? 1 : -1)}, {shuffled});
  const std::vector<int32_t> begin = nchw ? std::vector<int32_t>{0, 1, 0, 0} : std::vector<int32_t>{0, 0, 0, 1};
  const std::vector<int32_t> size = nchw ? std::vector<int32_t>{2, 4, 5, 4} : std::vector<int32_t>{2, 5, 4, 4};
  const uint32_t sliced = b.tensor(q8, dimsOf(2, 4, 5, 4), 0.25f, 120);
  b.operation(nn::OperationType::SLICE,
              {shuffled, b.constant(OperandType::TENSOR_INT32, {4}, begin.data(), 16),
               b.constant(OperandType::TENSOR_INT32, {4}, size.data(), 16)},
              {sliced});
  const uint32_t c = conv1x1(sliced, 0.25f, 4, 3);
  const std::vector<int32_t> perm = nchw ? std::vector<int32_t>{0, 2, 3, 1} : std::vector<int32_t>{0, 3, 1, 2};
  const nn::Dimensions outDims = nchw ? nn::Dimensions{2, 5, 4, 3} : nn::Dimensions{2, 3, 5, 4};
  const uint32_t out = b.tensor(q8, outDims, 0.25f, 120);
  b.operation(nn::OperationType::TRANSPOSE, {c, b.constant(OperandType::TENSOR_INT32, {4}, perm.data(), 16)}, {out});
  b.output(out);
  return builtWithRandomInput(b, inDims, 2 * 3 * 5 * 4, rng);
}

TEST(Execute, ChannelShuffleSliceAndTransposeReadAndWriteNchwImages) {
  for (bool nchw : {false, true}) {
    std::mt19937 rng(23);
    const auto execution = expectWholeAndExact(shuffleSliceTranspose(rng, nchw), nchw ? "NCHW" : "NHWC");
    ASSERT_TRUE(execution.has_value());
    EXPECT_EQ(execution->profile.operations.size(), 5u);
  }
}

// A 1x1 convolution reads a RESHAPE's output: [2, 60] -> [2, 3, 5, 4]. In NCHW (MaxViT's grid
// departition before the next block's convolutions) the RESHAPE writes its dense input into the
// NHWC image the convolution reads: a strided copy, on the accelerator. NHWC for comparison.
// `padded`: a 3x3 convolution with padding 1 instead (a 1-D convolution's [N, C, 1, W] input, as
// the ONNX importer writes it), so the image is kept with a halo, and a second RESHAPE reads the
// image back out as dense bytes, a second output.
OpModel reshapeIntoImage(std::mt19937& rng, bool nchw, bool padded = false) {
  ModelBuilder b;
  const auto q8 = OperandType::TENSOR_QUANT8_ASYMM;
  const nn::Dimensions inDims{2, 60};
  const uint32_t in = b.input(q8, inDims, 0.5f, 100);
  const nn::Dimensions imageShape = imageDims(nchw, 2, 3, 5, 4);
  const std::vector<int32_t> shape(imageShape.begin(), imageShape.end());
  const uint32_t image = b.tensor(q8, imageShape, 0.5f, 100);
  b.operation(nn::OperationType::RESHAPE, {in, b.constant(OperandType::TENSOR_INT32, {4}, shape.data(), 16)}, {image});
  const uint32_t k = padded ? 3 : 1, pad = padded ? 1 : 0;
  const auto w = randomBytes(rng, 6 * k * k * 3);
  const std::vector<int32_t> bias(6, 0);
  const uint32_t f = b.constant(q8, {6, k, k, 3}, w.data(), w.size(), 0.05f, 128);
  const uint32_t bo = b.constant(OperandType::TENSOR_INT32, {6}, bias.data(), 24, 0.025f, 0);
  const uint32_t out = b.tensor(q8, imageDims(nchw, 2, 6, 5, 4), 0.25f, 120);
  const auto p = static_cast<int32_t>(pad);
  b.operation(nn::OperationType::CONV_2D,
              {image, f, bo, b.int32Scalar(p), b.int32Scalar(p), b.int32Scalar(p), b.int32Scalar(p), b.int32Scalar(1),
               b.int32Scalar(1), b.int32Scalar(0), b.boolScalar(nchw)},
              {out});
  b.output(out);
  if (padded) {
    const std::vector<int32_t> flat{2, 60};
    const uint32_t back = b.tensor(q8, inDims, 0.5f, 100);
    b.operation(nn::OperationType::RESHAPE, {image, b.constant(OperandType::TENSOR_INT32, {2}, flat.data(), 8)}, {back});
    b.output(back);
  }
  OpModel m = builtWithRandomInput(b, inDims, 2 * 6 * 5 * 4, rng);
  if (padded) m.outputBytes.push_back(2 * 60);
  return m;
}

TEST(Execute, AReshapeWritesTheNchwImageAConvolutionReads) {
  for (bool padded : {false, true}) {
    for (bool nchw : {false, true}) {
      std::mt19937 rng(31);
      const std::string what = fmt::format("{} padded {}", nchw ? "NCHW" : "NHWC", padded);
      const auto execution = expectWholeAndExact(reshapeIntoImage(rng, nchw, padded), what.c_str());
      ASSERT_TRUE(execution.has_value());
      EXPECT_EQ(execution->profile.operations.size(), padded ? 3u : 2u);
    }
  }
}

// RESIZE_NEAREST_NEIGHBOR after a 1x1 convolution: a strided copy a phase of its sampling, every
// output pixel the one the reference kernel samples. Whole upscales (U-Net's and YOLO's
// upsampling: 4 and 6 boxes), a whole downscale (1), a ratio that repeats every 7 (5 -> 7: 49),
// align_corners and half-pixel centres, in NHWC and NCHW (where its input and output are images
// the convolution's layout keeps). The one resize it refuses: sizes whose sampling repeats only
// after more than 64 boxes.
struct ResizeCase {
  uint32_t inH, inW, outH, outW;
  bool alignCorners = false, halfPixel = false;
};

// A 1x1 convolution of `type` (unsigned, or signed to reach negative bytes) and a resize `op` of
// its output.
OpModel resizeAfterConvolution(std::mt19937& rng, const ResizeCase& c, bool nchw, nn::OperationType op,
                               OperandType type = OperandType::TENSOR_QUANT8_ASYMM) {
  ModelBuilder b;
  const bool isSigned = type == OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
  const int32_t zp = isSigned ? -8 : 120, inZp = isSigned ? -28 : 100;
  const nn::Dimensions inDims = imageDims(nchw, 2, 3, c.inH, c.inW);
  const uint32_t in = b.input(type, inDims, 0.5f, inZp);
  const auto w = randomBytes(rng, 5 * 3);
  const std::vector<int32_t> bias(5, 0);
  const uint32_t conv = b.tensor(type, imageDims(nchw, 2, 5, c.inH, c.inW), 0.25f, zp);
  b.operation(nn::OperationType::CONV_2D,
              {in, b.constant(type, {5, 1, 1, 3}, w.data(), w.size(), 0.05f, isSigned ? 0 : 128),
               b.constant(OperandType::TENSOR_INT32, {5}, bias.data(), 20, 0.025f, 0), b.int32Scalar(0),
               b.int32Scalar(0), b.int32Scalar(0), b.int32Scalar(0), b.int32Scalar(1), b.int32Scalar(1),
               b.int32Scalar(0), b.boolScalar(nchw)},
              {conv});
  const uint32_t out = b.tensor(type, imageDims(nchw, 2, 5, c.outH, c.outW), 0.25f, zp);
  b.operation(op,
              {conv, b.int32Scalar(static_cast<int32_t>(c.outW)), b.int32Scalar(static_cast<int32_t>(c.outH)),
               b.boolScalar(nchw), b.boolScalar(c.alignCorners), b.boolScalar(c.halfPixel)},
              {out});
  b.output(out);
  return builtWithRandomInput(b, inDims, size_t{2} * 5 * c.outH * c.outW, rng);
}

OpModel nearestResize(std::mt19937& rng, const ResizeCase& c, bool nchw) {
  return resizeAfterConvolution(rng, c, nchw, nn::OperationType::RESIZE_NEAREST_NEIGHBOR);
}

TEST(Execute, NearestResizeIsAStridedCopyAPhaseOfItsSampling) {
  const ResizeCase cases[] = {{4, 5, 8, 10},       {3, 4, 9, 8},  {8, 6, 4, 3},      {5, 5, 7, 7},
                              {4, 4, 7, 9, true},  {6, 4, 9, 8, false, true}};
  for (const ResizeCase& c : cases) {
    for (bool nchw : {false, true}) {
      std::mt19937 rng(37);
      const std::string what = fmt::format("{}x{} -> {}x{}{}{} {}", c.inW, c.inH, c.outW, c.outH,
                                           c.alignCorners ? " align_corners" : "", c.halfPixel ? " half-pixel" : "",
                                           nchw ? "NCHW" : "NHWC");
      const auto execution = expectWholeAndExact(nearestResize(rng, c, nchw), what.c_str());
      ASSERT_TRUE(execution.has_value()) << what;
      EXPECT_EQ(execution->profile.operations.size(), 2u) << what;
    }
  }
  std::mt19937 rng(37);
  std::map<uint32_t, std::string> reasons;
  weft::accel::supportedOperations(nearestResize(rng, {89, 97, 103, 101}, false).model, hw::HwConfig::load("weft8"),
                                   &reasons);
  ASSERT_EQ(reasons.count(1), 1u);
  EXPECT_NE(reasons.at(1).find("97x89 -> 101x103: its rows and columns repeat only every"), std::string::npos)
      << reasons.at(1);
}

// RESIZE_BILINEAR after a 1x1 convolution: a depthwise window a phase of its sampling over the
// input with a border of its edge pixels, every output the reference kernel's byte for byte.
// Segmentation heads' whole upscales by 2, 4 and 8 with half-pixel centres, a downscale by 2, an
// upscale without half-pixel centres and one with align_corners whose weights are sixteenths
// (5 -> 9), in NHWC and NCHW, unsigned (a copy, then one pass) and signed (a copy, a pass whose
// windows write two images, and their sum: the reference truncates value + 0.5 toward zero). The one it refuses: weights that
// are not whole sixteenths (3 -> 7 with half-pixel centres). A single pixel (DeepLabV3's image
// pooling brought back to the feature map's size) is a lookup table broadcast, at any size.
OpModel bilinearResize(std::mt19937& rng, const ResizeCase& c, bool nchw, OperandType type) {
  return resizeAfterConvolution(rng, c, nchw, nn::OperationType::RESIZE_BILINEAR, type);
}

TEST(Execute, BilinearResizeIsADepthwiseWindowAPhaseOfItsSampling) {
  const ResizeCase cases[] = {{4, 5, 8, 10, false, true}, {3, 4, 12, 16, false, true}, {2, 3, 16, 24, false, true},
                              {8, 6, 4, 3, false, true},  {4, 5, 8, 10},               {5, 5, 9, 9, true}};
  for (const auto type : {OperandType::TENSOR_QUANT8_ASYMM, OperandType::TENSOR_QUANT8_ASYMM_SIGNED}) {
    const bool isSigned = type == OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
    for (const ResizeCase& c : cases) {
      for (bool nchw : {false, true}) {
        std::mt19937 rng(41);
        const std::string what = fmt::format("{}x{} -> {}x{}{}{} {} {}", c.inW, c.inH, c.outW, c.outH,
                                             c.alignCorners ? " align_corners" : "", c.halfPixel ? " half-pixel" : "",
                                             nchw ? "NCHW" : "NHWC", isSigned ? "signed" : "unsigned");
        const auto execution = expectWholeAndExact(bilinearResize(rng, c, nchw, type), what.c_str());
        ASSERT_TRUE(execution.has_value()) << what;
        // The convolution, then the border copy and one pass (signed: into two images, then their sum).
        std::vector<uint32_t> layersOf;
        for (const auto& p : execution->profile.operations) layersOf.push_back(p.operationIndex);
        EXPECT_EQ(layersOf, isSigned ? (std::vector<uint32_t>{0, 1, 1, 1}) : (std::vector<uint32_t>{0, 1, 1}))
            << what;
      }
    }
    for (bool nchw : {false, true}) {
      std::mt19937 rng(43);
      const std::string what = fmt::format("1x1 -> 7x6 {} {}", nchw ? "NCHW" : "NHWC", isSigned ? "signed" : "unsigned");
      const auto execution = expectWholeAndExact(bilinearResize(rng, {1, 1, 6, 7, false, true}, nchw, type), what.c_str());
      ASSERT_TRUE(execution.has_value()) << what;
      EXPECT_EQ(execution->profile.operations.size(), 2u) << what;
    }
  }
  std::mt19937 rng(41);
  std::map<uint32_t, std::string> reasons;
  weft::accel::supportedOperations(
      bilinearResize(rng, {3, 3, 7, 7, false, true}, false, OperandType::TENSOR_QUANT8_ASYMM).model,
      hw::HwConfig::load("weft8"), &reasons);
  ASSERT_EQ(reasons.count(1), 1u);
  EXPECT_NE(reasons.at(1).find("3x3 -> 7x7 (half-pixel): its interpolation weights are not whole sixteenths"),
            std::string::npos)
      << reasons.at(1);
}

// TRANSPOSE_CONV_2D as one CONV_2D layer a phase of its output, after a 1x1 convolution: random
// filters, strides, paddings (explicit, or implicit SAME/VALID from an output shape whose SAME
// tail may trim the output), kernels smaller than the stride (phases only the bias reaches),
// channel counts that are not multiples of the array's, batches of 2, fused RELUs, NHWC and NCHW,
// unsigned and signed; and U-Net's (k 2, s 2), a DCGAN's (k 4, s 2, p 1) and an FCN's (k 3, s 2,
// p 1, output padding 1). Every output the reference's byte for byte; a phase a layer.
struct TransposeCase {
  uint32_t inH, inW, inC, outC, kh, kw, s;
  int32_t padTop, padBottom, padLeft, padRight;
  bool implicitSame = false, implicitValid = false;
  uint32_t sameTrimH = 0, sameTrimW = 0;  // SAME: the output shape in * s less these
  // The output's height and width: explicit padding's, SAME's requested shape, VALID's.
  int64_t outH() const {
    return implicitSame ? int64_t{inH} * s - sameTrimH : int64_t{inH} * s + kh - s - padTop - padBottom;
  }
  int64_t outW() const {
    return implicitSame ? int64_t{inW} * s - sameTrimW : int64_t{inW} * s + kw - s - padLeft - padRight;
  }
};

OpModel transposeConvolution(std::mt19937& rng, const TransposeCase& c, bool nchw, OperandType type,
                             int32_t activation) {
  ModelBuilder b;
  const bool isSigned = type == OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
  const int32_t zp = isSigned ? -8 : 120, inZp = isSigned ? -28 : 100, wZp = isSigned ? 3 : 131;
  const nn::Dimensions inDims = imageDims(nchw, 2, 3, c.inH, c.inW);
  const uint32_t in = b.input(type, inDims, 0.5f, inZp);
  const auto w1 = randomBytes(rng, size_t{c.inC} * 3);
  const std::vector<int32_t> bias1(c.inC, 0);
  const uint32_t conv = b.tensor(type, imageDims(nchw, 2, c.inC, c.inH, c.inW), 0.25f, zp);
  b.operation(nn::OperationType::CONV_2D,
              {in, b.constant(type, {c.inC, 1, 1, 3}, w1.data(), w1.size(), 0.05f, isSigned ? 0 : 128),
               b.constant(OperandType::TENSOR_INT32, {c.inC}, bias1.data(), 4 * bias1.size(), 0.025f, 0),
               b.int32Scalar(0), b.int32Scalar(0), b.int32Scalar(0), b.int32Scalar(0), b.int32Scalar(1),
               b.int32Scalar(1), b.int32Scalar(0), b.boolScalar(nchw)},
              {conv});
  const auto w = randomBytes(rng, size_t{c.outC} * c.kh * c.kw * c.inC);
  std::vector<int32_t> bias(c.outC);
  for (auto& v : bias) v = static_cast<int32_t>(rng() % 2001) - 1000;
  const int64_t outH = c.outH(), outW = c.outW();
  const uint32_t out = b.tensor(type, imageDims(nchw, 2, c.outC, static_cast<uint32_t>(outH), static_cast<uint32_t>(outW)),
                                0.5f, zp);
  const uint32_t filter = b.constant(type, {c.outC, c.kh, c.kw, c.inC}, w.data(), w.size(), 0.02f, wZp);
  const uint32_t b0 = b.constant(OperandType::TENSOR_INT32, {c.outC}, bias.data(), 4 * bias.size(), 0.25f * 0.02f, 0);
  if (c.implicitSame || c.implicitValid) {
    const std::vector<int32_t> shape =
        nchw ? std::vector<int32_t>{2, static_cast<int32_t>(c.outC), static_cast<int32_t>(outH), static_cast<int32_t>(outW)}
             : std::vector<int32_t>{2, static_cast<int32_t>(outH), static_cast<int32_t>(outW), static_cast<int32_t>(c.outC)};
    b.operation(nn::OperationType::TRANSPOSE_CONV_2D,
                {conv, filter, b0, b.constant(OperandType::TENSOR_INT32, {4}, shape.data(), 16),
                 b.int32Scalar(c.implicitSame ? 1 : 2), b.int32Scalar(static_cast<int32_t>(c.s)),
                 b.int32Scalar(static_cast<int32_t>(c.s)), b.int32Scalar(activation), b.boolScalar(nchw)},
                {out});
  } else {
    b.operation(nn::OperationType::TRANSPOSE_CONV_2D,
                {conv, filter, b0, b.int32Scalar(c.padLeft), b.int32Scalar(c.padRight), b.int32Scalar(c.padTop),
                 b.int32Scalar(c.padBottom), b.int32Scalar(static_cast<int32_t>(c.s)),
                 b.int32Scalar(static_cast<int32_t>(c.s)), b.int32Scalar(activation), b.boolScalar(nchw)},
                {out});
  }
  b.output(out);
  return builtWithRandomInput(b, inDims, size_t{2} * c.outC * static_cast<uint64_t>(outH * outW), rng);
}

TEST(Execute, TransposedConvolutionIsAConvolutionAPhaseOfItsOutput) {
  std::vector<TransposeCase> cases = {{5, 4, 6, 5, 2, 2, 2, 0, 0, 0, 0},   // U-Net's up-convolution
                                      {4, 5, 8, 3, 4, 4, 2, 1, 1, 1, 1},   // a DCGAN's
                                      {5, 5, 7, 4, 3, 3, 2, 1, 0, 1, 0}};  // an FCN's, output padding 1
  std::mt19937 shapes(53);
  const auto pick = [&](uint32_t lo, uint32_t hi) { return lo + static_cast<uint32_t>(shapes() % (hi - lo + 1)); };
  for (int i = 0; i < 40; ++i) {
    TransposeCase c{pick(1, 6), pick(1, 6), pick(1, 20), pick(1, 20), pick(1, 5), pick(1, 5), pick(1, 3), 0, 0, 0, 0};
    const auto pad = [&](uint32_t k) { return static_cast<int32_t>(pick(0, k - 1)); };
    c.padTop = pad(c.kh), c.padBottom = pad(c.kh), c.padLeft = pad(c.kw), c.padRight = pad(c.kw);
    if (i % 5 == 3) {  // SAME: an output shape of (in - 1) * s + 1 .. in * s
      c.implicitSame = true, c.padTop = c.padBottom = c.padLeft = c.padRight = 0;
      c.sameTrimH = pick(0, c.s - 1), c.sameTrimW = pick(0, c.s - 1);
    }
    if (i % 5 == 4) c.implicitValid = true, c.padTop = c.padBottom = c.padLeft = c.padRight = 0;
    if (c.outH() < 1 || c.outW() < 1) continue;
    cases.push_back(c);
  }
  size_t n = 0;
  for (const TransposeCase& c : cases) {
    const bool nchw = n % 2 == 1;
    const OperandType type = n % 3 == 1 ? OperandType::TENSOR_QUANT8_ASYMM_SIGNED : OperandType::TENSOR_QUANT8_ASYMM;
    const int32_t activation = static_cast<int32_t>(n % 4);
    std::mt19937 rng(59 + static_cast<uint32_t>(n++));
    const std::string what =
        fmt::format("{}x{}x{} -> {} channels, {}x{} /{} pads t{} b{} l{} r{}{}{} {} {} act {}", c.inW, c.inH, c.inC, c.outC,
                    c.kw, c.kh, c.s, c.padTop, c.padBottom, c.padLeft, c.padRight, c.implicitSame ? " SAME" : "",
                    c.implicitValid ? " VALID" : "", nchw ? "NCHW" : "NHWC",
                    type == OperandType::TENSOR_QUANT8_ASYMM_SIGNED ? "signed" : "unsigned", activation);
    const auto execution = expectWholeAndExact(transposeConvolution(rng, c, nchw, type, activation), what.c_str());
    ASSERT_TRUE(execution.has_value()) << what;
    size_t phases = 0;
    for (const auto& p : execution->profile.operations) phases += p.operationIndex == 1;
    EXPECT_GE(phases, 1u) << what;
    EXPECT_LE(phases, size_t{c.s} * c.s) << what;
  }
}

// GROUPED_CONV_2D as one array layer a group, each reading its slice of the input's channels and
// writing its slice of the output's: a 3x3 one with SAME padding (its input kept with a halo) in
// 4 groups, then a 1x1 one (no halo) in 2, per-channel weights, in NHWC and NCHW (ResNeXt's and
// RegNet's). Every operation on the accelerator, the reference's outputs.
OpModel groupedConvolutions(std::mt19937& rng, bool nchw) {
  ModelBuilder b;
  const auto dimsOf = [nchw](uint32_t n, uint32_t c, uint32_t h, uint32_t w) { return imageDims(nchw, n, c, h, w); };
  const auto bytes = [&](size_t n) { return randomBytes(rng, n); };
  const auto q8 = OperandType::TENSOR_QUANT8_ASYMM;
  const nn::Dimensions inDims = dimsOf(2, 8, 6, 5);
  const uint32_t in = b.input(q8, inDims, 0.5f, 100);
  const auto grouped = [&](uint32_t x, float inScale, uint32_t from, uint32_t to, uint32_t groups, uint32_t f,
                           int32_t padding) {
    const auto w = bytes(size_t{to} * f * f * (from / groups));
    std::vector<int32_t> bias(to);
    for (auto& v : bias) v = static_cast<int32_t>(rng() % 401) - 200;
    const uint32_t filter =
        b.constant(q8, {to, f, f, from / groups}, w.data(), w.size(), 0.02f, 128);
    const uint32_t bo = b.constant(OperandType::TENSOR_INT32, {to}, bias.data(), 4 * bias.size(), inScale * 0.02f, 0);
    const uint32_t out = b.tensor(q8, dimsOf(2, to, 6, 5), 0.25f, 120);
    b.operation(nn::OperationType::GROUPED_CONV_2D,
                {x, filter, bo, b.int32Scalar(padding), b.int32Scalar(1), b.int32Scalar(1),
                 b.int32Scalar(static_cast<int32_t>(groups)), b.int32Scalar(1), b.boolScalar(nchw)},
                {out});
    return out;
  };
  const uint32_t a = grouped(in, 0.5f, 8, 12, 4, 3, /*SAME*/ 1);
  const uint32_t out = grouped(a, 0.25f, 12, 6, 2, 1, /*VALID*/ 2);
  b.output(out);
  return builtWithRandomInput(b, inDims, 2 * 6 * 6 * 5, rng);
}

TEST(Execute, GroupedConvolutionsRunAGroupALayer) {
  for (bool nchw : {false, true}) {
    std::mt19937 rng(29);
    const auto execution = expectWholeAndExact(groupedConvolutions(rng, nchw), nchw ? "NCHW" : "NHWC");
    ASSERT_TRUE(execution.has_value());
    // A layer a group: 4 of operation 0, 2 of operation 1.
    std::vector<uint32_t> layersOf;
    for (const auto& p : execution->profile.operations) {
      EXPECT_EQ(p.type, nn::OperationType::GROUPED_CONV_2D);
      layersOf.push_back(p.operationIndex);
    }
    EXPECT_EQ(layersOf, (std::vector<uint32_t>{0, 0, 0, 0, 1, 1}));
  }
}

}  // namespace
}  // namespace weft::accel::test

namespace weft::accel::test {
namespace {

// Preparation that runs out of device DRAM fails with RESOURCE_EXHAUSTED, leaves nothing
// allocated behind, and the device still prepares and runs other models.
TEST(PrepareModel, RunningOutOfDeviceMemoryFailsCleanly) {
  const auto config = hw::HwConfig::load("weft8").with(hw::Param::kDramMiB, 16);
  auto device = deviceOn(sim::createBackend(sim::BackendKind::kApprox, config));
  const auto& queue = *dynamic_cast<const Device&>(*device).queue();
  const uint64_t freeBefore = queue.allocator()->bytesFree();
  std::mt19937 rng(9);
  FcCase big;
  big.inputDims = {1, 4096};
  big.units = 4200;  // 17 MB of weights
  big.in = {OperandType::TENSOR_QUANT8_ASYMM, 0.5f, 128};
  big.weights = {OperandType::TENSOR_QUANT8_ASYMM, 0.01f, 120};
  big.out = {OperandType::TENSOR_QUANT8_ASYMM, 8.0f, 100};
  const OpModel tooBig = makeFcModel(big, rng);
  auto failed = prepare(*device, tooBig.model);
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.error().code, nn::ErrorStatus::RESOURCE_EXHAUSTED_PERSISTENT);
  EXPECT_NE(failed.error().message.find("DramMiB"), std::string::npos) << failed.error().message;
  EXPECT_EQ(queue.allocator()->bytesFree(), freeBefore);
  OpModel small = makeFcModel(smallFc(), rng);
  auto prepared = prepare(*device, small.model);
  ASSERT_TRUE(prepared.ok()) << prepared.error().message;
  auto cpu = runOnCpu(small);
  auto dev = runOnPrepared(*prepared.value(), small);
  ASSERT_TRUE(cpu.ok() && dev.ok());
  EXPECT_EQ(firstMismatch(dev.value().outputs[0], cpu.value().outputs[0]), -1);
}

}  // namespace
}  // namespace weft::accel::test
