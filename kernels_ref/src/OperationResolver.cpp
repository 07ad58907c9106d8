#include "weft/kernels/OperationResolver.h"

namespace weft::nn {

// Every operation of Operations.def has its file (kernels_ref/ops/): a registration that goes
// missing breaks the link, naming the operation, instead of turning it into "unsupported".
#define NN_OPERATION(identifier) const OperationRegistration* register_##identifier();
#include "weft/nn/Operations.def"
#undef NN_OPERATION
#define NN_EXTENSION_OPERATION(identifier) const ExtensionOperationRegistration* register_extension_##identifier();
#include "ExtensionOperations.def"
#undef NN_EXTENSION_OPERATION

OperationResolver::OperationResolver() {
#define NN_OPERATION(identifier)                              \
  {                                                           \
    const OperationRegistration* r = register_##identifier(); \
    table_[static_cast<int32_t>(r->type)] = r;                \
  }
#include "weft/nn/Operations.def"
#undef NN_OPERATION
#define NN_EXTENSION_OPERATION(identifier) extensions_.push_back(register_extension_##identifier());
#include "ExtensionOperations.def"
#undef NN_EXTENSION_OPERATION
}

const OperationResolver& OperationResolver::get() {
  static const OperationResolver resolver;
  return resolver;
}

const OperationRegistration* OperationResolver::find(OperationType type) const {
  const auto i = static_cast<int32_t>(type);
  return i >= 0 && i < kNumOperationTypes ? table_[i] : nullptr;
}

const OperationRegistration* OperationResolver::findExtension(std::string_view extension, uint16_t code) const {
  for (const ExtensionOperationRegistration* registration : extensions_) {
    if (registration->extension == extension && registration->code == code) return &registration->operation;
  }
  return nullptr;
}

const OperationRegistration* OperationResolver::find(const Model& model, OperationType type) const {
  if (!isExtension(type)) return find(type);
  const std::string* name = extensionNameOf(model.extensionNameToPrefix, getExtensionPrefix(static_cast<int32_t>(type)));
  return name == nullptr ? nullptr : findExtension(*name, getTypeWithinExtension(static_cast<int32_t>(type)));
}

}  // namespace weft::nn
