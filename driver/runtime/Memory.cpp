#include "Memory.h"

#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <limits>

#include "DeviceMemory.h"
#include "OperandTypes.h"

namespace weft::runtime {
namespace {

// A mapping of a duplicated client descriptor; unmapped and closed on destruction.
class MappedMemory final : public nn::Memory {
 public:
  MappedMemory(int fd, void* base, size_t mappedSize, size_t delta, size_t size)
      : fd_(fd), base_(base), mappedSize_(mappedSize), delta_(delta), size_(size) {}
  ~MappedMemory() override {
    if (base_ != nullptr) munmap(base_, mappedSize_);
    close(fd_);
  }
  uint8_t* data() override { return static_cast<uint8_t*>(base_) + delta_; }
  size_t size() const override { return size_; }

 private:
  int fd_;
  void* base_;
  size_t mappedSize_;
  size_t delta_;
  size_t size_;
};

class HostMemory final : public nn::Memory {
 public:
  explicit HostMemory(size_t size) : bytes_(new uint8_t[size == 0 ? 1 : size]()), size_(size) {}
  uint8_t* data() override { return bytes_.get(); }
  size_t size() const override { return size_; }

 private:
  std::unique_ptr<uint8_t[]> bytes_;
  size_t size_;
};

bool regionFits(size_t offset, size_t length, size_t size) { return offset <= size && length <= size - offset; }

}  // namespace

RuntimeMemory::RuntimeMemory(nn::SharedMemory memory, bool readable, bool writable,
                             std::unique_ptr<MemoryDescription> description)
    : memory_(std::move(memory)),
      readable_(readable),
      writable_(writable),
      description_(std::move(description)),
      initialized_(description_ == nullptr) {
  if (description_ != nullptr) dimensions_ = description_->dimensions;
}

nn::Result<std::unique_ptr<RuntimeMemory>> RuntimeMemory::createFromFd(size_t size, int protect, int fd,
                                                                       size_t offset) {
  if (fd < 0) return NN_ERROR(BAD_DATA) << "invalid file descriptor " << fd;
  if (size == 0) return NN_ERROR(BAD_DATA) << "size must be greater than 0";
  if ((protect & ~(PROT_READ | PROT_WRITE)) != 0) {
    return NN_ERROR(BAD_DATA) << "protect " << protect << " must be PROT_NONE or PROT_READ and/or PROT_WRITE";
  }
  const long pageSize = sysconf(_SC_PAGESIZE);
  if (pageSize > 0 && offset % static_cast<size_t>(pageSize) != 0) {
    return NN_ERROR(BAD_DATA) << "offset " << offset << " is not a multiple of the page size " << pageSize;
  }
  struct stat info {};
  if (fstat(fd, &info) != 0) {
    return NN_ERROR(BAD_DATA) << "fd " << fd << " is not an open file descriptor: " << std::strerror(errno);
  }
  if (S_ISREG(info.st_mode) && !regionFits(offset, size, static_cast<size_t>(info.st_size))) {
    return NN_ERROR(BAD_DATA) << "offset " << offset << " + size " << size << " exceeds the file size "
                              << info.st_size;
  }
  if (offset > static_cast<size_t>(std::numeric_limits<off_t>::max())) {
    return NN_ERROR(BAD_DATA) << "offset " << offset << " is too large";
  }
  const int duplicate = dup(fd);
  if (duplicate < 0) return NN_ERROR(BAD_DATA) << "cannot duplicate fd " << fd << ": " << std::strerror(errno);
  void* base = mmap(nullptr, size, protect == 0 ? PROT_NONE : protect, MAP_SHARED, duplicate,
                    static_cast<off_t>(offset));
  if (base == MAP_FAILED) {
    const int error = errno;
    close(duplicate);
    return NN_ERROR(UNMAPPABLE) << "mmap of fd " << fd << " failed: " << std::strerror(error);
  }
  auto mapped = std::make_shared<MappedMemory>(duplicate, base, size, 0, size);
  return std::unique_ptr<RuntimeMemory>(new RuntimeMemory(std::move(mapped), (protect & PROT_READ) != 0,
                                                          (protect & PROT_WRITE) != 0, nullptr));
}

nn::Result<std::unique_ptr<RuntimeMemory>> RuntimeMemory::createFromDescription(const MemoryDescription& description) {
  if (!hasKnownSize(description.typeInfo, description.dimensions)) {
    return NN_ERROR(OP_FAILED) << "memories of unspecified dimensions " << toString(description.dimensions)
                               << " are not supported: their size cannot be known";
  }
  const std::optional<uint32_t> size = byteSize(description.typeInfo, description.dimensions);
  if (!size.has_value()) return NN_ERROR(BAD_DATA) << "the memory size exceeds 4 GiB";
  // On the device when the roles' device offers a buffer (DeviceMemory.h), on the host otherwise.
  nn::SharedMemory memory = allocateOnDevice(description, *size);
  if (memory == nullptr) memory = std::make_shared<HostMemory>(*size);
  return std::unique_ptr<RuntimeMemory>(
      new RuntimeMemory(std::move(memory), true, true, std::make_unique<MemoryDescription>(description)));
}

nn::Status RuntimeMemory::validateForConstant(size_t offset, size_t length) const {
  if (isFromDescription()) {
    return NN_ERROR(BAD_DATA) << "a memory created from a descriptor cannot hold model constants";
  }
  if (!readable_) return NN_ERROR(BAD_DATA) << "the memory is not readable (mapped without PROT_READ)";
  if (!regionFits(offset, length, size())) {
    return NN_ERROR(BAD_DATA) << "offset " << offset << " + length " << length << " exceeds the memory size "
                              << size();
  }
  return {};
}

nn::Status RuntimeMemory::validateForExecution(const CompilationBuilder* compilation, IoType io, uint32_t index,
                                               const ANeuralNetworksOperandType* type, size_t offset,
                                               size_t length) const {
  const char* what = io == IoType::kInput ? "input" : "output";
  if (description_ == nullptr) {
    if (io == IoType::kInput && !readable_) return NN_ERROR(BAD_DATA) << "the memory is not readable (no PROT_READ)";
    if (io == IoType::kOutput && !writable_) {
      return NN_ERROR(BAD_DATA) << "the memory is not writable (no PROT_WRITE)";
    }
    if (length == 0) return NN_ERROR(BAD_DATA) << "length must be greater than 0 for a memory from an fd";
    if (!regionFits(offset, length, size())) {
      return NN_ERROR(BAD_DATA) << "offset " << offset << " + length " << length << " exceeds the memory size "
                                << size();
    }
    return {};
  }
  if (offset != 0 || length != 0) {
    return NN_ERROR(BAD_DATA) << "a memory from a descriptor is used whole: offset and length must be 0";
  }
  if (description_->roles.count(MemoryRole{compilation, io, index}) == 0) {
    return NN_ERROR(BAD_DATA) << "the memory's descriptor has no role as " << what << " " << index
                              << " of this compilation";
  }
  if (type != nullptr && !areCompatible(dimensionsOf(*type), description_->dimensions)) {
    return NN_ERROR(BAD_DATA) << "dimensions " << toString(dimensionsOf(*type))
                              << " are incompatible with the memory's " << toString(description_->dimensions);
  }
  return {};
}

bool RuntimeMemory::isInitialized() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return initialized_;
}

