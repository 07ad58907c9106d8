// Device memory of the accelerator (hal::IDevice::allocate, ANeuralNetworksMemory_createFromDesc):
// a tensor kept in simulated DRAM, in the layout the first role's prepared model keeps that
// tensor in (NHWC with its halo, or dense), so that an execution whose input or output is the
// buffer reads or writes it in place: its program is relocated so that the tensor's LOADs and
// STOREs address the buffer, and no byte crosses to or from the host. A chain of executions
// passing a tensor through such a buffer never copies it (ExecutionProfile::hostCopyBytes).
//
// The buffer is also an nn::Memory: data() is a host mapping, made coherent when it is asked for
// (the device's bytes are read first when the device wrote last; afterwards the host is taken to
// have written, and the next execution on the device copies the bytes back first). That is what
// other devices, ANeuralNetworksMemory_copy and a role whose tensor is kept in another layout use.
#pragma once

#include <memory>
#include <mutex>
#include <vector>

#include "DeviceQueue.h"
#include "MemoryPlan.h"
#include "weft/hal/IBuffer.h"

namespace weft::accel {

class DeviceBuffer final : public hal::IBuffer, public nn::Memory, public std::enable_shared_from_this<DeviceBuffer> {
 public:
  // Allocates and initializes the region (fill and halo) for a tensor kept as `role` (dense
  // when that is a view into another tensor). Caller holds queue->mutex().
  static nn::Result<std::shared_ptr<DeviceBuffer>> create(std::shared_ptr<DeviceQueue> queue, const TensorLayout& role);

  // nn::Memory: the coherent host mapping (takes the device's mutex: never call it holding it).
  uint8_t* data() override;
  size_t size() const override { return host_.size(); }
  // hal::IBuffer.
  nn::Status copyTo(nn::Memory& dst) const override;
  nn::Status copyFrom(const nn::Memory& src, const nn::Dimensions& dimensions) const override;
  nn::SharedMemory asMemory() const override;

  // For executions on the device, with queue->mutex() held.
  const DeviceQueue* queue() const { return queue_.get(); }
  const TensorLayout& layout() const { return layout_; }
  const SharedRegion& region() const { return region_; }
  // Before the device reads it: the host's bytes, if the host may have written last. Returns the
  // bytes copied to the device.
  uint64_t prepareForDeviceRead() const;
  // After the device wrote it.
  void deviceWrote() const;

 private:
  DeviceBuffer(std::shared_ptr<DeviceQueue> queue, TensorLayout layout, SharedRegion region);
  enum class Newest { kBoth, kHost, kDevice };

  std::shared_ptr<DeviceQueue> queue_;
  TensorLayout layout_;
  SharedRegion region_;
  mutable std::mutex mutex_;  // after queue_->mutex() whenever both are held
  mutable std::vector<uint8_t> host_;  // logical bytes
  mutable Newest newest_ = Newest::kBoth;
};

// Whether a tensor kept as `tensor` can be read and written in place in a buffer kept as `buffer`.
bool sameDeviceLayout(const TensorLayout& buffer, const TensorLayout& tensor);

}  // namespace weft::accel
