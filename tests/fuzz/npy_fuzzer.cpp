// libFuzzer target: numpy .npy files (tools/onnx/Npy.h), as `--input NAME=x.npy` and the samples of
// `--calibration DIR` read them. Any bytes must be read or refused with an ImportError naming the
// file; a file read must hold exactly the data its header says. Never a crash, an uncaught exception of another kind, an allocation of what
// the header claims before the data is there, or undefined behaviour.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "HostTensor.h"
#include "ImportError.h"
#include "Npy.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  weft::onnx::HostTensor t;
  try {
    t = weft::onnx::parseNpy(bytes, "fuzz.npy");
  } catch (const weft::onnx::ImportError&) {
    return 0;  // refused, as a malformed file must be
  }
  // What was read is what the file holds: its data is the file's last bytes, of the header's size.
  if (t.bytes.size() != static_cast<size_t>(t.size()) * weft::onnx::dtypeSize(t.type) || t.bytes.size() > size ||
      bytes.substr(size - t.bytes.size()) != std::string_view(reinterpret_cast<const char*>(t.bytes.data()), t.bytes.size())) {
    std::abort();
  }
  return 0;
}
