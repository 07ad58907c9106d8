// Device memory (as NN HAL IBuffer): an opaque buffer copied to and from host memory.
#pragma once

#include "weft/hal/IDevice.h"

namespace weft::hal {

class IBuffer {
 public:
  virtual ~IBuffer() = default;
  virtual nn::Status copyTo(nn::Memory& dst) const = 0;
  virtual nn::Status copyFrom(const nn::Memory& src, const nn::Dimensions& dimensions) const = 0;
};

}  // namespace weft::hal
