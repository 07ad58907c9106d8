// ANeuralNetworksMemoryDesc: the roles a memory will play (inputs and outputs of finished
// compilations) and its dimensions, checked for consistency as they are added.
#pragma once

#include <optional>

#include "Memory.h"

namespace weft::runtime {

class MemoryDescBuilder {
 public:
  nn::Status addRole(const CompilationBuilder& compilation, IoType io, uint32_t index, float frequency);
  nn::Status setDimensions(const nn::Dimensions& dimensions);
  nn::Status finish();

  bool isFinished() const { return finished_; }
  const MemoryDescription& description() const { return description_; }

 private:
  nn::Status checkModifiable() const;

  MemoryDescription description_;
  std::optional<nn::Operand> operand_;  // of the first role; every role must match it
  bool finished_ = false;
};

}  // namespace weft::runtime
