// libFuzzer target: network descriptions (traces/README.md; tools/weft/Network.h). Any text must
// be refused with NetworkError, naming what is wrong, or give a network whose NNAPI model builds
// through the C API exactly as `weft run` builds it: what the parser accepts, NNAPI must accept
// too (an NnapiError here is a finding). Never a crash, a leak, an uncaught exception of another
// kind, or undefined behaviour.
//
// The format allows tensors of up to 2^31 elements, which the parser draws in full: a fuzz input
// naming such shapes would measure the allocator, not the parser, so inputs whose "shape" lists
// total more than kMaxElements are skipped before parsing.
//
// Run with WEFT_BACKEND=approx (scripts/fuzz.sh sets it): libneuralnetworks.so reads it when it
// loads, and its default accelerator, the RTL in SystemC, does not run under AddressSanitizer
// (SystemC switches stacks under it; the verilated plugin is not instrumented).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <nlohmann/json.hpp>

#include "Network.h"
#include "NetworkModel.h"

namespace {

constexpr uint64_t kMaxElements = uint64_t{1} << 22;

// The elements every "shape" list in the document asks for, saturating.
uint64_t shapeElements(const nlohmann::json& j) {
  uint64_t total = 0;
  auto add = [&](uint64_t n) { total = n > kMaxElements || total + n > kMaxElements ? kMaxElements + 1 : total + n; };
  if (j.is_object()) {
    for (const auto& [key, value] : j.items()) {
      if (key == "shape" && value.is_array()) {
        uint64_t n = 1;
        for (const auto& d : value) {
          const uint64_t v = d.is_number_unsigned() ? d.get<uint64_t>() : 1;
          n = v != 0 && n > kMaxElements / v ? kMaxElements + 1 : n * v;
        }
        add(n);
      } else {
        add(shapeElements(value));
      }
    }
  } else if (j.is_array()) {
    for (const auto& v : j) add(shapeElements(v));
  }
  return total;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  const char* backend = std::getenv("WEFT_BACKEND");
  if (backend == nullptr || std::string(backend) != "approx") {
    std::fprintf(stderr, "network_fuzzer: run with WEFT_BACKEND=approx (scripts/fuzz.sh sets it)\n");
    std::exit(2);
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const nlohmann::json doc = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!doc.is_discarded() && shapeElements(doc) > kMaxElements) return 0;
  weft::tool::Network network;
  try {
    network = weft::tool::parseNetwork(text, "fuzz input");
  } catch (const weft::tool::NetworkError&) {
    return 0;  // refused, as a bad description must be
  }
  (void)weft::tool::buildModel(network);
  return 0;
}
