#include "weft/kernels/OperationResolver.h"

namespace weft::nn {

// Every operation of Operations.def has its file (kernels_ref/ops/): a registration that goes
// missing breaks the link, naming the operation, instead of turning it into "unsupported".
#define NN_OPERATION(identifier) const OperationRegistration* register_##identifier();
#include "Operations.def"
#undef NN_OPERATION

OperationResolver::OperationResolver() {
#define NN_OPERATION(identifier)                              \
  {                                                           \
    const OperationRegistration* r = register_##identifier(); \
    table_[static_cast<int32_t>(r->type)] = r;                \
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
