// The CPU reference device (type CPU, named "weft-cpu"): runs whole models on the reference
// kernels of kernels_ref/ through weft::nn::executeOnCpu. It supports every operation the
// OperationResolver has a registration for, including IF and WHILE.
#pragma once

#include "weft/hal/IDevice.h"

namespace weft::cpu {

inline constexpr const char* kCpuDeviceName = "weft-cpu";

hal::SharedDevice createCpuDevice();

}  // namespace weft::cpu
