// Operand type -> C++ element type, and dispatch of a generic lambda over the element type of a
// tensor, so one templated kernel serves every type an operation supports:
//
//   return dispatchTensorType(context->getInputType(0), [&](auto tag) -> Status {
//     using T = typename decltype(tag)::type;
//     ...
//   });
#pragma once

#include <cstdint>

#include "weft/kernels/Float16.h"
#include "weft/nn/Result.h"
#include "weft/nn/Types.h"

namespace weft::nn {

template <typename T>
struct TypeTag {
  using type = T;
};

// Element type of each tensor type (TENSOR_BOOL8 elements are bytes, non-zero = true).
template <OperandType>
struct ElementType;
template <> struct ElementType<OperandType::TENSOR_FLOAT32> { using type = float; };
template <> struct ElementType<OperandType::TENSOR_FLOAT16> { using type = Float16; };
template <> struct ElementType<OperandType::TENSOR_INT32> { using type = int32_t; };
template <> struct ElementType<OperandType::TENSOR_QUANT8_ASYMM> { using type = uint8_t; };
template <> struct ElementType<OperandType::TENSOR_QUANT8_ASYMM_SIGNED> { using type = int8_t; };
template <> struct ElementType<OperandType::TENSOR_QUANT8_SYMM> { using type = int8_t; };
template <> struct ElementType<OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL> { using type = int8_t; };
template <> struct ElementType<OperandType::TENSOR_QUANT16_ASYMM> { using type = uint16_t; };
template <> struct ElementType<OperandType::TENSOR_QUANT16_SYMM> { using type = int16_t; };
template <> struct ElementType<OperandType::TENSOR_BOOL8> { using type = uint8_t; };

// Calls f(TypeTag<T>{}) with T the element type of `type`; BAD_DATA for a non-tensor type.
template <typename F>
Status dispatchTensorType(OperandType type, F&& f) {
  switch (type) {
#define WEFT_DISPATCH_CASE(t) \
  case OperandType::t:        \
    return f(TypeTag<ElementType<OperandType::t>::type>{});
    WEFT_DISPATCH_CASE(TENSOR_FLOAT32)
    WEFT_DISPATCH_CASE(TENSOR_FLOAT16)
    WEFT_DISPATCH_CASE(TENSOR_INT32)
    WEFT_DISPATCH_CASE(TENSOR_QUANT8_ASYMM)
    WEFT_DISPATCH_CASE(TENSOR_QUANT8_ASYMM_SIGNED)
    WEFT_DISPATCH_CASE(TENSOR_QUANT8_SYMM)
    WEFT_DISPATCH_CASE(TENSOR_QUANT8_SYMM_PER_CHANNEL)
    WEFT_DISPATCH_CASE(TENSOR_QUANT16_ASYMM)
    WEFT_DISPATCH_CASE(TENSOR_QUANT16_SYMM)
    WEFT_DISPATCH_CASE(TENSOR_BOOL8)
#undef WEFT_DISPATCH_CASE
    default:
      return NN_ERROR(BAD_DATA) << "no tensor element type for " << toString(type);
  }
}

}  // namespace weft::nn
