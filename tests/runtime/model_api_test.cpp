// ANeuralNetworksModel_*: every bad argument returns its documented code and changes nothing.
#include <gtest/gtest.h>

#include <sys/mman.h>
#include <unistd.h>

#include <vector>

#include "NnapiTestUtils.h"

namespace weft::test {
namespace {

constexpr int kOk = ANEURALNETWORKS_NO_ERROR;
constexpr int kNull = ANEURALNETWORKS_UNEXPECTED_NULL;
constexpr int kBadData = ANEURALNETWORKS_BAD_DATA;
constexpr int kBadState = ANEURALNETWORKS_BAD_STATE;

ANeuralNetworksOperandType tensorType(int32_t type, const std::vector<uint32_t>& dims, float scale = 0.0f,
                                      int32_t zeroPoint = 0) {
  return {type, static_cast<uint32_t>(dims.size()), dims.empty() ? nullptr : dims.data(), scale, zeroPoint};
}

// Runs a finished a + b model (the operand layout of makeAddModel) and checks the sum.
void expectAddWorks(const Model& model, uint32_t n = 4) {
  Compilation compilation(model);
  ASSERT_EQ(compilation.createResult(), kOk);
  ASSERT_EQ(compilation.finish(), kOk);
  Execution execution(compilation);
  std::vector<float> a(n), b(n), out(n, -1.0f);
  for (uint32_t i = 0; i < n; ++i) {
    a[i] = static_cast<float>(i);
    b[i] = 10.0f * static_cast<float>(i);
  }
  ASSERT_EQ(execution.setInput(0, a), kOk);
  ASSERT_EQ(execution.setInput(1, b), kOk);
  ASSERT_EQ(execution.setOutput(0, out), kOk);
  ASSERT_EQ(execution.compute(), kOk);
  for (uint32_t i = 0; i < n; ++i) EXPECT_EQ(out[i], 11.0f * static_cast<float>(i)) << i;
}

TEST(ModelApi, CreateAndFreeAcceptNull) {
  EXPECT_EQ(ANeuralNetworksModel_create(nullptr), kNull);
  ANeuralNetworksModel_free(nullptr);  // no operation
}

TEST(ModelApi, AddOperandRejectsNullPointers) {
  Model model;
  const std::vector<uint32_t> dims{2};
  const ANeuralNetworksOperandType type = tensorType(ANEURALNETWORKS_TENSOR_FLOAT32, dims);
  EXPECT_EQ(ANeuralNetworksModel_addOperand(nullptr, &type), kNull);
  EXPECT_EQ(ANeuralNetworksModel_addOperand(model.get(), nullptr), kNull);
}

TEST(ModelApi, AddOperandRejectsInvalidTypesAndChangesNothing) {
  Model model;
  const std::vector<uint32_t> dims{2, 3};
  const uint32_t dim = 4;
  const std::vector<ANeuralNetworksOperandType> bad = {
      tensorType(-1, dims),                                              // unknown code
      tensorType(16, dims),                                              // past ANEURALNETWORKS_MODEL
      tensorType(0x10000, dims),                                         // an extension type
      {ANEURALNETWORKS_INT32, 1, &dim, 0.0f, 0},                         // scalar with dimensions
      {ANEURALNETWORKS_TENSOR_FLOAT32, 2, nullptr, 0.0f, 0},             // count without dimensions
      tensorType(ANEURALNETWORKS_TENSOR_FLOAT32, dims, 0.5f, 0),         // float with a scale
      tensorType(ANEURALNETWORKS_TENSOR_FLOAT32, dims, 0.0f, 3),         // float with a zero point
      tensorType(ANEURALNETWORKS_TENSOR_QUANT8_ASYMM, dims, 0.0f, 0),    // scale must be > 0
      tensorType(ANEURALNETWORKS_TENSOR_QUANT8_ASYMM, dims, -1.0f, 0),
      tensorType(ANEURALNETWORKS_TENSOR_QUANT8_ASYMM, dims, 1.0f, 256),  // zero point 0..255
      tensorType(ANEURALNETWORKS_TENSOR_QUANT8_ASYMM, dims, 1.0f, -1),
      tensorType(ANEURALNETWORKS_TENSOR_QUANT8_ASYMM_SIGNED, dims, 1.0f, 128),  // -128..127
      tensorType(ANEURALNETWORKS_TENSOR_QUANT8_SYMM, dims, 1.0f, 1),     // symmetric: zero point 0
      tensorType(ANEURALNETWORKS_TENSOR_QUANT16_SYMM, dims, 1.0f, 1),
      tensorType(ANEURALNETWORKS_TENSOR_QUANT16_ASYMM, dims, 1.0f, 65536),
      tensorType(ANEURALNETWORKS_TENSOR_QUANT8_SYMM_PER_CHANNEL, dims, 0.5f, 0),  // scales come separately
  };
  for (size_t i = 0; i < bad.size(); ++i) {
    EXPECT_EQ(ANeuralNetworksModel_addOperand(model.get(), &bad[i]), kBadData) << "case " << i;
  }
  // Nothing was added: the next operand gets index 0.
  const uint32_t first = model.addTensor({1});
  EXPECT_EQ(first, 0u);
  const float value = 1.0f;
  EXPECT_EQ(ANeuralNetworksModel_setOperandValue(model.get(), 0, &value, sizeof(value)), kOk);
  EXPECT_EQ(ANeuralNetworksModel_setOperandValue(model.get(), 1, &value, sizeof(value)), kBadData);
}

TEST(ModelApi, AddOperandAcceptsValidQuantizedAndUnspecifiedTypes) {
  Model model;
  // The dimensions must outlive the operand types that point to them.
  const std::vector<uint32_t> dims12{1, 2}, dims2{2}, dims4{4}, dims03{0, 3}, none{};
  const std::vector<ANeuralNetworksOperandType> good = {
      tensorType(ANEURALNETWORKS_TENSOR_QUANT8_ASYMM, dims12, 0.5f, 255),
      tensorType(ANEURALNETWORKS_TENSOR_QUANT8_ASYMM_SIGNED, dims2, 0.5f, -128),
      tensorType(ANEURALNETWORKS_TENSOR_INT32, dims4, 0.25f, 0),  // a quantized bias
      tensorType(ANEURALNETWORKS_TENSOR_FLOAT32, dims03),         // unspecified dimension
      tensorType(ANEURALNETWORKS_TENSOR_FLOAT32, none),           // unspecified rank
      tensorType(ANEURALNETWORKS_MODEL, none),
  };
  for (size_t i = 0; i < good.size(); ++i) {
    EXPECT_EQ(ANeuralNetworksModel_addOperand(model.get(), &good[i]), kOk) << "case " << i;
  }
}

TEST(ModelApi, FinishedModelCannotBeModified) {
  std::unique_ptr<Model> model = makeAddModel();
  const std::vector<uint32_t> dims{4};
  const ANeuralNetworksOperandType type = tensorType(ANEURALNETWORKS_TENSOR_FLOAT32, dims);
  const int32_t act = 0;
  const uint32_t in[] = {0, 1, 2};
  const uint32_t out[] = {3};
  EXPECT_EQ(ANeuralNetworksModel_addOperand(model->get(), &type), kBadState);
  EXPECT_EQ(ANeuralNetworksModel_setOperandValue(model->get(), 2, &act, sizeof(act)), kBadState);
  EXPECT_EQ(ANeuralNetworksModel_addOperation(model->get(), ANEURALNETWORKS_ADD, 3, in, 1, out), kBadState);
  EXPECT_EQ(ANeuralNetworksModel_identifyInputsAndOutputs(model->get(), 2, in, 1, out), kBadState);
  EXPECT_EQ(ANeuralNetworksModel_relaxComputationFloat32toFloat16(model->get(), true), kBadState);
  EXPECT_EQ(ANeuralNetworksModel_finish(model->get()), kBadState);
  expectAddWorks(*model);
}

TEST(ModelApi, SetOperandValueChecksItsArguments) {
  Model model;
  const uint32_t tensor = model.addTensor({2});
  const uint32_t unspecified = model.addTensor({0});
  const uint32_t reference = model.addOperand(ANEURALNETWORKS_MODEL);
  const float values[2] = {1.0f, 2.0f};
  EXPECT_EQ(ANeuralNetworksModel_setOperandValue(nullptr, 0, values, sizeof(values)), kNull);
  EXPECT_EQ(ANeuralNetworksModel_setOperandValue(model.get(), 0, nullptr, sizeof(values)), kNull);
  EXPECT_EQ(ANeuralNetworksModel_setOperandValue(model.get(), -1, values, sizeof(values)), kBadData);
  EXPECT_EQ(ANeuralNetworksModel_setOperandValue(model.get(), 3, values, sizeof(values)), kBadData);
  EXPECT_EQ(ANeuralNetworksModel_setOperandValue(model.get(), tensor, values, sizeof(float)), kBadData);
  EXPECT_EQ(ANeuralNetworksModel_setOperandValue(model.get(), tensor, values, 3 * sizeof(float)), kBadData);
  EXPECT_EQ(ANeuralNetworksModel_setOperandValue(model.get(), unspecified, values, sizeof(values)), kBadData);
  EXPECT_EQ(ANeuralNetworksModel_setOperandValue(model.get(), reference, values, sizeof(values)), kBadData);
  EXPECT_EQ(ANeuralNetworksModel_setOperandValue(model.get(), tensor, values, sizeof(values)), kOk);
  // NULL and 0: an omitted optional operand.
  EXPECT_EQ(ANeuralNetworksModel_setOperandValue(model.get(), unspecified, nullptr, 0), kOk);
}

TEST(ModelApi, SetOperandValueRefusesModelInputs) {
  Model model;
  const uint32_t a = model.addTensor({4});
  const uint32_t b = model.addTensor({4});
  const uint32_t act = model.addInt32Constant(0);
  const uint32_t out = model.addTensor({4});
  ASSERT_EQ(model.addOperation(ANEURALNETWORKS_ADD, {a, b, act}, {out}), kOk);
  ASSERT_EQ(model.identify({a, b}, {out}), kOk);
  const std::vector<float> values(4, 1.0f);
  EXPECT_EQ(ANeuralNetworksModel_setOperandValue(model.get(), a, values.data(), 16), kBadData);
  EXPECT_EQ(ANeuralNetworksModel_setOperandValue(model.get(), out, values.data(), 16), kBadData);
  ASSERT_EQ(model.finish(), kOk);
  expectAddWorks(model);
}

TEST(ModelApi, LargeConstantsAreReferencedUntilFinishThenCopied) {
  // b = constant of 64 floats (256 bytes > ANEURALNETWORKS_MAX_SIZE_OF_IMMEDIATELY_COPIED_VALUES).
  constexpr uint32_t n = 64;
  std::vector<float> constant(n, 0.0f);
  Model model;
  const uint32_t a = model.addTensor({n});
  const uint32_t b = model.addTensor({n});
  ASSERT_EQ(ANeuralNetworksModel_setOperandValue(model.get(), b, constant.data(), n * sizeof(float)), kOk);
  const uint32_t act = model.addInt32Constant(0);
  const uint32_t out = model.addTensor({n});
  ASSERT_EQ(model.addOperation(ANEURALNETWORKS_ADD, {a, b, act}, {out}), kOk);
  ASSERT_EQ(model.identify({a}, {out}), kOk);
  for (uint32_t i = 0; i < n; ++i) constant[i] = 100.0f + i;  // still the client's buffer: seen at finish
  ASSERT_EQ(model.finish(), kOk);
  std::fill(constant.begin(), constant.end(), -1.0f);  // after finish the model has its own copy

  Compilation compilation(model);
  ASSERT_EQ(compilation.finish(), kOk);
  Execution execution(compilation);
  std::vector<float> in(n, 1.0f), result(n);
  ASSERT_EQ(execution.setInput(0, in), kOk);
  ASSERT_EQ(execution.setOutput(0, result), kOk);
  ASSERT_EQ(execution.compute(), kOk);
  for (uint32_t i = 0; i < n; ++i) EXPECT_EQ(result[i], 101.0f + i);
}

TEST(ModelApi, SetOperandValueFromMemoryChecksTheRegion) {
  const int fd = memfd_create("weft-constants", 0);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(ftruncate(fd, 4096), 0);
  ANeuralNetworksMemory* memory = nullptr;
  ASSERT_EQ(ANeuralNetworksMemory_createFromFd(4096, PROT_READ | PROT_WRITE, fd, 0, &memory), kOk);
  float* mapped = static_cast<float*>(mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0));
  ASSERT_NE(mapped, MAP_FAILED);
  for (int i = 0; i < 4; ++i) mapped[16 + i] = 5.0f * i;

