// Shape checks and shape inference shared by the element-wise, comparison, logical, reduction and
// lookup operations (Abs.cpp ... Select.cpp, Reduction.cpp, ArgMinMax.cpp, the lookups).
//
// At validation a declared shape may be partly unknown: 0 in a dimension means "unspecified" and a
// tensor with no dimensions has an unknown rank. The checks below reject only what is certainly
// inconsistent; prepare() sees actual shapes and checks the rest.
#pragma once

#include <cstdint>
#include <optional>

#include "weft/kernels/OperationResolver.h"

namespace weft::nn::elementwise {

// Declared dimensions (0 = unknown), or nullopt when the rank is unknown.
using DeclaredDims = std::optional<Dimensions>;
DeclaredDims declaredDims(const Shape& shape);

// BAD_DATA when `a` and `b` cannot describe the same shape (different known ranks, or a dimension
// known on both sides with different values). `what` names the pair in the message.
Status checkSameDims(const char* what, const DeclaredDims& a, const DeclaredDims& b);

// The NumPy-style broadcast of two declared shapes, with 0 where the result is not yet known;
// BAD_DATA when two known dimensions are neither equal nor 1.
Result<DeclaredDims> broadcastDeclared(const DeclaredDims& a, const DeclaredDims& b);

// BAD_DATA when the declared shape of output `index` contradicts `expected`.
Status checkOutputDims(const IOperationValidationContext* context, uint32_t index, const DeclaredDims& expected);

// For quantized types: `b` has the scale and zero point of `a` (operations that only move or select
// values, whose output NNAPI defines with the input's quantization).
Status checkSameQuantization(const char* what, const Shape& a, const Shape& b);

// prepare(): output `output` takes the dimensions of input `input` (keeping its declared type and
// quantization).
Status prepareSameShape(IOperationExecutionContext* context, uint32_t input, uint32_t output);

// prepare(): output `output` takes the broadcast of inputs `a` and `b`.
Status prepareBroadcast(IOperationExecutionContext* context, uint32_t a, uint32_t b, uint32_t output);

// The output of the row lookups (EMBEDDING_LOOKUP, HASHTABLE_LOOKUP): the values' dimensions with
// the row count replaced by the number of lookups (lookups 1-D, values of rank 1 or more).
Dimensions lookupOutputDimensions(const Dimensions& lookups, const Dimensions& values);

// Unary operations are the most common case: one input, one output of the same shape.
Status validateUnaryShapes(const IOperationValidationContext* context);

// Binary broadcasting operations: inputs 0 and 1 broadcast to output 0.
Status validateBroadcastShapes(const IOperationValidationContext* context);

}  // namespace weft::nn::elementwise
