// The accelerator device: lowers supported NNAPI operations to command programs for the
// systolic array and runs them on a device backend (sim/include/weft/sim/backend.h).
#pragma once

#include <string>

#include "weft/hal/IDevice.h"

namespace weft::accel {

struct AcceleratorOptions {
  std::string backend = "rtl";     // WEFT_BACKEND: "rtl" or "approx"
  std::string hwConfig = "weft16"; // WEFT_HW: a named configuration of hw/configs or a file path
};

// Creates the device named "weft-accel" (type ACCELERATOR). BAD_DATA with a message naming the
// accepted values when the backend or configuration is not valid; OP_FAILED when the backend
// cannot be brought up (e.g. no RTL build for the configuration).
nn::Result<hal::SharedDevice> createAcceleratorDevice(const AcceleratorOptions& options);

}  // namespace weft::accel
