// Placeholder until the accelerator driver lands: the device cannot be created yet.
#include "weft/accel/AcceleratorDevice.h"

namespace weft::accel {

nn::Result<hal::SharedDevice> createAcceleratorDevice(const AcceleratorOptions&) {
  return NN_ERROR(OP_FAILED) << "the accelerator driver is not built yet";
}

}  // namespace weft::accel
