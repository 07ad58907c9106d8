#include "weft/sim/backend.h"

#include <fmt/format.h>

#include <stdexcept>

namespace weft::sim {

std::string_view toString(BackendKind kind) {
  switch (kind) {
    case BackendKind::kRtl:
      return "rtl";
    case BackendKind::kApprox:
      return "approx";
  }
  return "unknown";
}

BackendKind parseBackendKind(std::string_view name) {
  if (name == "rtl") return BackendKind::kRtl;
  if (name == "approx") return BackendKind::kApprox;
  throw std::invalid_argument(
      fmt::format("unknown backend '{}'; accepted values: rtl, approx", name));
}

std::unique_ptr<IDeviceBackend> createBackend(BackendKind kind, const hw::HwConfig&,
                                              const BackendOptions&) {
  throw std::runtime_error(fmt::format("the {} backend is not built yet", toString(kind)));
}

}  // namespace weft::sim
