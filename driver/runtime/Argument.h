// One input or output of an execution, as the client set it (NNAPI's ModelArgumentInfo).
#pragma once

#include "Memory.h"
#include "weft/nn/Types.h"

namespace weft::runtime {

struct Argument {
  enum class State { kUnspecified, kPointer, kMemory, kNoValue };
  State state = State::kUnspecified;
  void* buffer = nullptr;                  // kPointer
  const RuntimeMemory* memory = nullptr;   // kMemory
  uint32_t offset = 0;                     // kMemory
  uint32_t length = 0;                     // bytes available, padding included
  nn::Dimensions dimensions;               // the operand's, completed by the client's type

  bool hasValue() const { return state == State::kPointer || state == State::kMemory; }
};

}  // namespace weft::runtime
