#include "ElementwiseShapes.h"

#include <algorithm>

#include "weft/kernels/Broadcast.h"
#include "weft/kernels/OperationUtils.h"

namespace weft::nn::elementwise {

DeclaredDims declaredDims(const Shape& shape) {
  if (hasUnknownRank(shape)) return std::nullopt;
  return shape.dimensions;
}

Status checkSameDims(const char* what, const DeclaredDims& a, const DeclaredDims& b) {
  if (!a || !b) return {};
  NN_RET_CHECK_EQ(a->size(), b->size()) << what << ": ranks differ, " << toString(*a) << " vs " << toString(*b);
  for (size_t i = 0; i < a->size(); ++i) {
    const uint32_t da = (*a)[i], db = (*b)[i];
    NN_RET_CHECK(da == 0 || db == 0 || da == db)
        << what << ": shapes differ, " << toString(*a) << " vs " << toString(*b);
  }
  return {};
}

Result<DeclaredDims> broadcastDeclared(const DeclaredDims& a, const DeclaredDims& b) {
  if (!a || !b) return DeclaredDims{};
  const size_t rank = std::max(a->size(), b->size());
  Dimensions out(rank, 0);
  for (size_t i = 0; i < rank; ++i) {
    // Aligned from the right; a missing leading dimension acts as 1.
    const uint32_t da = i < a->size() ? (*a)[a->size() - 1 - i] : 1;
    const uint32_t db = i < b->size() ? (*b)[b->size() - 1 - i] : 1;
    uint32_t d = 0;
    if (da != 0 && db != 0) {
      NN_RET_CHECK(da == db || da == 1 || db == 1)
          << "shapes " << toString(*a) << " and " << toString(*b) << " do not broadcast";
      d = std::max(da, db);
    } else {
      // One side unknown: it must be 1 or equal the other, so a known size > 1 decides.
      const uint32_t known = std::max(da, db);
      d = known > 1 ? known : 0;
    }
    out[rank - 1 - i] = d;
  }
  return DeclaredDims{std::move(out)};
}

Status checkOutputDims(const IOperationValidationContext* context, uint32_t index, const DeclaredDims& expected) {
  return checkSameDims("output shape", declaredDims(context->getOutputShape(index)), expected);
}

Status checkSameQuantization(const char* what, const Shape& a, const Shape& b) {
  if (!isQuantized(a.type) || !isQuantized(b.type)) return {};
  NN_RET_CHECK(a.scale == b.scale && a.offset == b.offset)
      << what << ": quantization (" << b.scale << ", " << b.offset << ") must equal (" << a.scale << ", "
      << a.offset << ")";
  return {};
}

Status prepareSameShape(IOperationExecutionContext* context, uint32_t input, uint32_t output) {
  Shape out = context->getOutputShape(output);
  out.dimensions = context->getInputShape(input).dimensions;
  return context->setOutputShape(output, out);
}

Status prepareBroadcast(IOperationExecutionContext* context, uint32_t a, uint32_t b, uint32_t output) {
  auto dims = broadcastDimensions(context->getInputShape(a).dimensions, context->getInputShape(b).dimensions);
  if (!dims.ok()) return dims.error();
  Shape out = context->getOutputShape(output);
  out.dimensions = std::move(dims).value();
  return context->setOutputShape(output, out);
}

Status validateUnaryShapes(const IOperationValidationContext* context) {
  return checkOutputDims(context, 0, declaredDims(context->getInputShape(0)));
}

Status validateBroadcastShapes(const IOperationValidationContext* context) {
  auto dims = broadcastDeclared(declaredDims(context->getInputShape(0)), declaredDims(context->getInputShape(1)));
  if (!dims.ok()) return dims.error();
  return checkOutputDims(context, 0, *dims);
}

Dimensions lookupOutputDimensions(const Dimensions& lookups, const Dimensions& values) {
  Dimensions out = values;
  out[0] = lookups[0];
  return out;
}

}  // namespace weft::nn::elementwise
