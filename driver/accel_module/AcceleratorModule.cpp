// The entry point of libweft-accel.so (weft/accel/AcceleratorModule.h): the accelerator driver's
// two public functions, handed to the runtime that loads this module.
#include "weft/AbiStamp.h"
#include "weft/accel/AcceleratorModule.h"

extern "C" __attribute__((visibility("default"))) const weft::accel::AcceleratorModule* weft_accelerator_module() {
  static const weft::accel::AcceleratorModule kModule{
      weft::accel::kAcceleratorModuleAbi, WEFT_ABI_STAMP, &weft::accel::createAcceleratorDevice,
      &weft::accel::setProgressListener};
  return &kModule;
}
