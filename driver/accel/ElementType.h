// The type of the values a layer reads or writes, as the hardware sees them. One enumerator per
// encoding the datapaths know: a new type (int16, bfloat16, fp8 ...) is one more enumerator and
// its answers below, and every stage that asks these questions follows.
#pragma once

#include <cstdint>

#include "weft/hw/generated.h"

namespace weft::accel {

enum class ElementType : uint8_t {
  kQuant8Asymm,        // uint8 with a zero point (TENSOR_QUANT8_ASYMM)
  kQuant8AsymmSigned,  // int8 with a zero point (TENSOR_QUANT8_ASYMM_SIGNED, per-channel filters)
  kFloat16,            // binary16 (TENSOR_FLOAT16, or float32 relaxed to it): the fp16 datapath
  kInt32Raw,           // the array's int32 accumulators stored as they are (STORE raw32)
};

// Bytes one value takes in DRAM and in a scratchpad row (an fp16 value is two lanes' bytes).
constexpr uint32_t bytesPerElement(ElementType t) {
  switch (t) {
    case ElementType::kQuant8Asymm:
    case ElementType::kQuant8AsymmSigned:
      return 1;
    case ElementType::kFloat16:
      return 2;
    case ElementType::kInt32Raw:
      return 4;
  }
  return 1;
}

// Whether the hardware reads the value as a signed integer: the commands' signedness flags
// (GEMM in_signed / w_signed, WINDOW, ELTWISE). A float is not an integer, so false.
constexpr bool isSignedInteger(ElementType t) {
  return t == ElementType::kQuant8AsymmSigned || t == ElementType::kInt32Raw;
}

constexpr bool isFloat(ElementType t) { return t == ElementType::kFloat16; }

// The 8-bit quantized type of the given signedness.
constexpr ElementType quant8(bool isSigned) {
  return isSigned ? ElementType::kQuant8AsymmSigned : ElementType::kQuant8Asymm;
}

// The STORE mode that writes values of type `t` from the accumulators.
constexpr hw::StoreMode storeModeFor(ElementType t) {
  switch (t) {
    case ElementType::kInt32Raw:
      return hw::StoreMode::kRaw32;
    case ElementType::kFloat16:
      return hw::StoreMode::kFp16;
    default:
      return hw::StoreMode::kRequant8;
  }
}

constexpr const char* toString(ElementType t) {
  switch (t) {
    case ElementType::kQuant8Asymm:
      return "quant8";
    case ElementType::kQuant8AsymmSigned:
      return "quant8 signed";
    case ElementType::kFloat16:
      return "fp16";
    case ElementType::kInt32Raw:
      return "int32 raw";
  }
  return "?";
}

}  // namespace weft::accel
