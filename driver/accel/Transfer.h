// Host <-> device copies of model inputs and outputs through the backend's DRAM backdoor (the
// stand-in for a shared-memory mapping). They convert between the logical layout a client
// sees (dense, NHWC or NCHW) and the device layout (NHWC with a halo, MemoryPlan.h).
#pragma once

#include <cstdint>
#include <vector>

#include "MemoryPlan.h"
#include "weft/sim/backend.h"

namespace weft::accel {

// The whole device buffer of a tensor with every byte set to its fill (the zero point, or PAD's
// value): written once at preparation, so the halo or border holds it for good.
std::vector<uint8_t> fillImage(const TensorLayout& t);

// `src` holds the tensor in its logical layout (bytes() of the logical dimensions).
void copyToDevice(sim::IDeviceBackend& backend, const TensorLayout& t, uint64_t addr, const uint8_t* src);
void copyFromDevice(sim::IDeviceBackend& backend, const TensorLayout& t, uint64_t addr, uint8_t* dst);

// A tensor kept as binary16 for float32 data (TensorLayout::halfOnDevice) is converted on the
// way: `src` and `dst` hold float32 values.

// Bytes of the tensor in its logical layout, as the host holds it.
uint64_t logicalBytes(const TensorLayout& t);

}  // namespace weft::accel
