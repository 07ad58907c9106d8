// The process-wide progress listener of weft::accel::setProgressListener, and how a running
// program's progress is read: from the snapshot records, through the DRAM backdoor.
#pragma once

#include <functional>

#include "ModelCompiler.h"
#include "weft/accel/AcceleratorDevice.h"

namespace weft::accel {

// A copy of the listener set now (empty when none), safe to call without holding any lock.
std::function<void(const DeviceProgress&)> progressListener();

// Clears the tags of `model`'s snapshot records, so that a tag seen later was written by this run.
void clearSnapshotTags(sim::IDeviceBackend& backend, const CompiledModel& model);
// Operations whose closing snapshot record has been written.
size_t operationsDone(sim::IDeviceBackend& backend, const CompiledModel& model);

}  // namespace weft::accel
