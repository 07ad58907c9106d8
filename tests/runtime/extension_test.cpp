// The org.weft.accel extension through the NNAPI C API (weft/WeftExtension.h): device support,
// per-model types, extension data, WEFT_MATMUL_INT32 on both devices against a plain loop, its
// validation, and the allowlist. Run with WEFT_EXTENSIONS_ALLOWLIST naming a file that lists this
// program (the "allowed." tests) or one that does not (the "refused." tests), see CMakeLists.txt.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "NnapiTestUtils.h"
#include "weft/WeftExtension.h"
#include "weft/kernels/Extensions.h"

namespace weft::test {
namespace {

// The reference kernels repeat the extension's codes (they cannot see the driver's public header).
static_assert(nn::weft_extension::kTensorInt32Accumulator == WEFT_TENSOR_INT32_ACCUMULATOR);
static_assert(nn::weft_extension::kMatmulInt32 == WEFT_MATMUL_INT32);
static_assert(sizeof(nn::weft_extension::AccumulatorParams) == sizeof(WeftAccumulatorParams));

constexpr int kOk = ANEURALNETWORKS_NO_ERROR;
constexpr int kBadData = ANEURALNETWORKS_BAD_DATA;

int32_t accumulatorType(const Model& model) {
  int32_t type = -1;
  EXPECT_EQ(ANeuralNetworksModel_getExtensionOperandType(model.get(), WEFT_EXTENSION_NAME,
                                                         WEFT_TENSOR_INT32_ACCUMULATOR, &type),
            kOk);
  return type;
}

ANeuralNetworksOperationType matmulType(const Model& model) {
  ANeuralNetworksOperationType type = -1;
  EXPECT_EQ(ANeuralNetworksModel_getExtensionOperationType(model.get(), WEFT_EXTENSION_NAME, WEFT_MATMUL_INT32, &type),
            kOk);
  return type;
}

// The operands of one WEFT_MATMUL_INT32 problem and what the client feeds it.
struct Problem {
  uint32_t rows = 2, depth = 3, columns = 4;
  int32_t lhsType = ANEURALNETWORKS_TENSOR_QUANT8_ASYMM;
  float lhsScale = 0.5f;
  int32_t lhsZeroPoint = 3;
  int32_t rhsType = ANEURALNETWORKS_TENSOR_QUANT8_ASYMM_SIGNED;
  float rhsScale = 0.25f;
  int32_t rhsZeroPoint = -1;
  std::vector<uint8_t> lhs;  // rows x depth bytes
  std::vector<uint8_t> rhs;  // columns x depth bytes

  Problem() {
    for (uint32_t i = 0; i < rows * depth; ++i) lhs.push_back(static_cast<uint8_t>(17 * i + 250));
    for (uint32_t i = 0; i < columns * depth; ++i) rhs.push_back(static_cast<uint8_t>(37 * i + 128));
  }

