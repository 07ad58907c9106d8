// Interim: the rtl backend is assembled from the RTL engineer's RtlStepper, which has not
// landed yet.
#include <stdexcept>

#include "backends.h"

namespace weft::sim {

std::unique_ptr<IDeviceBackend> makeRtlBackend(const hw::HwConfig&, const BackendOptions&) {
  throw std::runtime_error("the rtl backend is not available yet (waiting for weft::sim::RtlStepper); use WEFT_BACKEND=approx");
}

}  // namespace weft::sim
