// LSH_PROJECTION: projects each input row onto hyperplanes given by hash seeds. For seed j of hash
// function i, each input row r (its raw bytes) is fingerprinted together with the seed (as a
// float32), and the bit is the sign of sum_r weight[r] * fingerprint (weight 1 when the optional
// weight tensor is omitted).
//   SPARSE (3) and SPARSE_DEPRECATED (1): one int32 per hash function, its bits packed (SPARSE adds
//     i * 2^numBits so every function has its own range); output [numHash].
//   DENSE (2): every bit as an int32 0/1; output [numHash * numBits].
// hash: 2-D [numHash, numBits <= 32], float32 or float16; weight (optional): 1-D, the hash's type,
// one per input row; input: rank >= 1, float32, float16, int32 or quant8 asymm.
#include <cstdint>
#include <cstring>
#include <vector>

#include "ElementwiseShapes.h"
#include "FarmHash.h"
#include "weft/kernels/Float16.h"
#include "weft/kernels/OperationUtils.h"

namespace weft::nn::lsh_projection_op {

constexpr uint32_t kHash = 0;
constexpr uint32_t kInput = 1;
constexpr uint32_t kWeight = 2;
constexpr uint32_t kType = 3;
constexpr uint32_t kOutput = 0;
constexpr uint32_t kMaxBits = 32;

enum class ProjectionType : int32_t { SPARSE_DEPRECATED = 1, DENSE = 2, SPARSE = 3 };

namespace {

bool isProjectionType(int32_t t) { return t >= 1 && t <= 3; }

// allowOmittedOperand lets any input be omitted; only the weight may be.
template <typename Context>
Status checkRequiredInputsPresent(const Context* context) {
  for (uint32_t i : {kHash, kInput, kType}) {
    NN_RET_CHECK(!context->isOmittedInput(i)) << "input " << i << " is required";
  }
  return {};
}

Dimensions outputDimensions(ProjectionType type, uint32_t numHash, uint32_t numBits) {
  return {type == ProjectionType::DENSE ? numHash * numBits : numHash};
}

// The sign bit of sum_r weight[r] * fingerprint(seed, row r), accumulated in double as the
// reference does.
template <typename T>
int32_t signBit(float seed, const uint8_t* input, uint32_t rows, size_t rowBytes, const T* weight,
                std::vector<uint8_t>& key) {
  double score = 0.0;
  for (uint32_t r = 0; r < rows; ++r) {
    std::memcpy(key.data(), &seed, sizeof(seed));
    std::memcpy(key.data() + sizeof(seed), input + r * rowBytes, rowBytes);
    const auto fingerprint = static_cast<int64_t>(farmhash::fingerprint64(key.data(), key.size()));
    const double value = static_cast<double>(fingerprint);
    score += weight == nullptr ? value : static_cast<double>(weight[r]) * value;
  }
  return score > 0 ? 1 : 0;
}

template <typename T>
void project(IOperationExecutionContext* context, ProjectionType type) {
  const Shape hashShape = context->getInputShape(kHash);
  const Shape input = context->getInputShape(kInput);
  const uint32_t numHash = hashShape.dimensions[0], numBits = hashShape.dimensions[1];
  const uint32_t rows = input.dimensions[0];
  const size_t rowBytes = sizeOfData(input.type, input.dimensions) / rows;
  const T* seeds = context->getInputBuffer<T>(kHash);
  const T* weight = context->isOmittedInput(kWeight) ? nullptr : context->getInputBuffer<T>(kWeight);
  const auto* in = static_cast<const uint8_t*>(context->getInputBuffer(kInput));
  int32_t* out = context->getOutputBuffer<int32_t>(kOutput);
  std::vector<uint8_t> key(sizeof(float) + rowBytes);
  for (uint32_t i = 0; i < numHash; ++i) {
    uint32_t signature = 0;  // unsigned: 32 bits shift out without overflow
    for (uint32_t j = 0; j < numBits; ++j) {
      const float seed = static_cast<float>(seeds[i * numBits + j]);
      const int32_t bit = signBit(seed, in, rows, rowBytes, weight, key);
      if (type == ProjectionType::DENSE) {
        *out++ = bit;
      } else {
        signature = (signature << 1) | static_cast<uint32_t>(bit);
      }
    }
    if (type == ProjectionType::SPARSE) signature += static_cast<uint32_t>(uint64_t{i} << numBits);
    if (type != ProjectionType::DENSE) *out++ = static_cast<int32_t>(signature);
  }
}

}  // namespace

Status validate(const IOperationValidationContext* context) {
  NN_TRY(validateInputCount(context, 4, 4));
  NN_TRY(validateOutputCount(context, 1));
  NN_TRY(checkRequiredInputsPresent(context));
  const OperandType hashType = context->getInputType(kHash);
  NN_TRY(validateTypeIsOneOf(context, "hash", hashType, {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16}));
  const OperandType inputType = context->getInputType(kInput);
  NN_TRY(validateTypeIsOneOf(context, "input", inputType,
                             {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16, OperandType::TENSOR_INT32,
                              OperandType::TENSOR_QUANT8_ASYMM}));
  NN_TRY(validateInputTypes(context, {hashType, inputType, hashType, OperandType::INT32}));
  NN_TRY(validateOutputTypes(context, {OperandType::TENSOR_INT32}));
  NN_TRY(validateInputRank(context, kHash, 2, 2));
  NN_TRY(validateInputRank(context, kInput, 1, UINT32_MAX));
  const Shape hash = context->getInputShape(kHash), input = context->getInputShape(kInput);
  if (!hasUnknownRank(hash)) {
    NN_RET_CHECK_LE(hash.dimensions[1], kMaxBits) << "at most 32 bits per hash function";
  }
  if (!context->isOmittedInput(kWeight)) {
    NN_TRY(validateInputRank(context, kWeight, 1, 1));
    const Shape weight = context->getInputShape(kWeight);
    if (!hasUnknownRank(weight) && !hasUnknownRank(input)) {
      using elementwise::DeclaredDims;
      NN_TRY(elementwise::checkSameDims("weight and input rows", DeclaredDims{Dimensions{weight.dimensions[0]}},
                                        DeclaredDims{Dimensions{input.dimensions[0]}}));
    }
  }
  int32_t type = 0;
  if (!getConstantScalar(context, kType, &type)) return {};
  NN_RET_CHECK(isProjectionType(type)) << "unknown projection type " << type;
  if (hasUnknownRank(hash) || hash.dimensions[0] == 0 || hash.dimensions[1] == 0) return {};
  return elementwise::checkOutputDims(
      context, kOutput,
      outputDimensions(static_cast<ProjectionType>(type), hash.dimensions[0], hash.dimensions[1]));
}

Status prepare(IOperationExecutionContext* context) {
  NN_TRY(checkRequiredInputsPresent(context));
  const Shape hash = context->getInputShape(kHash), input = context->getInputShape(kInput);
  NN_RET_CHECK_EQ(getNumberOfDimensions(hash), 2u) << "hash must be 2-D";
  NN_RET_CHECK_LE(hash.dimensions[1], kMaxBits) << "at most 32 bits per hash function";
  NN_RET_CHECK_GE(getNumberOfDimensions(input), 1u) << "input must have rank >= 1";
  if (!context->isOmittedInput(kWeight)) {
    const Shape weight = context->getInputShape(kWeight);
    NN_RET_CHECK_EQ(getNumberOfDimensions(weight), 1u) << "weight must be 1-D";
    NN_RET_CHECK_EQ(weight.dimensions[0], input.dimensions[0]) << "one weight per input row";
  }
  const int32_t type = context->getInputValue<int32_t>(kType);
  NN_RET_CHECK(isProjectionType(type)) << "unknown projection type " << type;
  Shape out = context->getOutputShape(kOutput);
  out.dimensions = outputDimensions(static_cast<ProjectionType>(type), hash.dimensions[0], hash.dimensions[1]);
  return context->setOutputShape(kOutput, out);
}

Status execute(IOperationExecutionContext* context) {
  const auto type = static_cast<ProjectionType>(context->getInputValue<int32_t>(kType));
  NN_RET_CHECK_GT(context->getInputShape(kInput).dimensions[0], 0u) << "input has no rows";
  if (context->getInputType(kHash) == OperandType::TENSOR_FLOAT16) {
    project<Float16>(context, type);
  } else {
    project<float>(context, type);
  }
  return {};
}

}  // namespace weft::nn::lsh_projection_op

NN_REGISTER_OPERATION(LSH_PROJECTION, "LSH_PROJECTION", lsh_projection_op::validate, lsh_projection_op::prepare,
                      lsh_projection_op::execute, .allowOmittedOperand = true)