  int32_t element(int32_t type, uint8_t byte, int32_t zeroPoint) const {
    const int32_t value = type == ANEURALNETWORKS_TENSOR_QUANT8_ASYMM ? byte : static_cast<int8_t>(byte);
    return value - zeroPoint;
  }
  // The reference: the formula of weft/WeftExtension.h as a plain loop.
  std::vector<int32_t> expected() const {
    std::vector<int32_t> out(rows * columns, 0);
    for (uint32_t m = 0; m < rows; ++m) {
      for (uint32_t n = 0; n < columns; ++n) {
        for (uint32_t k = 0; k < depth; ++k) {
          out[m * columns + n] +=
              element(lhsType, lhs[m * depth + k], lhsZeroPoint) * element(rhsType, rhs[n * depth + k], rhsZeroPoint);
        }
      }
    }
    return out;
  }
};

// lhs and rhs are model inputs 0 and 1, the accumulators output 0 (of `outputType`).
std::unique_ptr<Model> makeMatmulModel(const Problem& p, bool accumulatorOutput, const void* extensionData = nullptr,
                                       size_t extensionDataLength = 0) {
  auto model = std::make_unique<Model>();
  const uint32_t lhs = model->addOperand(p.lhsType, {p.rows, p.depth}, p.lhsScale, p.lhsZeroPoint);
  const uint32_t rhs = model->addOperand(p.rhsType, {p.columns, p.depth}, p.rhsScale, p.rhsZeroPoint);
  const uint32_t out = model->addOperand(accumulatorOutput ? accumulatorType(*model) : ANEURALNETWORKS_TENSOR_INT32,
                                         {p.rows, p.columns});
  if (extensionData != nullptr) {
    EXPECT_EQ(ANeuralNetworksModel_setOperandExtensionData(model->get(), out, extensionData, extensionDataLength), kOk);
  }
  EXPECT_EQ(model->addOperation(matmulType(*model), {lhs, rhs}, {out}), kOk);
  EXPECT_EQ(model->identify({lhs, rhs}, {out}), kOk);
  return model;
}

std::vector<int32_t> run(const Compilation& compilation, const Problem& p) {
  Execution execution(compilation);
  std::vector<int32_t> out(p.rows * p.columns, -7);
  EXPECT_EQ(ANeuralNetworksExecution_setInput(execution.get(), 0, nullptr, p.lhs.data(), p.lhs.size()), kOk);
  EXPECT_EQ(ANeuralNetworksExecution_setInput(execution.get(), 1, nullptr, p.rhs.data(), p.rhs.size()), kOk);
  EXPECT_EQ(ANeuralNetworksExecution_setOutput(execution.get(), 0, nullptr, out.data(), out.size() * 4), kOk);
  EXPECT_EQ(execution.compute(), kOk);
  return out;
}

TEST(Extension, TheKernelsNameTheExtensionAsThePublicHeader) {
  EXPECT_EQ(nn::weft_extension::kName, std::string_view(WEFT_EXTENSION_NAME));
}

TEST(Extension, TheCpuDeviceSupportsOrgWeftAccel) {
  bool supported = false;
  ASSERT_EQ(ANeuralNetworksDevice_getExtensionSupport(cpuDevice(), WEFT_EXTENSION_NAME, &supported), kOk);
  EXPECT_TRUE(supported);
  ASSERT_EQ(ANeuralNetworksDevice_getExtensionSupport(cpuDevice(), "com.example.fibonacci", &supported), kOk);
  EXPECT_FALSE(supported);
}

TEST(Extension, TypesCarryTheModelsPrefixAndTheCodeWithinTheExtension) {
  Model first;
  Model second;
  const int32_t operand = accumulatorType(first);
  const ANeuralNetworksOperationType operation = matmulType(first);
  // Prefix in the high 16 bits (never 0: that is the base types'), code in the low 16 bits.
  EXPECT_NE(static_cast<uint32_t>(operand) >> 16, 0u);
  EXPECT_EQ(operand & 0xFFFF, WEFT_TENSOR_INT32_ACCUMULATOR);
  EXPECT_EQ(operation & 0xFFFF, WEFT_MATMUL_INT32);
  EXPECT_EQ(static_cast<uint32_t>(operation) >> 16, static_cast<uint32_t>(operand) >> 16);  // one extension, one prefix
  EXPECT_EQ(accumulatorType(first), operand);                                               // stable within a model
  EXPECT_EQ(accumulatorType(second), operand);  // each model numbers its own extensions from 1
}

TEST(Extension, MatmulOnTheCpuMatchesThePlainLoop) {
  for (bool accumulatorOutput : {false, true}) {
    for (int32_t lhsType : {ANEURALNETWORKS_TENSOR_QUANT8_ASYMM, ANEURALNETWORKS_TENSOR_QUANT8_ASYMM_SIGNED}) {
      SCOPED_TRACE(::testing::Message() << "accumulator " << accumulatorOutput << " lhs type " << lhsType);
      Problem p;
      p.lhsType = lhsType;
      p.lhsZeroPoint = lhsType == ANEURALNETWORKS_TENSOR_QUANT8_ASYMM ? 3 : -5;
      const WeftAccumulatorParams params{p.lhsScale * p.rhsScale};
      std::unique_ptr<Model> model =
          makeMatmulModel(p, accumulatorOutput, accumulatorOutput ? &params : nullptr, sizeof(params));
      ASSERT_EQ(model->finish(), kOk);
      Compilation partitioned(*model);
      ASSERT_EQ(partitioned.finish(), kOk);
      EXPECT_EQ(run(partitioned, p), p.expected());
      Compilation onCpu(*model, {cpuDevice()});
      ASSERT_EQ(onCpu.finish(), kOk);
      EXPECT_EQ(run(onCpu, p), p.expected());
    }
  }
}

// The accelerator (approx backend here, see CMakeLists.txt) declares the extension too and runs
// the matmul on its array, its STORE writing the accumulators raw: the same numbers.
const ANeuralNetworksDevice* acceleratorDevice() {
  const ANeuralNetworksDevice* accel = findDevice("weft-accel");
  EXPECT_NE(accel, nullptr) << "the accelerator driver module did not load";
  return accel;
}

TEST(Extension, TheAcceleratorSupportsOrgWeftAccel) {
  const ANeuralNetworksDevice* accel = acceleratorDevice();
  ASSERT_NE(accel, nullptr);
  bool supported = false;
  ASSERT_EQ(ANeuralNetworksDevice_getExtensionSupport(accel, WEFT_EXTENSION_NAME, &supported), kOk);
  EXPECT_TRUE(supported);
  ASSERT_EQ(ANeuralNetworksDevice_getExtensionSupport(accel, "com.example.fibonacci", &supported), kOk);
  EXPECT_FALSE(supported);
}

TEST(Extension, MatmulOnTheAcceleratorMatchesThePlainLoop) {
  const ANeuralNetworksDevice* accel = acceleratorDevice();
  ASSERT_NE(accel, nullptr);
  for (bool accumulatorOutput : {false, true}) {
    for (int32_t rhsType : {ANEURALNETWORKS_TENSOR_QUANT8_ASYMM, ANEURALNETWORKS_TENSOR_QUANT8_ASYMM_SIGNED}) {
      SCOPED_TRACE(::testing::Message() << "accumulator " << accumulatorOutput << " rhs type " << rhsType);
      Problem p;
      p.rhsType = rhsType;
      p.rhsZeroPoint = rhsType == ANEURALNETWORKS_TENSOR_QUANT8_ASYMM ? 200 : -1;
      const WeftAccumulatorParams params{p.lhsScale * p.rhsScale};
      std::unique_ptr<Model> model =
          makeMatmulModel(p, accumulatorOutput, accumulatorOutput ? &params : nullptr, sizeof(params));
      ASSERT_EQ(model->finish(), kOk);
      bool supported = false;
      ASSERT_EQ(ANeuralNetworksModel_getSupportedOperationsForDevices(model->get(), &accel, 1, &supported), kOk);
      EXPECT_TRUE(supported);
      Compilation onAccelerator(*model, {accel});
      ASSERT_EQ(onAccelerator.finish(), kOk);
      EXPECT_EQ(run(onAccelerator, p), p.expected());
    }
  }
}

TEST(Extension, TheDeviceValidatesTheOperation) {
  // Each variant breaks one rule of WEFT_MATMUL_INT32; the CPU device then claims no support and
  // compilation fails as for any unsupported operation.
  const WeftAccumulatorParams wrongScale{1.0f};
  const uint8_t shortData[2] = {0, 0};
  struct Variant {
    const char* what;
    Problem problem;
    bool accumulator;
    const void* data;
    size_t length;
  };
  Problem depthMismatch;
  depthMismatch.rhs.resize(depthMismatch.columns * 2);
  Problem floatLhs;
  floatLhs.lhsType = ANEURALNETWORKS_TENSOR_FLOAT32;
  floatLhs.lhsScale = 0.0f;
  floatLhs.lhsZeroPoint = 0;
  floatLhs.lhs.resize(floatLhs.rows * floatLhs.depth * 4);
  const Variant variants[] = {
      {"accumulator scale not lhs.scale * rhs.scale", Problem(), true, &wrongScale, sizeof(wrongScale)},
      {"extension data of the wrong size", Problem(), true, shortData, sizeof(shortData)},
      {"a float input", floatLhs, false, nullptr, 0},
  };
  for (const Variant& v : variants) {
    SCOPED_TRACE(v.what);
    std::unique_ptr<Model> model = makeMatmulModel(v.problem, v.accumulator, v.data, v.length);
    ASSERT_EQ(model->finish(), kOk);  // the runtime leaves extension operations to the devices
    // Both devices judge it by the same rules (the reference kernel's validation).
    for (const ANeuralNetworksDevice* device : {cpuDevice(), acceleratorDevice()}) {
      ASSERT_NE(device, nullptr);
      Compilation compilation(*model, {device});
      EXPECT_EQ(compilation.finish(), kBadData);
      bool supported = true;
      ASSERT_EQ(ANeuralNetworksModel_getSupportedOperationsForDevices(model->get(), &device, 1, &supported), kOk);
      EXPECT_FALSE(supported);
    }
  }
  {
    SCOPED_TRACE("K of lhs and rhs differ");
    Problem p;
    auto model = std::make_unique<Model>();
    const uint32_t lhs = model->addOperand(p.lhsType, {2, 3}, p.lhsScale, p.lhsZeroPoint);
    const uint32_t rhs = model->addOperand(p.rhsType, {4, 5}, p.rhsScale, p.rhsZeroPoint);
    const uint32_t out = model->addOperand(ANEURALNETWORKS_TENSOR_INT32, {2, 4});
    ASSERT_EQ(model->addOperation(matmulType(*model), {lhs, rhs}, {out}), kOk);
    ASSERT_EQ(model->identify({lhs, rhs}, {out}), kOk);
    ASSERT_EQ(model->finish(), kOk);
    Compilation compilation(*model);
    EXPECT_EQ(compilation.finish(), kBadData);
  }
}

TEST(Extension, ExtensionOperandsFollowTheirTypesRules) {
  Model model;
  const int32_t accumulator = accumulatorType(model);
  const uint32_t dims[] = {2, 2};
  const ANeuralNetworksOperandType withScale{accumulator, 2, dims, 0.5f, 0};
  EXPECT_EQ(ANeuralNetworksModel_addOperand(model.get(), &withScale), kBadData);  // no quantization parameters
  const ANeuralNetworksOperandType undefinedCode{accumulator + 7, 2, dims, 0.0f, 0};
  EXPECT_EQ(ANeuralNetworksModel_addOperand(model.get(), &undefinedCode), kBadData);
  const ANeuralNetworksOperandType otherPrefix{accumulator + 0x10000, 2, dims, 0.0f, 0};
  EXPECT_EQ(ANeuralNetworksModel_addOperand(model.get(), &otherPrefix), kBadData);
  const uint32_t tooLarge[] = {65536, 16384};  // 4-byte elements: 4 GiB
  const ANeuralNetworksOperandType overflow{accumulator, 2, tooLarge, 0.0f, 0};
  EXPECT_EQ(ANeuralNetworksModel_addOperand(model.get(), &overflow), kBadData);
  const ANeuralNetworksOperandType valid{accumulator, 2, dims, 0.0f, 0};
  ASSERT_EQ(ANeuralNetworksModel_addOperand(model.get(), &valid), kOk);
  // A constant of the type takes 4 bytes an element.
  const int32_t values[4] = {1, 2, 3, 4};
  EXPECT_EQ(ANeuralNetworksModel_setOperandValue(model.get(), 0, values, 12), kBadData);
  EXPECT_EQ(ANeuralNetworksModel_setOperandValue(model.get(), 0, values, sizeof(values)), kOk);
}

TEST(Extension, SetOperandExtensionData) {
  Model model;
  const uint32_t plain = model.addTensor({2});
  const uint32_t accumulator = model.addOperand(accumulatorType(model), {2});
  const WeftAccumulatorParams params{0.5f};
  EXPECT_EQ(ANeuralNetworksModel_setOperandExtensionData(model.get(), plain, &params, sizeof(params)), kBadData);
  EXPECT_EQ(ANeuralNetworksModel_setOperandExtensionData(model.get(), accumulator, &params, sizeof(params)), kOk);
  EXPECT_EQ(ANeuralNetworksModel_setOperandExtensionData(model.get(), accumulator, nullptr, 0), kOk);  // cleared
  EXPECT_EQ(ANeuralNetworksModel_setOperandExtensionData(model.get(), 2, &params, sizeof(params)), kBadData);
}

TEST(Extension, AnExtensionNoDeviceSupportsHasNoTypes) {
  Model model;
  int32_t operand = -1;
  ANeuralNetworksOperationType operation = -1;
  EXPECT_EQ(ANeuralNetworksModel_getExtensionOperandType(model.get(), "com.example.fibonacci", 0, &operand), kBadData);
  EXPECT_EQ(ANeuralNetworksModel_getExtensionOperationType(model.get(), "com.example.fibonacci", 0, &operation),
            kBadData);
  EXPECT_EQ(operand, -1);
  EXPECT_EQ(operation, -1);
}

TEST(Extension, AnIfBranchMayUseTheExtension) {
  // The branches are models of their own, with their own prefixes; the runtime maps them into the
  // main model's when it flattens them.
  Problem p;
  std::unique_ptr<Model> thenBranch = makeMatmulModel(p, false);
  ASSERT_EQ(thenBranch->finish(), kOk);
  std::unique_ptr<Model> elseBranch = makeMatmulModel(p, false);
  ASSERT_EQ(elseBranch->finish(), kOk);
  Model model;
  const uint32_t condition = model.addOperand(ANEURALNETWORKS_TENSOR_BOOL8, {1});
  const uint32_t lhs = model.addOperand(p.lhsType, {p.rows, p.depth}, p.lhsScale, p.lhsZeroPoint);
  const uint32_t rhs = model.addOperand(p.rhsType, {p.columns, p.depth}, p.rhsScale, p.rhsZeroPoint);
  const uint32_t thenOperand = model.addOperand(ANEURALNETWORKS_MODEL);
  const uint32_t elseOperand = model.addOperand(ANEURALNETWORKS_MODEL);
  const uint32_t out = model.addOperand(ANEURALNETWORKS_TENSOR_INT32, {p.rows, p.columns});
  ASSERT_EQ(ANeuralNetworksModel_setOperandValueFromModel(model.get(), thenOperand, thenBranch->get()), kOk);
  ASSERT_EQ(ANeuralNetworksModel_setOperandValueFromModel(model.get(), elseOperand, elseBranch->get()), kOk);
  ASSERT_EQ(model.addOperation(ANEURALNETWORKS_IF, {condition, thenOperand, elseOperand, lhs, rhs}, {out}), kOk);
  ASSERT_EQ(model.identify({condition, lhs, rhs}, {out}), kOk);
  ASSERT_EQ(model.finish(), kOk);
  Compilation compilation(model);
  ASSERT_EQ(compilation.finish(), kOk);
  Execution execution(compilation);
  const uint8_t yes = 1;
  std::vector<int32_t> result(p.rows * p.columns);
  ASSERT_EQ(ANeuralNetworksExecution_setInput(execution.get(), 0, nullptr, &yes, 1), kOk);
  ASSERT_EQ(ANeuralNetworksExecution_setInput(execution.get(), 1, nullptr, p.lhs.data(), p.lhs.size()), kOk);
  ASSERT_EQ(ANeuralNetworksExecution_setInput(execution.get(), 2, nullptr, p.rhs.data(), p.rhs.size()), kOk);
  ASSERT_EQ(ANeuralNetworksExecution_setOutput(execution.get(), 0, nullptr, result.data(), result.size() * 4), kOk);
  ASSERT_EQ(execution.compute(), kOk);
  EXPECT_EQ(result, p.expected());
}

// This program is not on the allowlist: Android's documented failure, BAD_DATA for any extension
// operand or operation; querying the extension still works.
TEST(ExtensionRefused, AddingExtensionOperandsOrOperationsIsBadData) {
  for (const char* device : {"weft-cpu", "weft-accel"}) {
    SCOPED_TRACE(device);
    ASSERT_NE(findDevice(device), nullptr);
    bool supported = false;
    ASSERT_EQ(ANeuralNetworksDevice_getExtensionSupport(findDevice(device), WEFT_EXTENSION_NAME, &supported), kOk);
    EXPECT_TRUE(supported);
  }
  Model model;
  const int32_t accumulator = accumulatorType(model);
  const ANeuralNetworksOperationType matmul = matmulType(model);
  const uint32_t dims[] = {2, 2};
  const ANeuralNetworksOperandType type{accumulator, 2, dims, 0.0f, 0};
  EXPECT_EQ(ANeuralNetworksModel_addOperand(model.get(), &type), kBadData);
  const uint32_t a = model.addOperand(ANEURALNETWORKS_TENSOR_QUANT8_ASYMM, {2, 2}, 0.5f, 0);
  const uint32_t b = model.addOperand(ANEURALNETWORKS_TENSOR_QUANT8_ASYMM, {2, 2}, 0.5f, 0);
  const uint32_t out = model.addOperand(ANEURALNETWORKS_TENSOR_INT32, {2, 2});
  EXPECT_EQ(model.addOperation(matmul, {a, b}, {out}), kBadData);
  // The refused operand was not added: the model has operands 0..2 only.
  const int32_t value[4] = {};
  EXPECT_EQ(ANeuralNetworksModel_setOperandValue(model.get(), 3, value, sizeof(value)), kBadData);
  EXPECT_EQ(ANeuralNetworksModel_setOperandValue(model.get(), out, value, sizeof(value)), kOk);
}

}  // namespace
}  // namespace weft::test
