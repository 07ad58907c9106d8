// Finds and loads the accelerator driver module (weft/accel/AcceleratorModule.h), once per
// process. Where it looks, in order:
//   1. the file WEFT_ACCEL_DRIVER names (read when the library loads, like WEFT_BACKEND);
//   2. libweft-accel.so in the directory of the library (or program) holding the runtime (a build
//      tree), then in its weft/ subdirectory (an installed tree: <prefix>/lib/weft);
//   3. libweft-accel.so through the dynamic loader's own search (LD_LIBRARY_PATH, RUNPATH, ...).
// A module that is missing, cannot be loaded or comes from another build (its ABI stamp,
// weft/AbiStamp.h, differs from the runtime's) is an error saying where it was
// looked for; the runtime then offers the CPU device only.
#pragma once

#include "weft/accel/AcceleratorModule.h"

namespace weft::runtime {

nn::Result<const accel::AcceleratorModule*> loadAcceleratorModule();

// The module if it was loaded successfully, else nullptr (never loads it).
const accel::AcceleratorModule* loadedAcceleratorModule();

}  // namespace weft::runtime
