// Whether the CPU reference kernels cover an operation, as the conformance suites count it: a case
// using an operation without a kernel is skipped ("no kernel"), not failed. Header-only because it
// needs weft_kernels, which the binaries using it link and weft_test_support does not.
#pragma once

#include "weft/kernels/OperationResolver.h"

namespace weft::test {

inline bool hasKernel(nn::OperationType type) {
  const nn::OperationRegistration* reg = nn::OperationResolver::get().find(type);
  if (reg == nullptr) return false;
  // IF and WHILE are run by the executor itself; everything else needs prepare and execute.
  if (type == nn::OperationType::IF || type == nn::OperationType::WHILE) return reg->validate != nullptr;
  return reg->prepare != nullptr && reg->execute != nullptr;
}

}  // namespace weft::test
