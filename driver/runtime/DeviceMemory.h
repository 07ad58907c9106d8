// Device memory for ANeuralNetworksMemory_createFromDesc: when every role belongs to a compilation
// that runs as one step on one device, that device is asked for a buffer of its own
// (hal::IDevice::allocate, as Android's runtime does for a memory domain); executions on it then
// keep the tensor on the device, and everything else reaches the bytes through the buffer's
// coherent host mapping (hal::IBuffer::asMemory). nullptr when no device offers one: the memory
// is host memory, as before.
#pragma once

#include "Memory.h"

namespace weft::runtime {

nn::SharedMemory allocateOnDevice(const MemoryDescription& description, size_t bytes);

}  // namespace weft::runtime
