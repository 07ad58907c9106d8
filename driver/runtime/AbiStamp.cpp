// weft_abi_stamp (weft/runtime/Profile.h): the build's stamp, for programs that use weft's C++
// extension to check they were built with this library.
#include "weft/AbiStamp.h"
#include "weft/runtime/Profile.h"

extern "C" __attribute__((visibility("default"))) const char* weft_abi_stamp(void) { return WEFT_ABI_STAMP; }
