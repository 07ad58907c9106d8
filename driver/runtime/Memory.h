// ANeuralNetworksMemory: bytes shared between the client, the model and executions. Either a
// mapping of a client file descriptor (createFromFd) or memory for the roles of a memory
// descriptor (createFromDesc: the roles' device's own buffer when it offers one, DeviceMemory.h,
// host memory otherwise), which also tracks whether it holds valid data and its current
// dimensions.
#pragma once

#include <memory>
#include <mutex>
#include <set>
#include <tuple>

#include "android/NeuralNetworksTypes.h"
#include "weft/nn/Result.h"
#include "weft/nn/Types.h"

namespace weft::runtime {

class CompilationBuilder;

enum class IoType { kInput, kOutput };

// One use a memory created from a descriptor may be put to: input or output `index` of
// executions of `compilation`.
struct MemoryRole {
  const CompilationBuilder* compilation = nullptr;
  IoType io = IoType::kInput;
  uint32_t index = 0;
  bool operator<(const MemoryRole& o) const {
    return std::tie(compilation, io, index) < std::tie(o.compilation, o.io, o.index);
  }
};

// What a finished memory descriptor says: its roles, the operand they all share and the
// dimensions combined from the roles and setDimensions.
struct MemoryDescription {
  std::set<MemoryRole> roles;
  nn::Operand operand;
  nn::OperandTypeInfo typeInfo;  // of operand.type, in its compilations' model
  nn::Dimensions dimensions;
};

class RuntimeMemory {
 public:
  // Maps [offset, offset + size) of a duplicate of `fd` with `protect` (PROT_* bits).
  static nn::Result<std::unique_ptr<RuntimeMemory>> createFromFd(size_t size, int protect, int fd, size_t offset);
  // Memory of the description's byte size, uninitialized: a device buffer or host memory
  // (DeviceMemory.h). OP_FAILED when the dimensions are not fully specified: the size cannot be
  // known.
  static nn::Result<std::unique_ptr<RuntimeMemory>> createFromDescription(const MemoryDescription& description);

  const nn::SharedMemory& memory() const { return memory_; }
  size_t size() const { return memory_->size(); }
  bool isFromDescription() const { return description_ != nullptr; }
  bool isReadable() const { return readable_; }
  bool isWritable() const { return writable_; }

  // Checks a use as model constant bytes (setOperandValueFromMemory).
  nn::Status validateForConstant(size_t offset, size_t length) const;
  // Checks a use as input or output `index` of an execution of `compilation` (setInputFromMemory,
  // setOutputFromMemory): region inside the memory and the right access; for a memory from a
  // descriptor, offset and length 0, a matching role and dimensions compatible with `type`.
  nn::Status validateForExecution(const CompilationBuilder* compilation, IoType io, uint32_t index,
                                  const ANeuralNetworksOperandType* type, size_t offset, size_t length) const;

  // State of a memory from a descriptor: does it hold data (written by a successful execution or
  // copy), and of which dimensions?
  bool isInitialized() const;
  nn::Dimensions dimensions() const;
  // Const because ANeuralNetworksMemory_copy and executions write through const handles.
  void setInitialized(bool initialized, const nn::Dimensions& dimensions = {}) const;
  const MemoryDescription* description() const { return description_.get(); }

  // ANeuralNetworksMemory_copy.
  static nn::Status copy(const RuntimeMemory& src, const RuntimeMemory& dst);

 private:
  RuntimeMemory(nn::SharedMemory memory, bool readable, bool writable,
                std::unique_ptr<MemoryDescription> description);

  nn::SharedMemory memory_;
  bool readable_;
  bool writable_;
  std::unique_ptr<const MemoryDescription> description_;
  mutable std::mutex mutex_;  // guards the two fields below
  mutable bool initialized_;
  mutable nn::Dimensions dimensions_;
};

}  // namespace weft::runtime
