// Prepares one step of a plan on its device, through the compilation cache when the client set
// one, the way Android's runtime drives NN HAL caching:
//  1. a device that asks for no cache files (getNumberOfCacheFilesNeeded) gets the directory and
//     key and keeps what it likes there itself (weft-accel's tilings);
//  2. otherwise the runtime opens that device's files for this step (<dir>/<key>-<device>-model<i>,
//     -data<i>) and, when they all exist, asks the device to restore the prepared model from them
//     (prepareModelFromCache); a device that refuses them (altered, truncated, swapped, made for
//     another model) makes the runtime go on to 3., having logged why;
//  3. it compiles with the files opened for writing, for the device to save into. A directory
//     that is missing or cannot be written means compiling without saving, never a failure.
// The token the device sees is derived from the client's token, the step model itself and the
// preference and priority, so that files made for any other model or settings are refused.
#pragma once

#include <optional>

#include "DeviceManager.h"
#include "weft/runtime/Profile.h"

namespace weft::runtime {

struct PreparedStep {
  hal::SharedPreparedModel preparedModel;
  CacheUse cacheUse = CacheUse::kNotRequested;
};

struct StepSettings {
  nn::ExecutionPreference preference = nn::ExecutionPreference::FAST_SINGLE_ANSWER;
  nn::Priority priority = nn::Priority::MEDIUM;
  hal::OptionalTimePoint deadline;
  std::optional<hal::CacheRequest> cache;  // dir, key (per step) and the client's token
};

nn::Result<PreparedStep> prepareStep(const Device& device, const nn::Model& model, const StepSettings& settings);

}  // namespace weft::runtime
