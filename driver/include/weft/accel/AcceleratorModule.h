// The accelerator driver as a module that libneuralnetworks.so loads at run time, the way Android's
// runtime reaches a vendor's driver: the runtime links no driver or simulator code (no SystemC, no
// sc_main, no build-tree paths), and an NNAPI program links libneuralnetworks.so alone.
//
// The module (libweft-accel.so, driver/accel_module/) holds the accelerator driver (driver/accel)
// with its device backends (sim/). It exports one C symbol, kAcceleratorModuleEntry, returning
// the table below. The table passes C++ objects (the HAL interfaces, std::function), so the
// module and the runtime must come from one build: kAcceleratorModuleAbi is the layout of the
// table's first two fields (never to change again), and `build` the ABI stamp of the build
// (weft/AbiStamp.h: a digest of the headers whose types cross), which the runtime compares with
// its own before it calls anything else.
//
// Where the runtime looks for it (runtime/AcceleratorLoader.h): the file named by
// WEFT_ACCEL_DRIVER, else libweft-accel.so next to libneuralnetworks.so, else the dynamic loader's
// search path (LD_LIBRARY_PATH, ...).
#pragma once

#include <cstdint>
#include <functional>

#include "weft/accel/AcceleratorDevice.h"

namespace weft::accel {

// 2: IBuffer::asMemory, ExecutionProfile::hostCopyBytes; 3: the build's ABI stamp follows.
inline constexpr uint32_t kAcceleratorModuleAbi = 3;
inline constexpr const char* kAcceleratorModuleEntry = "weft_accelerator_module";
inline constexpr const char* kAcceleratorModuleFile = "libweft-accel.so";
// Where an installed tree keeps it, relative to libneuralnetworks.so: a private module directory
// (with the RTL models in rtl/ below it), as Debian keeps a package's plugins.
inline constexpr const char* kAcceleratorModuleInstalledDir = "weft";

struct AcceleratorModule {
  uint32_t abi = kAcceleratorModuleAbi;
  const char* build = nullptr;  // WEFT_ABI_STAMP of the module's build
  // createAcceleratorDevice (AcceleratorDevice.h).
  nn::Result<hal::SharedDevice> (*createDevice)(const AcceleratorOptions& options) = nullptr;
  // setProgressListener (AcceleratorDevice.h).
  void (*setProgressListener)(std::function<void(const DeviceProgress&)> listener) = nullptr;
};

using AcceleratorModuleEntry = const AcceleratorModule* (*)();

}  // namespace weft::accel
