#include "DeviceBuffer.h"

#include <cstring>

#include "ModelCompiler.h"
#include "Transfer.h"

namespace weft::accel {

nn::Result<std::shared_ptr<DeviceBuffer>> DeviceBuffer::create(std::shared_ptr<DeviceQueue> queue,
                                                               const TensorLayout& role) {
  // A view into another tensor (a zero-copy CONCATENATION input) has no bytes of its own to
  // mirror: the buffer keeps its values dense, and every use goes through the host.
  TensorLayout layout = role;
  if (role.aliasOf) {
    layout.aliasOf.reset();
    layout.channelOffset = 0;
    layout.layout = DataLayout::kFlat;
    layout.image = ImageShape{1, 1, 1, static_cast<uint32_t>(logicalBytes(role))};
    layout.haloTop = layout.haloBottom = layout.haloLeft = layout.haloRight = 0;
    layout.fill = static_cast<uint8_t>(role.zeroPoint);
  }
  const std::vector<uint8_t> image = initialTensorImage(layout, queue->config());
  auto region = queue->allocator()->allocate(image.size(), kRegionAlignment, "a device buffer");
  if (!region.ok()) return region.error();
  queue->backend().writeDram(region.value()->addr(), image.data(), image.size());
  auto buffer = std::shared_ptr<DeviceBuffer>(new DeviceBuffer(std::move(queue), layout, std::move(region).value()));
  // The host mapping starts as the device's bytes: the fill, read back in logical order.
  copyFromDevice(buffer->queue_->backend(), layout, buffer->region_->addr(), buffer->host_.data());
  return buffer;
}

DeviceBuffer::DeviceBuffer(std::shared_ptr<DeviceQueue> queue, TensorLayout layout, SharedRegion region)
    : queue_(std::move(queue)), layout_(std::move(layout)), region_(std::move(region)), host_(logicalBytes(layout_)) {}

uint8_t* DeviceBuffer::data() {
  std::lock_guard<std::mutex> device(queue_->mutex());
  std::lock_guard<std::mutex> lock(mutex_);
  if (newest_ == Newest::kDevice) copyFromDevice(queue_->backend(), layout_, region_->addr(), host_.data());
  newest_ = Newest::kHost;  // the caller may write through the pointer
  return host_.data();
}

nn::Status DeviceBuffer::copyTo(nn::Memory& dst) const {
  if (dst.size() < host_.size()) {
    return NN_ERROR(BAD_DATA) << "the destination has " << dst.size() << " bytes, the buffer " << host_.size();
  }
  uint8_t* to = dst.data();  // before locking: dst may be a device buffer too
  std::lock_guard<std::mutex> device(queue_->mutex());
  std::lock_guard<std::mutex> lock(mutex_);
  if (newest_ == Newest::kDevice) {
    copyFromDevice(queue_->backend(), layout_, region_->addr(), host_.data());
    newest_ = Newest::kBoth;
  }
  std::memcpy(to, host_.data(), host_.size());
  return {};
}

nn::Status DeviceBuffer::copyFrom(const nn::Memory& src, const nn::Dimensions& dimensions) const {
  if (!dimensions.empty() && dimensions != layout_.dims) {
    return NN_ERROR(BAD_DATA) << "the buffer's dimensions are fixed by its roles";
  }
  if (src.size() != host_.size()) {
    return NN_ERROR(BAD_DATA) << "the source has " << src.size() << " bytes, the buffer " << host_.size();
  }
  const uint8_t* from = const_cast<nn::Memory&>(src).data();  // before locking: src may be a device buffer too
  std::lock_guard<std::mutex> device(queue_->mutex());
  std::lock_guard<std::mutex> lock(mutex_);
  std::memcpy(host_.data(), from, host_.size());
  copyToDevice(queue_->backend(), layout_, region_->addr(), host_.data());
  newest_ = Newest::kBoth;
  return {};
}

nn::SharedMemory DeviceBuffer::asMemory() const {
  return std::const_pointer_cast<DeviceBuffer>(shared_from_this());
}

uint64_t DeviceBuffer::prepareForDeviceRead() const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (newest_ != Newest::kHost) return 0;
  copyToDevice(queue_->backend(), layout_, region_->addr(), host_.data());
  newest_ = Newest::kBoth;
  return host_.size();
}

void DeviceBuffer::deviceWrote() const {
  std::lock_guard<std::mutex> lock(mutex_);
  newest_ = Newest::kDevice;
}

bool sameDeviceLayout(const TensorLayout& a, const TensorLayout& b) {
  if (a.aliasOf || b.aliasOf) return false;  // a view's region is its parent's
  auto shape = [](const ImageShape& s) { return std::make_tuple(s.batches, s.height, s.width, s.channels); };
  return a.type == b.type && a.zeroPoint == b.zeroPoint && a.dims == b.dims && a.layout == b.layout &&
         shape(a.image) == shape(b.image) && a.haloTop == b.haloTop && a.haloBottom == b.haloBottom &&
         a.haloLeft == b.haloLeft && a.haloRight == b.haloRight && a.fill == b.fill;
}

}  // namespace weft::accel
