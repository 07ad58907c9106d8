// BATCH_MATMUL: one matrix product per batch index over the last two dimensions,
//   output[..., i, j] = sum_k lhs'[..., i, k] * rhs'[..., k, j]
// where lhs' / rhs' are the inputs transposed in their last two dimensions when adj_x / adj_y is
// set. Both inputs have one type and one rank (2 to 4) and equal batch dimensions. Types: float32,
// float16 (accumulated in float32), int32 (wrapping), quant8 asymm signed (int32 accumulator
// requantized by lhs.scale * rhs.scale / output.scale as TFLite does).
#include <algorithm>
#include <cstdint>
#include <vector>

#include "DotProduct.h"
#include "TensorOpUtils.h"
#include "weft/kernels/Float16.h"
#include "weft/kernels/QuantUtils.h"

namespace weft::nn::batch_matmul {

constexpr uint32_t kLhs = 0;
constexpr uint32_t kRhs = 1;
constexpr uint32_t kAdjX = 2;
constexpr uint32_t kAdjY = 3;
constexpr uint32_t kOutput = 0;

namespace {

// The problem: `batches` products of an m x k by a k x n matrix, with the element strides of
// each operand's rows and columns (which the adjoint flags swap).
struct Geometry {
  size_t batches = 1;
  uint32_t m = 0, k = 0, n = 0;
  size_t lhsRowStride = 0, lhsColStride = 0, rhsRowStride = 0, rhsColStride = 0;
  Dimensions outputDimensions;
};

Result<Geometry> readGeometry(const IOperationExecutionContext* context) {
  const Dimensions& lhs = context->getInputShape(kLhs).dimensions;
  const Dimensions& rhs = context->getInputShape(kRhs).dimensions;
  const size_t rank = lhs.size();
  NN_RET_CHECK(rank >= 2 && rank <= 4) << "inputs must have rank 2 to 4, got " << rank;
  NN_RET_CHECK_EQ(rhs.size(), rank) << "LHS and RHS ranks differ";
  Geometry g;
  for (size_t d = 0; d + 2 < rank; ++d) {
    NN_RET_CHECK_EQ(lhs[d], rhs[d]) << "batch dimension " << d << " differs: " << toString(lhs) << " vs "
                                    << toString(rhs);
    g.batches *= lhs[d];
  }
  const bool adjX = context->getInputValue<uint8_t>(kAdjX) != 0;
  const bool adjY = context->getInputValue<uint8_t>(kAdjY) != 0;
  const uint32_t lhsRows = lhs[rank - 2], lhsCols = lhs[rank - 1];
  const uint32_t rhsRows = rhs[rank - 2], rhsCols = rhs[rank - 1];
  g.m = adjX ? lhsCols : lhsRows;
  g.k = adjX ? lhsRows : lhsCols;
  g.n = adjY ? rhsRows : rhsCols;
  const uint32_t rhsK = adjY ? rhsCols : rhsRows;
  NN_RET_CHECK(g.m > 0 && g.k > 0 && g.n > 0) << "empty matrix";
  NN_RET_CHECK_EQ(g.k, rhsK) << "inner dimensions differ: " << toString(lhs) << (adjX ? " (adjoint)" : "") << " x "
                             << toString(rhs) << (adjY ? " (adjoint)" : "");
  g.lhsRowStride = adjX ? 1 : lhsCols;
  g.lhsColStride = adjX ? lhsCols : 1;
  g.rhsRowStride = adjY ? 1 : rhsCols;
  g.rhsColStride = adjY ? rhsCols : 1;
  g.outputDimensions = lhs;
  g.outputDimensions[rank - 2] = g.m;
  g.outputDimensions[rank - 1] = g.n;
  return g;
}

// For each output element: finish(batch, i, j, sum_k term(lhsElement, rhsElement)), with the
// terms accumulated in Acc in ascending k.
template <typename In, typename Acc, typename Term, typename Finish>
void matmul(const In* lhs, const In* rhs, const Geometry& g, Term term, Finish finish) {
  const size_t lhsSize = size_t{g.m} * g.k, rhsSize = size_t{g.k} * g.n;
  for (size_t b = 0; b < g.batches; ++b) {
    const In* l = lhs + b * lhsSize;
    const In* r = rhs + b * rhsSize;
    for (uint32_t i = 0; i < g.m; ++i) {
      for (uint32_t j = 0; j < g.n; ++j) {
        Acc acc = 0;
        for (uint32_t k = 0; k < g.k; ++k) {
          acc += term(l[i * g.lhsRowStride + k * g.lhsColStride], r[k * g.rhsRowStride + j * g.rhsColStride]);
        }
        finish((b * g.m + i) * g.n + j, acc);
      }
    }
  }
}

void matmulFloat(const float* lhs, const float* rhs, const Geometry& g, float* out) {
  matmul<float, float>(
      lhs, rhs, g, [](float a, float b) { return a * b; }, [out](size_t o, float acc) { out[o] = acc; });
}

Status matmulQuant(IOperationExecutionContext* context, const Geometry& g) {
  const Shape lhs = context->getInputShape(kLhs), rhs = context->getInputShape(kRhs);
  const Shape output = context->getOutputShape(kOutput);
  int32_t multiplier = 0;
  int shift = 0;
  NN_TRY(quantizeMultiplier(static_cast<double>(lhs.scale) * rhs.scale / output.scale, &multiplier, &shift));
  const int32_t lhsZero = lhs.offset, rhsZero = rhs.offset, outputZero = output.offset;
  int8_t* out = context->getOutputBuffer<int8_t>(kOutput);
  // TFLite accumulates in int32; an int64 accumulator saturated to int32 gives the same result
  // whenever that does not overflow, and a defined one when it would. Each batch's operands are
  // first copied zero-point-adjusted to int16, lhs as rows of K and rhs as columns of K, so that
  // the inner loop is a contiguous widening dot product; it sums in int32 over chunks short
  // enough not to overflow (32768 products of at most 255 x 255), each added to the int64 total.
  constexpr uint32_t kChunk = 32768;
  const int8_t* lhsData = context->getInputBuffer<int8_t>(kLhs);
  const int8_t* rhsData = context->getInputBuffer<int8_t>(kRhs);
  const size_t lhsSize = size_t{g.m} * g.k, rhsSize = size_t{g.k} * g.n;
  std::vector<int16_t> l(lhsSize), r(rhsSize);
  for (size_t b = 0; b < g.batches; ++b) {
    const int8_t* lb = lhsData + b * lhsSize;
    const int8_t* rb = rhsData + b * rhsSize;
    for (uint32_t i = 0; i < g.m; ++i) {
      for (uint32_t k = 0; k < g.k; ++k) {
        l[size_t{i} * g.k + k] = static_cast<int16_t>(lb[i * g.lhsRowStride + k * g.lhsColStride] - lhsZero);
      }
    }
    for (uint32_t j = 0; j < g.n; ++j) {
      for (uint32_t k = 0; k < g.k; ++k) {
        r[size_t{j} * g.k + k] = static_cast<int16_t>(rb[k * g.rhsRowStride + j * g.rhsColStride] - rhsZero);
      }
    }
    for (uint32_t i = 0; i < g.m; ++i) {
      const int16_t* row = l.data() + size_t{i} * g.k;
      for (uint32_t j = 0; j < g.n; ++j) {
        const int16_t* column = r.data() + size_t{j} * g.k;
        int64_t acc = 0;
        for (uint32_t k0 = 0; k0 < g.k; k0 += kChunk) {
          const uint32_t k1 = std::min(g.k, k0 + kChunk);
          acc += dotProduct(row + k0, column + k0, k1 - k0);
        }
        const auto acc32 = static_cast<int32_t>(std::clamp<int64_t>(acc, INT32_MIN, INT32_MAX));
        out[(b * g.m + i) * g.n + j] =
            saturateCast<int8_t>(multiplyByQuantizedMultiplier(acc32, multiplier, shift) + outputZero);
      }
    }
  }
  return {};
}

}  // namespace

Status validate(const IOperationValidationContext* context) {
  NN_TRY(validateInputCount(context, 4, 4));
  NN_TRY(validateOutputCount(context, 1));
  const OperandType type = context->getInputType(kLhs);
  NN_TRY(validateTypeIsOneOf(context, "input", type,
                             {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16, OperandType::TENSOR_INT32,
                              OperandType::TENSOR_QUANT8_ASYMM_SIGNED}));
  NN_TRY(validateInputTypes(context, {type, type, OperandType::BOOL, OperandType::BOOL}));
  NN_TRY(validateOutputTypes(context, {type}));
  NN_TRY(validateInputRank(context, kLhs, 2, 4));
  NN_TRY(validateInputRank(context, kRhs, 2, 4));
  uint32_t lhsRank = 0, rhsRank = 0;
  if (knownRank(context->getInputShape(kLhs), &lhsRank) && knownRank(context->getInputShape(kRhs), &rhsRank)) {
    NN_RET_CHECK_EQ(lhsRank, rhsRank) << "BATCH_MATMUL: LHS and RHS ranks differ";
  }
  return {};
}

Status prepare(IOperationExecutionContext* context) {
  auto g = readGeometry(context);
  if (!g.ok()) return g.error();
  Shape output = context->getOutputShape(kOutput);
  output.dimensions = g->outputDimensions;
  return context->setOutputShape(kOutput, output);
}

Status execute(IOperationExecutionContext* context) {
  auto g = readGeometry(context);
  if (!g.ok()) return g.error();
  switch (context->getInputType(kLhs)) {
    case OperandType::TENSOR_FLOAT32:
      matmulFloat(context->getInputBuffer<float>(kLhs), context->getInputBuffer<float>(kRhs), *g,
                  context->getOutputBuffer<float>(kOutput));
      return {};
    case OperandType::TENSOR_FLOAT16: {
      const auto lhs = toFloat32(context->getInputBuffer<Float16>(kLhs), getNumberOfElements(context->getInputShape(kLhs)));
      const auto rhs = toFloat32(context->getInputBuffer<Float16>(kRhs), getNumberOfElements(context->getInputShape(kRhs)));
      std::vector<float> out(numberOfElements(g->outputDimensions));
      matmulFloat(lhs.data(), rhs.data(), *g, out.data());
      fromFloat32(out.data(), out.size(), context->getOutputBuffer<Float16>(kOutput));
      return {};
    }
    case OperandType::TENSOR_INT32: {
      // Accumulated modulo 2^32: int32 overflow wraps as on the hardware instead of being undefined.
      int32_t* out = context->getOutputBuffer<int32_t>(kOutput);
      matmul<int32_t, uint32_t>(
          context->getInputBuffer<int32_t>(kLhs), context->getInputBuffer<int32_t>(kRhs), *g,
          [](int32_t a, int32_t b) { return static_cast<uint32_t>(static_cast<int64_t>(a) * b); },
          [out](size_t o, uint32_t acc) { out[o] = static_cast<int32_t>(acc); });
      return {};
    }
    case OperandType::TENSOR_QUANT8_ASYMM_SIGNED:
      return matmulQuant(context, *g);
    default:
      return NN_ERROR(BAD_DATA) << "unsupported type " << toString(context->getInputType(kLhs));
  }
}

}  // namespace weft::nn::batch_matmul

NN_REGISTER_OPERATION(BATCH_MATMUL, "BATCH_MATMUL", batch_matmul::validate, batch_matmul::prepare,
                      batch_matmul::execute)
