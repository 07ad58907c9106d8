#include "weft/kernels/OperationResolver.h"

namespace weft::nn {

// While operations are being written, a missing registration is a null weak symbol and the
// operation reads as unsupported rather than breaking the link.
#define NN_OPERATION(identifier) const OperationRegistration* register_##identifier() __attribute__((weak));
#include "Operations.def"
#undef NN_OPERATION

OperationResolver::OperationResolver() {
#define NN_OPERATION(identifier)                                     \
  if (register_##identifier != nullptr) {                            \
    const OperationRegistration* r = register_##identifier();        \
    table_[static_cast<int32_t>(r->type)] = r;                       \
  }
#include "Operations.def"
#undef NN_OPERATION
}

const OperationResolver& OperationResolver::get() {
  static const OperationResolver resolver;
  return resolver;
}

const OperationRegistration* OperationResolver::find(OperationType type) const {
  const auto i = static_cast<int32_t>(type);
  return i >= 0 && i < kNumOperationTypes ? table_[i] : nullptr;
}

}  // namespace weft::nn
