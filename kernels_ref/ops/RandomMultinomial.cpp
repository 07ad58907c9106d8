// RANDOM_MULTINOMIAL: draws `sample_count` class indexes per batch row from the categorical
// distribution softmax(logits row). Logits are 2-D [batches, classes], float32 or float16; the two
// TENSOR_INT32 seeds make the draws reproducible. As in NNAPI's reference, non-finite logits are
// skipped (probability 0) and each draw inverts the cumulative sums of exp(logit - max) in double.
// The random stream is SplitMix64 rather than TensorFlow's Philox, so individual draws differ from
// the reference's while following the same distribution (which is all NNAPI specifies and checks).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "ElementwiseShapes.h"
#include "weft/kernels/Float16.h"
#include "weft/kernels/OperationUtils.h"

namespace weft::nn::random_multinomial_op {

constexpr uint32_t kLogits = 0;
constexpr uint32_t kSampleCount = 1;
constexpr uint32_t kSeeds = 2;
constexpr uint32_t kOutput = 0;

namespace {

// SplitMix64 (Steele, Lea, Flood 2014): a small generator with good statistical quality.
class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}
  uint64_t next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  // Uniform in [0, 1) with 53 random bits.
  double nextDouble() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

 private:
  uint64_t state_;
};

Status sample(const float* logits, uint32_t batches, uint32_t classes, int32_t samples, uint64_t seed,
              int32_t* out) {
  SplitMix64 random(seed);
  std::vector<double> cdf(classes);
  for (uint32_t b = 0; b < batches; ++b) {
    const float* row = logits + size_t{b} * classes;
    float max = std::numeric_limits<float>::lowest();
    for (uint32_t j = 0; j < classes; ++j) {
      if (std::isfinite(row[j])) max = std::max(max, row[j]);
    }
    double total = 0.0;
    for (uint32_t j = 0; j < classes; ++j) {
      if (std::isfinite(row[j])) total += std::exp(static_cast<double>(row[j]) - max);
      cdf[j] = total;
    }
    NN_RET_CHECK(total > 0.0) << "batch " << b << " has no finite logit";
    for (int32_t s = 0; s < samples; ++s) {
      const double target = random.nextDouble() * total;
      // target < total = cdf.back(), so a class is always found.
      const auto found = std::upper_bound(cdf.begin(), cdf.end(), target);
      out[size_t{b} * samples + s] = static_cast<int32_t>(std::min<ptrdiff_t>(found - cdf.begin(), classes - 1));
    }
  }
  return {};
}

}  // namespace

Status validate(const IOperationValidationContext* context) {
  NN_TRY(validateInputCount(context, 3, 3));
  NN_TRY(validateOutputCount(context, 1));
  const OperandType type = context->getInputType(kLogits);
  NN_TRY(validateTypeIsOneOf(context, "input", type, {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16}));
  NN_TRY(validateInputTypes(context, {type, OperandType::INT32, OperandType::TENSOR_INT32}));
  NN_TRY(validateOutputTypes(context, {OperandType::TENSOR_INT32}));
  NN_TRY(validateInputRank(context, kLogits, 2, 2));
  NN_TRY(validateInputRank(context, kSeeds, 1, 1));
  const Shape seeds = context->getInputShape(kSeeds);
  if (!hasUnknownRank(seeds)) {
    NN_RET_CHECK(seeds.dimensions[0] == 0 || seeds.dimensions[0] == 2) << "seeds must have 2 elements";
  }
  int32_t samples = 0;
  if (!getConstantScalar(context, kSampleCount, &samples)) return {};
  NN_RET_CHECK_GT(samples, 0) << "sample count must be positive";
  const Shape logits = context->getInputShape(kLogits);
  if (hasUnknownRank(logits)) return {};
  return elementwise::checkOutputDims(context, kOutput,
                                      Dimensions{logits.dimensions[0], static_cast<uint32_t>(samples)});
}

Status prepare(IOperationExecutionContext* context) {
  const Shape logits = context->getInputShape(kLogits), seeds = context->getInputShape(kSeeds);
  NN_RET_CHECK_EQ(getNumberOfDimensions(logits), 2u) << "logits must be 2-D";
  NN_RET_CHECK(getNumberOfDimensions(seeds) == 1 && seeds.dimensions[0] == 2) << "seeds must have shape [2]";
  const int32_t samples = context->getInputValue<int32_t>(kSampleCount);
  NN_RET_CHECK_GT(samples, 0) << "sample count must be positive";
  Shape out = context->getOutputShape(kOutput);
  out.dimensions = {logits.dimensions[0], static_cast<uint32_t>(samples)};
  return context->setOutputShape(kOutput, out);
}

Status execute(IOperationExecutionContext* context) {
  const Shape logits = context->getInputShape(kLogits);
  const int32_t* seeds = context->getInputBuffer<int32_t>(kSeeds);
  const uint64_t seed = uint64_t{static_cast<uint32_t>(seeds[0])} << 32 | static_cast<uint32_t>(seeds[1]);
  const int32_t samples = context->getInputValue<int32_t>(kSampleCount);
  int32_t* out = context->getOutputBuffer<int32_t>(kOutput);
  const uint32_t batches = logits.dimensions[0], classes = logits.dimensions[1];
  if (logits.type == OperandType::TENSOR_FLOAT16) {
    const auto values = toFloat32(context->getInputBuffer<Float16>(kLogits), getNumberOfElements(logits));
    return sample(values.data(), batches, classes, samples, seed, out);
  }
  return sample(context->getInputBuffer<float>(kLogits), batches, classes, samples, seed, out);
}

}  // namespace weft::nn::random_multinomial_op

NN_REGISTER_OPERATION(RANDOM_MULTINOMIAL, "RANDOM_MULTINOMIAL", random_multinomial_op::validate,
                      random_multinomial_op::prepare, random_multinomial_op::execute)