  Model model;
  const uint32_t a = model.addTensor({4});
  const uint32_t b = model.addTensor({4});
  EXPECT_EQ(ANeuralNetworksModel_setOperandValueFromMemory(nullptr, b, memory, 64, 16), kNull);
  EXPECT_EQ(ANeuralNetworksModel_setOperandValueFromMemory(model.get(), b, nullptr, 64, 16), kNull);
  EXPECT_EQ(ANeuralNetworksModel_setOperandValueFromMemory(model.get(), 7, memory, 64, 16), kBadData);
  EXPECT_EQ(ANeuralNetworksModel_setOperandValueFromMemory(model.get(), b, memory, 64, 12), kBadData);
  EXPECT_EQ(ANeuralNetworksModel_setOperandValueFromMemory(model.get(), b, memory, 4090, 16), kBadData);
  EXPECT_EQ(ANeuralNetworksModel_setOperandValueFromMemory(model.get(), b, memory, 64, 16), kOk);
  const uint32_t act = model.addInt32Constant(0);
  const uint32_t out = model.addTensor({4});
  ASSERT_EQ(model.addOperation(ANEURALNETWORKS_ADD, {a, b, act}, {out}), kOk);
  ASSERT_EQ(model.identify({a}, {out}), kOk);
  ASSERT_EQ(model.finish(), kOk);
  EXPECT_EQ(ANeuralNetworksModel_setOperandValueFromMemory(model.get(), b, memory, 64, 16), kBadState);

