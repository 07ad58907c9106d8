// A stand-in for libweft-accel.so from another build: the current table layout (ABI 3) with a
// foreign ABI stamp. The runtime must refuse it by its stamp, naming the file, before it reads
// anything else of the table (whose functions are null here).
#include <cstdint>

namespace {
struct Table {
  uint32_t abi;
  const char* build;
  void* createDevice;
  void* setProgressListener;
};
}  // namespace

extern "C" __attribute__((visibility("default"))) const Table* weft_accelerator_module() {
  static const Table kTable{3, "0.0.0+stale000000", nullptr, nullptr};
  return &kTable;
}
