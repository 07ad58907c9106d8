// Hardware parameters as JSON files write them: a header of its own so that config.h, which
// nearly every file includes, stays free of nlohmann.
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string_view>

#include "weft/hw/config.h"

namespace weft::hw {

// The value of enumerated parameter `p` as a file writes it (a configuration's "params", a sweep
// spec's grid and points): by its name only, since a number would silently change meaning if the
// values were reordered. Throws ConfigError starting with `origin`: '<origin>: Dataflow = 1 is not
// one of "WS", "OS" (an enumerated parameter takes its value's name)', '<origin>: Dataflow =
// "XS" is not one of "WS", "OS"'.
int64_t enumParamValue(Param p, const nlohmann::json& value, std::string_view origin);

}  // namespace weft::hw
