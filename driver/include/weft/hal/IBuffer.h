// Device memory (as NN HAL IBuffer): an opaque buffer copied to and from host memory.
#pragma once

#include "weft/hal/IDevice.h"

namespace weft::hal {

class IBuffer {
 public:
  virtual ~IBuffer() = default;
  virtual nn::Status copyTo(nn::Memory& dst) const = 0;
  virtual nn::Status copyFrom(const nn::Memory& src, const nn::Dimensions& dimensions) const = 0;
  // The buffer as a request pool (nn::Request::pools), or null when it cannot be one. Executions
  // on its device use it in place; its data() is a host mapping the device keeps coherent, so any
  // other user (another device, ANeuralNetworksMemory_copy) sees and changes the same bytes.
  virtual nn::SharedMemory asMemory() const { return nullptr; }
};

}  // namespace weft::hal