nn::Dimensions RuntimeMemory::dimensions() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return dimensions_;
}

void RuntimeMemory::setInitialized(bool initialized, const nn::Dimensions& dimensions) const {
  if (description_ == nullptr) return;  // a mapped fd always holds whatever the client put there
  std::lock_guard<std::mutex> lock(mutex_);
  initialized_ = initialized;
  if (initialized && !dimensions.empty()) dimensions_ = dimensions;
}

nn::Status RuntimeMemory::copy(const RuntimeMemory& src, const RuntimeMemory& dst) {
  if (&src == &dst) return {};
  if (!src.isReadable()) return NN_ERROR(BAD_DATA) << "the source memory is not readable";
  if (!dst.isWritable()) return NN_ERROR(BAD_DATA) << "the destination memory is not writable";
  if (!src.isInitialized()) return NN_ERROR(BAD_DATA) << "the source memory is uninitialized";
  if (src.isFromDescription() && dst.isFromDescription()) {
    if (src.description()->operand.type != dst.description()->operand.type) {
      return NN_ERROR(BAD_DATA) << "the memories hold different operand types";
    }
    NN_TRY(combine(src.dimensions(), dst.description()->dimensions));
  }
  if (src.size() != dst.size()) {
    return NN_ERROR(BAD_DATA) << "the memories differ in size: " << src.size() << " and " << dst.size();
  }
  std::memcpy(dst.memory_->data(), src.memory_->data(), src.size());
  dst.setInitialized(true, src.dimensions());
  return {};
}

}  // namespace weft::runtime