  Compilation compilation(model);
  ASSERT_EQ(compilation.finish(), kOk);
  Execution execution(compilation);
  std::vector<float> in(4, 1.0f), result(4);
  ASSERT_EQ(execution.setInput(0, in), kOk);
  ASSERT_EQ(execution.setOutput(0, result), kOk);
  ASSERT_EQ(execution.compute(), kOk);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(result[i], 1.0f + 5.0f * i);

  munmap(mapped, 4096);
  ANeuralNetworksMemory_free(memory);
  close(fd);
}

TEST(ModelApi, SetOperandSymmPerChannelQuantParamsChecksEverything) {
  Model model;
  const uint32_t perChannel = model.addOperand(ANEURALNETWORKS_TENSOR_QUANT8_SYMM_PER_CHANNEL, {3, 2});
  const uint32_t unknownChannel = model.addOperand(ANEURALNETWORKS_TENSOR_QUANT8_SYMM_PER_CHANNEL, {0, 2});
  const uint32_t plain = model.addOperand(ANEURALNETWORKS_TENSOR_QUANT8_ASYMM, {3, 2}, 0.5f, 0);
  const float scales[3] = {0.5f, 0.25f, 1.0f};
  const float badScales[3] = {0.5f, 0.0f, 1.0f};
  auto params = [](uint32_t channelDim, uint32_t count, const float* s) {
    return ANeuralNetworksSymmPerChannelQuantParams{channelDim, count, s};
  };
  const ANeuralNetworksSymmPerChannelQuantParams good = params(0, 3, scales);
  EXPECT_EQ(ANeuralNetworksModel_setOperandSymmPerChannelQuantParams(nullptr, perChannel, &good), kNull);
  EXPECT_EQ(ANeuralNetworksModel_setOperandSymmPerChannelQuantParams(model.get(), perChannel, nullptr), kNull);
  // A NULL array with a count is BAD_DATA (Android's NN_VALIDATE_NULL_OR_SIZED), not UNEXPECTED_NULL.
  const ANeuralNetworksSymmPerChannelQuantParams nullScales = params(0, 3, nullptr);
  EXPECT_EQ(ANeuralNetworksModel_setOperandSymmPerChannelQuantParams(model.get(), perChannel, &nullScales), kBadData);
  EXPECT_EQ(ANeuralNetworksModel_setOperandSymmPerChannelQuantParams(model.get(), 9, &good), kBadData);
  EXPECT_EQ(ANeuralNetworksModel_setOperandSymmPerChannelQuantParams(model.get(), plain, &good), kBadData);
  EXPECT_EQ(ANeuralNetworksModel_setOperandSymmPerChannelQuantParams(model.get(), unknownChannel, &good), kBadData);
  const ANeuralNetworksSymmPerChannelQuantParams badDim = params(2, 3, scales);
  EXPECT_EQ(ANeuralNetworksModel_setOperandSymmPerChannelQuantParams(model.get(), perChannel, &badDim), kBadData);
  const ANeuralNetworksSymmPerChannelQuantParams badCount = params(0, 2, scales);
  EXPECT_EQ(ANeuralNetworksModel_setOperandSymmPerChannelQuantParams(model.get(), perChannel, &badCount), kBadData);
  const ANeuralNetworksSymmPerChannelQuantParams zeroScale = params(0, 3, badScales);
  EXPECT_EQ(ANeuralNetworksModel_setOperandSymmPerChannelQuantParams(model.get(), perChannel, &zeroScale), kBadData);
  EXPECT_EQ(ANeuralNetworksModel_setOperandSymmPerChannelQuantParams(model.get(), perChannel, &good), kOk);
  const ANeuralNetworksSymmPerChannelQuantParams secondDim = params(1, 2, scales);
  EXPECT_EQ(ANeuralNetworksModel_setOperandSymmPerChannelQuantParams(model.get(), perChannel, &secondDim), kOk);
}

TEST(ModelApi, PerChannelOperandNeedsItsParametersToFinish) {
  for (bool withParameters : {false, true}) {
    Model model;
    const uint32_t a = model.addTensor({4});
    const uint32_t b = model.addTensor({4});
    const uint32_t act = model.addInt32Constant(0);
    const uint32_t out = model.addTensor({4});
    const uint32_t perChannel = model.addOperand(ANEURALNETWORKS_TENSOR_QUANT8_SYMM_PER_CHANNEL, {2});
    const int8_t weights[2] = {1, 2};
    ASSERT_EQ(ANeuralNetworksModel_setOperandValue(model.get(), perChannel, weights, sizeof(weights)), kOk);
    if (withParameters) {
      const float scales[2] = {0.5f, 0.25f};
      const ANeuralNetworksSymmPerChannelQuantParams params{0, 2, scales};
      ASSERT_EQ(ANeuralNetworksModel_setOperandSymmPerChannelQuantParams(model.get(), perChannel, &params), kOk);
    }
    ASSERT_EQ(model.addOperation(ANEURALNETWORKS_ADD, {a, b, act}, {out}), kOk);
    ASSERT_EQ(model.identify({a, b}, {out}), kOk);
    if (!withParameters) {
      EXPECT_EQ(model.finish(), kBadData);
      continue;
    }
    ASSERT_EQ(model.finish(), kOk);
    expectAddWorks(model);
  }
}

TEST(ModelApi, SetOperandValueFromModelChecksItsArguments) {
  std::unique_ptr<Model> finished = makeAddModel();
  Model unfinished;
  unfinished.addTensor({1});
  Model model;
  const uint32_t reference = model.addOperand(ANEURALNETWORKS_MODEL);
  const uint32_t tensor = model.addTensor({2});
  EXPECT_EQ(ANeuralNetworksModel_setOperandValueFromModel(nullptr, reference, finished->get()), kNull);
  EXPECT_EQ(ANeuralNetworksModel_setOperandValueFromModel(model.get(), reference, nullptr), kNull);
  EXPECT_EQ(ANeuralNetworksModel_setOperandValueFromModel(model.get(), 5, finished->get()), kBadData);
  EXPECT_EQ(ANeuralNetworksModel_setOperandValueFromModel(model.get(), tensor, finished->get()), kBadData);
  EXPECT_EQ(ANeuralNetworksModel_setOperandValueFromModel(model.get(), reference, unfinished.get()), kBadState);
  EXPECT_EQ(ANeuralNetworksModel_setOperandValueFromModel(model.get(), reference, finished->get()), kOk);
}

TEST(ModelApi, AddOperationChecksItsArgumentsAndChangesNothing) {
  Model model;
  const uint32_t a = model.addTensor({4});
  const uint32_t b = model.addTensor({4});
  const uint32_t act = model.addInt32Constant(0);
  const uint32_t out = model.addTensor({4});
  const uint32_t intTensor = model.addOperand(ANEURALNETWORKS_TENSOR_INT32, {4});
  const int32_t ints[4] = {1, 2, 3, 4};
  ASSERT_EQ(ANeuralNetworksModel_setOperandValue(model.get(), intTensor, ints, sizeof(ints)), kOk);
  const uint32_t in[] = {a, b, act};
  const uint32_t outs[] = {out};
  EXPECT_EQ(ANeuralNetworksModel_addOperation(nullptr, ANEURALNETWORKS_ADD, 3, in, 1, outs), kNull);
  EXPECT_EQ(ANeuralNetworksModel_addOperation(model.get(), ANEURALNETWORKS_ADD, 3, nullptr, 1, outs), kNull);
  EXPECT_EQ(ANeuralNetworksModel_addOperation(model.get(), ANEURALNETWORKS_ADD, 3, in, 1, nullptr), kNull);
  EXPECT_EQ(ANeuralNetworksModel_addOperation(model.get(), -1, 3, in, 1, outs), kBadData);
  EXPECT_EQ(ANeuralNetworksModel_addOperation(model.get(), 106, 3, in, 1, outs), kBadData);
  EXPECT_EQ(ANeuralNetworksModel_addOperation(model.get(), 10000, 3, in, 1, outs), kBadData);  // OEM
  EXPECT_EQ(ANeuralNetworksModel_addOperation(model.get(), 0x10001, 3, in, 1, outs), kBadData);  // extension
  const uint32_t outOfRange[] = {a, b, 99};
  EXPECT_EQ(ANeuralNetworksModel_addOperation(model.get(), ANEURALNETWORKS_ADD, 3, outOfRange, 1, outs), kBadData);
  // The operation's own rules (validateOperation): a missing input, mismatched types.
  EXPECT_EQ(ANeuralNetworksModel_addOperation(model.get(), ANEURALNETWORKS_ADD, 2, in, 1, outs), kBadData);
  const uint32_t mixed[] = {a, intTensor, act};
  EXPECT_EQ(ANeuralNetworksModel_addOperation(model.get(), ANEURALNETWORKS_ADD, 3, mixed, 1, outs), kBadData);
  // None of them was added: the model has exactly the one valid operation below.
  ASSERT_EQ(ANeuralNetworksModel_addOperation(model.get(), ANEURALNETWORKS_ADD, 3, in, 1, outs), kOk);
  ASSERT_EQ(model.identify({a, b}, {out}), kOk);
  ASSERT_EQ(model.finish(), kOk);
  bool supported[2] = {false, false};
  const ANeuralNetworksDevice* cpu = cpuDevice();
  ASSERT_EQ(ANeuralNetworksModel_getSupportedOperationsForDevices(model.get(), &cpu, 1, supported), kOk);
  EXPECT_TRUE(supported[0]);
  EXPECT_FALSE(supported[1]);  // not written: there is no second operation
  expectAddWorks(model);
}

TEST(ModelApi, IdentifyInputsAndOutputsChecksItsArgumentsAndChangesNothing) {
  Model model;
  const uint32_t a = model.addTensor({4});
  const uint32_t b = model.addTensor({4});
  const uint32_t act = model.addInt32Constant(0);
  const uint32_t out = model.addTensor({4});
  ASSERT_EQ(model.addOperation(ANEURALNETWORKS_ADD, {a, b, act}, {out}), kOk);
  const uint32_t ins[] = {a, b};
  const uint32_t outs[] = {out};
  EXPECT_EQ(ANeuralNetworksModel_identifyInputsAndOutputs(nullptr, 2, ins, 1, outs), kNull);
  EXPECT_EQ(ANeuralNetworksModel_identifyInputsAndOutputs(model.get(), 2, nullptr, 1, outs), kNull);
  EXPECT_EQ(ANeuralNetworksModel_identifyInputsAndOutputs(model.get(), 2, ins, 1, nullptr), kNull);
  EXPECT_EQ(model.identify({a, 42}, {out}), kBadData);    // out of range
  EXPECT_EQ(model.identify({a, act}, {out}), kBadData);   // a constant
  EXPECT_EQ(model.identify({a, a}, {out}), kBadData);     // twice
  EXPECT_EQ(model.identify({a, b}, {a}), kBadData);       // input and output
  // Empty lists must still be arrays (NNAPI): NULL is UNEXPECTED_NULL even with a count of 0.
  EXPECT_EQ(ANeuralNetworksModel_identifyInputsAndOutputs(model.get(), 0, nullptr, 1, outs), kNull);
  EXPECT_EQ(ANeuralNetworksModel_identifyInputsAndOutputs(model.get(), 2, ins, 0, nullptr), kNull);
  ASSERT_EQ(model.identify({a, b}, {out}), kOk);          // none of the failures changed anything
  EXPECT_EQ(model.identify({a, b}, {out}), kBadData);     // NNAPI identifies once
  ASSERT_EQ(model.finish(), kOk);
  expectAddWorks(model);
}

TEST(ModelApi, RelaxComputation) {
  Model model;
  EXPECT_EQ(ANeuralNetworksModel_relaxComputationFloat32toFloat16(nullptr, true), kNull);
  EXPECT_EQ(ANeuralNetworksModel_relaxComputationFloat32toFloat16(model.get(), true), kOk);
}

TEST(ModelApi, FinishChecksTheGraph) {
  EXPECT_EQ(ANeuralNetworksModel_finish(nullptr), kNull);
  {
    Model noOutputs;
    noOutputs.addTensor({1});
    EXPECT_EQ(noOutputs.finish(), kBadData);
  }
  {
    // "Every model must have at least one input and one output": a model of constants only.
    Model noInputs;
    const uint32_t a = noInputs.addFloatTensorConstant({2}, {1, 2});
    const uint32_t act = noInputs.addInt32Constant(0);
    const uint32_t out = noInputs.addTensor({2});
    ASSERT_EQ(noInputs.addOperation(ANEURALNETWORKS_ADD, {a, a, act}, {out}), kOk);
    const uint32_t outputs[] = {out};
    const uint32_t none[] = {0};
    ASSERT_EQ(ANeuralNetworksModel_identifyInputsAndOutputs(noInputs.get(), 0, none, 1, outputs), kOk);
    EXPECT_EQ(noInputs.finish(), kBadData);
  }
  {
    // A model output that no operation writes.
    Model model;
    const uint32_t a = model.addTensor({4});
    const uint32_t b = model.addTensor({4});
    const uint32_t act = model.addInt32Constant(0);
    const uint32_t out = model.addTensor({4});
    const uint32_t orphan = model.addTensor({4});
    ASSERT_EQ(model.addOperation(ANEURALNETWORKS_ADD, {a, b, act}, {out}), kOk);
    ASSERT_EQ(model.identify({a, b}, {out, orphan}), kOk);
    EXPECT_EQ(model.finish(), kBadData);
    // As in NNAPI, finish was called: the model can no longer be modified nor finished.
    const std::vector<float> zeros(4, 0.0f);
    EXPECT_EQ(ANeuralNetworksModel_setOperandValue(model.get(), orphan, zeros.data(), 16), kBadState);
    EXPECT_EQ(model.finish(), kBadState);
    Compilation compilation(model);
    EXPECT_EQ(compilation.createResult(), kBadState);
  }
  {
    // A temporary nobody writes is as invalid as an output nobody writes.
    Model model;
    const uint32_t a = model.addTensor({4});
    const uint32_t b = model.addTensor({4});
    const uint32_t act = model.addInt32Constant(0);
    const uint32_t out = model.addTensor({4});
    model.addTensor({4});
    ASSERT_EQ(model.addOperation(ANEURALNETWORKS_ADD, {a, b, act}, {out}), kOk);
    ASSERT_EQ(model.identify({a, b}, {out}), kOk);
    EXPECT_EQ(model.finish(), kBadData);
  }
  {
    // An operand written by two operations.
    Model model;
    const uint32_t a = model.addTensor({4});
    const uint32_t act = model.addInt32Constant(0);
    const uint32_t out = model.addTensor({4});
    ASSERT_EQ(model.addOperation(ANEURALNETWORKS_ADD, {a, a, act}, {out}), kOk);
    ASSERT_EQ(model.addOperation(ANEURALNETWORKS_MUL, {a, a, act}, {out}), kOk);
    ASSERT_EQ(model.identify({a}, {out}), kOk);
    EXPECT_EQ(model.finish(), kBadData);
  }
  {
    // A cycle: t1 = t2 + a, t2 = t1 + a.
    Model model;
    const uint32_t a = model.addTensor({4});
    const uint32_t act = model.addInt32Constant(0);
    const uint32_t t1 = model.addTensor({4});
    const uint32_t t2 = model.addTensor({4});
    const uint32_t out = model.addTensor({4});
    ASSERT_EQ(model.addOperation(ANEURALNETWORKS_ADD, {t2, a, act}, {t1}), kOk);
    ASSERT_EQ(model.addOperation(ANEURALNETWORKS_ADD, {t1, a, act}, {t2}), kOk);
    ASSERT_EQ(model.addOperation(ANEURALNETWORKS_ADD, {t1, t2, act}, {out}), kOk);
    ASSERT_EQ(model.identify({a}, {out}), kOk);
    EXPECT_EQ(model.finish(), kBadData);
  }
}

TEST(ModelApi, OperationsMayBeAddedInAnyOrder) {
  // out = (a + b) * c, with MUL added before the ADD that feeds it.
  Model model;
  const uint32_t a = model.addTensor({2});
  const uint32_t b = model.addTensor({2});
  const uint32_t c = model.addTensor({2});
  const uint32_t act = model.addInt32Constant(0);
  const uint32_t sum = model.addTensor({2});
  const uint32_t out = model.addTensor({2});
  ASSERT_EQ(model.addOperation(ANEURALNETWORKS_MUL, {sum, c, act}, {out}), kOk);
  ASSERT_EQ(model.addOperation(ANEURALNETWORKS_ADD, {a, b, act}, {sum}), kOk);
  ASSERT_EQ(model.identify({a, b, c}, {out}), kOk);
  ASSERT_EQ(model.finish(), kOk);
  Compilation compilation(model);
  ASSERT_EQ(compilation.finish(), kOk);
  Execution execution(compilation);
  std::vector<float> va{1, 2}, vb{3, 4}, vc{10, 100}, result(2);
  ASSERT_EQ(execution.setInput(0, va), kOk);
  ASSERT_EQ(execution.setInput(1, vb), kOk);
  ASSERT_EQ(execution.setInput(2, vc), kOk);
  ASSERT_EQ(execution.setOutput(0, result), kOk);
  ASSERT_EQ(execution.compute(), kOk);
  EXPECT_EQ(result, (std::vector<float>{40, 600}));
}

TEST(ModelApi, GetSupportedOperationsForDevicesChecksItsArguments) {
  std::unique_ptr<Model> model = makeAddMulModel();
  Model unfinished;
  const ANeuralNetworksDevice* cpu = cpuDevice();
  ASSERT_NE(cpu, nullptr);
  bool supported[2] = {false, false};
  EXPECT_EQ(ANeuralNetworksModel_getSupportedOperationsForDevices(nullptr, &cpu, 1, supported), kNull);
  EXPECT_EQ(ANeuralNetworksModel_getSupportedOperationsForDevices(model->get(), nullptr, 1, supported), kNull);
  EXPECT_EQ(ANeuralNetworksModel_getSupportedOperationsForDevices(model->get(), &cpu, 1, nullptr), kNull);
  EXPECT_EQ(ANeuralNetworksModel_getSupportedOperationsForDevices(model->get(), &cpu, 0, supported), kBadData);
  const ANeuralNetworksDevice* twice[] = {cpu, cpu};
  EXPECT_EQ(ANeuralNetworksModel_getSupportedOperationsForDevices(model->get(), twice, 2, supported), kBadData);
  const ANeuralNetworksDevice* withNull[] = {cpu, nullptr};
  EXPECT_EQ(ANeuralNetworksModel_getSupportedOperationsForDevices(model->get(), withNull, 2, supported), kNull);
  int notADevice = 0;
  const ANeuralNetworksDevice* bogus = reinterpret_cast<const ANeuralNetworksDevice*>(&notADevice);
  EXPECT_EQ(ANeuralNetworksModel_getSupportedOperationsForDevices(model->get(), &bogus, 1, supported), kBadData);
  EXPECT_EQ(ANeuralNetworksModel_getSupportedOperationsForDevices(unfinished.get(), &cpu, 1, supported), kBadState);
  EXPECT_FALSE(supported[0] || supported[1]);
  ASSERT_EQ(ANeuralNetworksModel_getSupportedOperationsForDevices(model->get(), &cpu, 1, supported), kOk);
  EXPECT_TRUE(supported[0] && supported[1]);
}

TEST(ModelApi, ExtensionsAreNotSupported) {
  Model model;
  int32_t type = -1;
  ANeuralNetworksOperationType operation = -1;
  EXPECT_EQ(ANeuralNetworksModel_getExtensionOperandType(nullptr, "x", 0, &type), kNull);
  EXPECT_EQ(ANeuralNetworksModel_getExtensionOperandType(model.get(), nullptr, 0, &type), kNull);
  EXPECT_EQ(ANeuralNetworksModel_getExtensionOperandType(model.get(), "x", 0, nullptr), kNull);
  EXPECT_EQ(ANeuralNetworksModel_getExtensionOperandType(model.get(), "com.example.x", 0, &type), kBadData);
  EXPECT_EQ(ANeuralNetworksModel_getExtensionOperationType(nullptr, "x", 0, &operation), kNull);
  EXPECT_EQ(ANeuralNetworksModel_getExtensionOperationType(model.get(), "com.example.x", 0, &operation), kBadData);
  const uint32_t tensor = model.addTensor({1});
  const uint8_t data[1] = {0};
  EXPECT_EQ(ANeuralNetworksModel_setOperandExtensionData(nullptr, tensor, data, 1), kNull);
  EXPECT_EQ(ANeuralNetworksModel_setOperandExtensionData(model.get(), tensor, nullptr, 1), kNull);
  EXPECT_EQ(ANeuralNetworksModel_setOperandExtensionData(model.get(), 3, data, 1), kBadData);
  EXPECT_EQ(ANeuralNetworksModel_setOperandExtensionData(model.get(), tensor, data, 1), kBadData);
  EXPECT_EQ(type, -1);
  EXPECT_EQ(operation, -1);
}

}  // namespace
}  // namespace weft::test
