#include "weft/nn/Types.h"

namespace weft::nn {

size_t sizeOfElement(OperandType type) {
  switch (type) {
    case OperandType::FLOAT32:
    case OperandType::INT32:
    case OperandType::UINT32:
    case OperandType::TENSOR_FLOAT32:
    case OperandType::TENSOR_INT32:
      return 4;
    case OperandType::TENSOR_QUANT16_SYMM:
    case OperandType::TENSOR_QUANT16_ASYMM:
    case OperandType::TENSOR_FLOAT16:
    case OperandType::FLOAT16:
      return 2;
    case OperandType::TENSOR_QUANT8_ASYMM:
    case OperandType::TENSOR_QUANT8_ASYMM_SIGNED:
    case OperandType::TENSOR_QUANT8_SYMM:
    case OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL:
    case OperandType::BOOL:
    case OperandType::TENSOR_BOOL8:
      return 1;
    case OperandType::SUBGRAPH:
      return 0;
  }
  return 0;
}

bool isTensor(OperandType type) {
  switch (type) {
    case OperandType::FLOAT32:
    case OperandType::INT32:
    case OperandType::UINT32:
    case OperandType::BOOL:
    case OperandType::FLOAT16:
    case OperandType::SUBGRAPH:
      return false;
    default:
      return true;
  }
}

bool isQuantized(OperandType type) {
  switch (type) {
    case OperandType::TENSOR_QUANT8_ASYMM:
    case OperandType::TENSOR_QUANT8_ASYMM_SIGNED:
    case OperandType::TENSOR_QUANT8_SYMM:
    case OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL:
    case OperandType::TENSOR_QUANT16_SYMM:
    case OperandType::TENSOR_QUANT16_ASYMM:
      return true;
    default:
      return false;
  }
}

size_t numberOfElements(const Dimensions& dims) {
  size_t n = 1;
  for (uint32_t d : dims) n *= d;
  return n;
}

size_t sizeOfData(OperandType type, const Dimensions& dims) {
  return sizeOfElement(type) * numberOfElements(dims);
}

bool isFullySpecified(OperandType type, const Dimensions& dims) {
  if (isTensor(type) && dims.empty()) return false;
  for (uint32_t d : dims) {
    if (d == 0) return false;
  }
  return true;
}

bool isExtension(OperandType type) { return getExtensionPrefix(static_cast<int32_t>(type)) != 0; }
bool isExtension(OperationType type) { return getExtensionPrefix(static_cast<int32_t>(type)) != 0; }
uint16_t getExtensionPrefix(int32_t type) { return static_cast<uint16_t>(static_cast<uint32_t>(type) >> kExtensionTypeBits); }
uint16_t getTypeWithinExtension(int32_t type) { return static_cast<uint16_t>(static_cast<uint32_t>(type) & 0xFFFF); }

const std::string* extensionNameOf(const std::vector<ExtensionNameAndPrefix>& prefixes, uint16_t prefix) {
  for (const ExtensionNameAndPrefix& entry : prefixes) {
    if (entry.prefix == prefix) return &entry.name;
  }
  return nullptr;
}

std::optional<uint16_t> extensionOperationCode(const std::vector<ExtensionNameAndPrefix>& prefixes, OperationType type,
                                               const std::string& name) {
  if (!isExtension(type)) return std::nullopt;
  const auto value = static_cast<int32_t>(type);
  const std::string* extension = extensionNameOf(prefixes, getExtensionPrefix(value));
  if (extension == nullptr || *extension != name) return std::nullopt;
  return getTypeWithinExtension(value);
}

std::optional<OperandTypeInfo> baseOperandTypeInfo(OperandType type) {
  const auto code = static_cast<int32_t>(type);
  if (code < 0 || code > static_cast<int32_t>(OperandType::SUBGRAPH)) return std::nullopt;
  return OperandTypeInfo{isTensor(type), static_cast<uint32_t>(sizeOfElement(type))};
}

std::optional<OperandTypeInfo> operandTypeInfo(OperandType type, const std::vector<ExtensionNameAndPrefix>& prefixes,
                                               const std::vector<Extension>& extensions) {
  if (!isExtension(type)) return baseOperandTypeInfo(type);
  const std::string* name = extensionNameOf(prefixes, getExtensionPrefix(static_cast<int32_t>(type)));
  if (name == nullptr) return std::nullopt;
  for (const Extension& extension : extensions) {
    if (extension.name != *name) continue;
    for (const Extension::OperandTypeInformation& info : extension.operandTypes) {
      if (info.type == getTypeWithinExtension(static_cast<int32_t>(type))) {
        return OperandTypeInfo{info.isTensor, info.byteSize};
      }
    }
  }
  return std::nullopt;
}

const char* toString(OperandType type) {
  if (isExtension(type)) return "EXTENSION_OPERAND_TYPE";
  switch (type) {
#define CASE(x) \
  case OperandType::x: \
    return #x;
    CASE(FLOAT32) CASE(INT32) CASE(UINT32) CASE(TENSOR_FLOAT32) CASE(TENSOR_INT32)
    CASE(TENSOR_QUANT8_ASYMM) CASE(BOOL) CASE(TENSOR_QUANT16_SYMM) CASE(TENSOR_FLOAT16)
    CASE(TENSOR_BOOL8) CASE(FLOAT16) CASE(TENSOR_QUANT8_SYMM_PER_CHANNEL)
    CASE(TENSOR_QUANT16_ASYMM) CASE(TENSOR_QUANT8_SYMM) CASE(TENSOR_QUANT8_ASYMM_SIGNED)
    CASE(SUBGRAPH)
#undef CASE
  }
  return "UNKNOWN_OPERAND_TYPE";
}

const char* toString(OperationType type) {
  if (isExtension(type)) return "EXTENSION_OPERATION";
  switch (type) {
#define NN_OPERATION(x) \
  case OperationType::x: \
    return #x;
#include "weft/nn/Operations.def"
#undef NN_OPERATION
  }
  return "UNKNOWN_OPERATION";
}

const char* toString(ErrorStatus status) {
  switch (status) {
#define CASE(x) \
  case ErrorStatus::x: \
    return #x;
    CASE(NONE) CASE(OUT_OF_MEMORY) CASE(INCOMPLETE) CASE(UNEXPECTED_NULL) CASE(BAD_DATA)
    CASE(OP_FAILED) CASE(BAD_STATE) CASE(UNMAPPABLE) CASE(OUTPUT_INSUFFICIENT_SIZE)
    CASE(UNAVAILABLE_DEVICE) CASE(MISSED_DEADLINE_TRANSIENT) CASE(MISSED_DEADLINE_PERSISTENT)
    CASE(RESOURCE_EXHAUSTED_TRANSIENT) CASE(RESOURCE_EXHAUSTED_PERSISTENT) CASE(DEAD_OBJECT)
#undef CASE
  }
  return "UNKNOWN_ERROR";
}

}  // namespace weft::nn
