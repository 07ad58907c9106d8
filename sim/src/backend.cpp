#include "weft/sim/backend.h"

#include <fmt/format.h>

#include <stdexcept>

#include "backends.h"

namespace weft::sim {

std::string_view toString(BackendKind kind) {
  switch (kind) {
    case BackendKind::kRtl:
      return "rtl";
    case BackendKind::kApprox:
      return "approx";
    case BackendKind::kTiming:
      return "timing";
  }
  return "unknown";
}

BackendKind parseBackendKind(std::string_view name) {
  if (name == "rtl") return BackendKind::kRtl;
  if (name == "approx") return BackendKind::kApprox;
  if (name == "timing") return BackendKind::kTiming;
  throw std::invalid_argument(
      fmt::format("unknown backend '{}'; accepted values: rtl, approx, timing", name));
}

std::unique_ptr<IDeviceBackend> createBackend(BackendKind kind, const hw::HwConfig& config,
                                              const BackendOptions& options) {
  switch (kind) {
    case BackendKind::kApprox:
      return makeApproxBackend(config, options, /*computesData=*/true);
    case BackendKind::kTiming:
      return makeApproxBackend(config, options, /*computesData=*/false);
    case BackendKind::kRtl:
      return makeRtlBackend(config, options);
  }
  throw std::invalid_argument("unknown backend kind");
}

}  // namespace weft::sim
