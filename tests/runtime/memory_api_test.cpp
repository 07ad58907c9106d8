// ANeuralNetworksMemory_* and ANeuralNetworksMemoryDesc_*: memories from file descriptors and
// from descriptors, as model constants and as execution inputs and outputs.
#include <gtest/gtest.h>

#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <vector>

#include "NnapiTestUtils.h"

namespace weft::test {
namespace {

constexpr int kOk = ANEURALNETWORKS_NO_ERROR;
constexpr int kNull = ANEURALNETWORKS_UNEXPECTED_NULL;
constexpr int kBadData = ANEURALNETWORKS_BAD_DATA;
constexpr int kBadState = ANEURALNETWORKS_BAD_STATE;

// A memfd of `size` bytes, mapped for the test to read and write.
class SharedFile {
 public:
  explicit SharedFile(size_t size) : size_(size) {
    fd_ = memfd_create("weft-test", 0);
    EXPECT_GE(fd_, 0);
    EXPECT_EQ(ftruncate(fd_, static_cast<off_t>(size)), 0);
    data_ = static_cast<uint8_t*>(mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd_, 0));
    EXPECT_NE(data_, MAP_FAILED);
  }
  ~SharedFile() {
    munmap(data_, size_);
    close(fd_);
  }
  int fd() const { return fd_; }
  float* floats(size_t byteOffset) { return reinterpret_cast<float*>(data_ + byteOffset); }

 private:
  size_t size_;
  int fd_ = -1;
  uint8_t* data_ = nullptr;
};

class Memory {
 public:
  Memory() = default;
  ~Memory() { ANeuralNetworksMemory_free(memory_); }
  ANeuralNetworksMemory** out() { return &memory_; }
  ANeuralNetworksMemory* get() const { return memory_; }

 private:
  ANeuralNetworksMemory* memory_ = nullptr;
};

TEST(MemoryApi, CreateFromFdChecksItsArguments) {
  SharedFile file(8192);
  Memory memory;
  EXPECT_EQ(ANeuralNetworksMemory_createFromFd(4096, PROT_READ, file.fd(), 0, nullptr), kNull);
  EXPECT_EQ(ANeuralNetworksMemory_createFromFd(4096, PROT_READ, -1, 0, memory.out()), kBadData);
  EXPECT_EQ(ANeuralNetworksMemory_createFromFd(0, PROT_READ, file.fd(), 0, memory.out()), kBadData);
  EXPECT_EQ(ANeuralNetworksMemory_createFromFd(4096, PROT_EXEC, file.fd(), 0, memory.out()), kBadData);
  EXPECT_EQ(ANeuralNetworksMemory_createFromFd(4096, PROT_READ, file.fd(), 100, memory.out()), kBadData);
  EXPECT_EQ(ANeuralNetworksMemory_createFromFd(8192, PROT_READ, file.fd(), 4096, memory.out()), kBadData);
  EXPECT_EQ(memory.get(), nullptr);
  EXPECT_EQ(ANeuralNetworksMemory_createFromFd(4096, PROT_READ | PROT_WRITE, file.fd(), 4096, memory.out()), kOk);
  EXPECT_NE(memory.get(), nullptr);
  ANeuralNetworksMemory_free(nullptr);
}

TEST(MemoryApi, AHardwareBufferIsNotAvailable) {
  Memory memory;
  EXPECT_EQ(ANeuralNetworksMemory_createFromAHardwareBuffer(nullptr, memory.out()), kNull);
  const AHardwareBuffer* buffer = reinterpret_cast<const AHardwareBuffer*>(&memory);
  EXPECT_EQ(ANeuralNetworksMemory_createFromAHardwareBuffer(buffer, nullptr), kNull);
  EXPECT_EQ(ANeuralNetworksMemory_createFromAHardwareBuffer(buffer, memory.out()), kBadData);
  EXPECT_EQ(memory.get(), nullptr);
}

TEST(MemoryApi, InputsAndOutputsFromAFileDescriptor) {
  std::unique_ptr<Model> model = makeAddModel(4);
  Compilation compilation(*model);
  ASSERT_EQ(compilation.finish(), kOk);
  SharedFile file(4096);
  for (int i = 0; i < 4; ++i) {
    file.floats(0)[i] = static_cast<float>(i);        // a at offset 0
    file.floats(64)[i] = 10.0f * static_cast<float>(i);  // b at offset 64
  }
  Memory readWrite, readOnly;
  ASSERT_EQ(ANeuralNetworksMemory_createFromFd(4096, PROT_READ | PROT_WRITE, file.fd(), 0, readWrite.out()), kOk);
  ASSERT_EQ(ANeuralNetworksMemory_createFromFd(4096, PROT_READ, file.fd(), 0, readOnly.out()), kOk);

  Execution execution(compilation);
  ANeuralNetworksExecution* e = execution.get();
  EXPECT_EQ(ANeuralNetworksExecution_setInputFromMemory(nullptr, 0, nullptr, readWrite.get(), 0, 16), kNull);
  EXPECT_EQ(ANeuralNetworksExecution_setInputFromMemory(e, 0, nullptr, nullptr, 0, 16), kNull);
  EXPECT_EQ(ANeuralNetworksExecution_setInputFromMemory(e, 2, nullptr, readWrite.get(), 0, 16), kBadData);
  EXPECT_EQ(ANeuralNetworksExecution_setInputFromMemory(e, 0, nullptr, readWrite.get(), 0, 12), kBadData);
  EXPECT_EQ(ANeuralNetworksExecution_setInputFromMemory(e, 0, nullptr, readWrite.get(), 4090, 16), kBadData);
  EXPECT_EQ(ANeuralNetworksExecution_setInputFromMemory(e, 0, nullptr, readWrite.get(), 0, 0), kBadData);
  ASSERT_EQ(ANeuralNetworksExecution_setInputFromMemory(e, 0, nullptr, readOnly.get(), 0, 16), kOk);
  ASSERT_EQ(ANeuralNetworksExecution_setInputFromMemory(e, 1, nullptr, readWrite.get(), 64, 16), kOk);
  EXPECT_EQ(ANeuralNetworksExecution_setOutputFromMemory(nullptr, 0, nullptr, readWrite.get(), 128, 16), kNull);
  EXPECT_EQ(ANeuralNetworksExecution_setOutputFromMemory(e, 0, nullptr, nullptr, 128, 16), kNull);
  EXPECT_EQ(ANeuralNetworksExecution_setOutputFromMemory(e, 0, nullptr, readOnly.get(), 128, 16), kBadData);
  EXPECT_EQ(ANeuralNetworksExecution_setOutputFromMemory(e, 0, nullptr, readWrite.get(), 4088, 16), kBadData);
  ASSERT_EQ(ANeuralNetworksExecution_setOutputFromMemory(e, 0, nullptr, readWrite.get(), 128, 16), kOk);
  ASSERT_EQ(execution.compute(), kOk);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(file.floats(128)[i], 11.0f * static_cast<float>(i));
}

class MemoryDesc {
 public:
  MemoryDesc() { EXPECT_EQ(ANeuralNetworksMemoryDesc_create(&desc_), kOk); }
  ~MemoryDesc() { ANeuralNetworksMemoryDesc_free(desc_); }
  ANeuralNetworksMemoryDesc* get() const { return desc_; }

 private:
  ANeuralNetworksMemoryDesc* desc_ = nullptr;
};

TEST(MemoryDescApi, RolesAndDimensionsAreChecked) {
  std::unique_ptr<Model> model = makeAddModel(4);
  std::unique_ptr<Model> otherModel = makeAddModel(5);
  Compilation compilation(*model), other(*otherModel), unfinished(*model);
  ASSERT_EQ(compilation.finish(), kOk);
  ASSERT_EQ(other.finish(), kOk);
  EXPECT_EQ(ANeuralNetworksMemoryDesc_create(nullptr), kNull);
  ANeuralNetworksMemoryDesc_free(nullptr);

  MemoryDesc desc;
  ANeuralNetworksMemoryDesc* d = desc.get();
  EXPECT_EQ(ANeuralNetworksMemoryDesc_addInputRole(nullptr, compilation.get(), 0, 1.0f), kNull);
  EXPECT_EQ(ANeuralNetworksMemoryDesc_addInputRole(d, nullptr, 0, 1.0f), kNull);
  EXPECT_EQ(ANeuralNetworksMemoryDesc_addInputRole(d, unfinished.get(), 0, 1.0f), kBadData);
  EXPECT_EQ(ANeuralNetworksMemoryDesc_addInputRole(d, compilation.get(), 2, 1.0f), kBadData);
  EXPECT_EQ(ANeuralNetworksMemoryDesc_addInputRole(d, compilation.get(), 0, 0.0f), kBadData);
  EXPECT_EQ(ANeuralNetworksMemoryDesc_addInputRole(d, compilation.get(), 0, 1.5f), kBadData);
  EXPECT_EQ(ANeuralNetworksMemoryDesc_addOutputRole(nullptr, compilation.get(), 0, 1.0f), kNull);
  EXPECT_EQ(ANeuralNetworksMemoryDesc_addOutputRole(d, compilation.get(), 1, 1.0f), kBadData);
  EXPECT_EQ(ANeuralNetworksMemoryDesc_finish(d), kBadData);  // no role yet
  ASSERT_EQ(ANeuralNetworksMemoryDesc_addInputRole(d, compilation.get(), 0, 1.0f), kOk);
  EXPECT_EQ(ANeuralNetworksMemoryDesc_addInputRole(d, compilation.get(), 0, 0.5f), kBadData);  // twice
  EXPECT_EQ(ANeuralNetworksMemoryDesc_addInputRole(d, other.get(), 0, 1.0f), kBadData);  // [5] vs [4]
  ASSERT_EQ(ANeuralNetworksMemoryDesc_addOutputRole(d, compilation.get(), 0, 1.0f), kOk);
  const uint32_t wrong[] = {5};
  const uint32_t right[] = {4};
  EXPECT_EQ(ANeuralNetworksMemoryDesc_setDimensions(nullptr, 1, right), kNull);
  EXPECT_EQ(ANeuralNetworksMemoryDesc_setDimensions(d, 1, nullptr), kNull);
  EXPECT_EQ(ANeuralNetworksMemoryDesc_setDimensions(d, 1, wrong), kBadData);
  ASSERT_EQ(ANeuralNetworksMemoryDesc_setDimensions(d, 1, right), kOk);
  Memory early;
  EXPECT_EQ(ANeuralNetworksMemory_createFromDesc(d, early.out()), kBadState);  // not finished
  ASSERT_EQ(ANeuralNetworksMemoryDesc_finish(d), kOk);
  EXPECT_EQ(ANeuralNetworksMemoryDesc_finish(d), kBadState);
  EXPECT_EQ(ANeuralNetworksMemoryDesc_addInputRole(d, compilation.get(), 1, 1.0f), kBadState);
  EXPECT_EQ(ANeuralNetworksMemoryDesc_setDimensions(d, 1, right), kBadState);
  Memory memory;
  EXPECT_EQ(ANeuralNetworksMemory_createFromDesc(nullptr, memory.out()), kNull);
  EXPECT_EQ(ANeuralNetworksMemory_createFromDesc(d, nullptr), kNull);
  EXPECT_EQ(ANeuralNetworksMemory_createFromDesc(d, memory.out()), kOk);
}

TEST(MemoryDescApi, MemoryOfUnknownSizeIsNotSupported) {
  std::unique_ptr<Model> model = makeAddModel(4, /*unspecifiedOutput=*/true);
  Compilation compilation(*model);
  ASSERT_EQ(compilation.finish(), kOk);
  MemoryDesc desc;
  ASSERT_EQ(ANeuralNetworksMemoryDesc_addOutputRole(desc.get(), compilation.get(), 0, 1.0f), kOk);
  ASSERT_EQ(ANeuralNetworksMemoryDesc_finish(desc.get()), kOk);
  Memory memory;
  EXPECT_EQ(ANeuralNetworksMemory_createFromDesc(desc.get(), memory.out()), ANEURALNETWORKS_OP_FAILED);
}

TEST(MemoryDescApi, OutputOfOneExecutionFeedsTheNext) {
  std::unique_ptr<Model> model = makeAddModel(4);
  Compilation compilation(*model);
  ASSERT_EQ(compilation.finish(), kOk);
  MemoryDesc desc;
  ASSERT_EQ(ANeuralNetworksMemoryDesc_addOutputRole(desc.get(), compilation.get(), 0, 1.0f), kOk);
  ASSERT_EQ(ANeuralNetworksMemoryDesc_addInputRole(desc.get(), compilation.get(), 0, 1.0f), kOk);
  ASSERT_EQ(ANeuralNetworksMemoryDesc_finish(desc.get()), kOk);
  Memory memory;
  ASSERT_EQ(ANeuralNetworksMemory_createFromDesc(desc.get(), memory.out()), kOk);

  std::vector<float> ones(4, 1.0f), twos(4, 2.0f), result(4);
  {
    // Uninitialized: usable as an output, not yet as an input.
    Execution reader(compilation);
    ASSERT_EQ(ANeuralNetworksExecution_setInputFromMemory(reader.get(), 0, nullptr, memory.get(), 0, 0), kOk);
    ASSERT_EQ(reader.setInput(1, ones), kOk);
    ASSERT_EQ(reader.setOutput(0, result), kOk);
    EXPECT_EQ(reader.compute(), kBadData);
  }
  Execution first(compilation);
  EXPECT_EQ(ANeuralNetworksExecution_setOutputFromMemory(first.get(), 0, nullptr, memory.get(), 0, 16), kBadData);
  EXPECT_EQ(ANeuralNetworksExecution_setInputFromMemory(first.get(), 1, nullptr, memory.get(), 0, 0), kBadData)
      << "no role as input 1";
  ASSERT_EQ(first.setInput(0, ones), kOk);
  ASSERT_EQ(first.setInput(1, twos), kOk);
  ASSERT_EQ(ANeuralNetworksExecution_setOutputFromMemory(first.get(), 0, nullptr, memory.get(), 0, 0), kOk);
  ASSERT_EQ(first.compute(), kOk);

  Execution second(compilation);
  ASSERT_EQ(ANeuralNetworksExecution_setInputFromMemory(second.get(), 0, nullptr, memory.get(), 0, 0), kOk);
  ASSERT_EQ(second.setInput(1, twos), kOk);
  ASSERT_EQ(second.setOutput(0, result), kOk);
  ASSERT_EQ(second.compute(), kOk);
  EXPECT_EQ(result, std::vector<float>(4, 5.0f));
}

TEST(MemoryApi, CopyBetweenMemories) {
  std::unique_ptr<Model> model = makeAddModel(4);
  Compilation compilation(*model);
  ASSERT_EQ(compilation.finish(), kOk);
  MemoryDesc desc;
  ASSERT_EQ(ANeuralNetworksMemoryDesc_addInputRole(desc.get(), compilation.get(), 0, 1.0f), kOk);
  ASSERT_EQ(ANeuralNetworksMemoryDesc_finish(desc.get()), kOk);
  Memory fromDesc, copyOfDesc;
  ASSERT_EQ(ANeuralNetworksMemory_createFromDesc(desc.get(), fromDesc.out()), kOk);
  ASSERT_EQ(ANeuralNetworksMemory_createFromDesc(desc.get(), copyOfDesc.out()), kOk);
  SharedFile file(4096);
  Memory whole, exact;
  ASSERT_EQ(ANeuralNetworksMemory_createFromFd(4096, PROT_READ | PROT_WRITE, file.fd(), 0, whole.out()), kOk);
  ASSERT_EQ(ANeuralNetworksMemory_createFromFd(16, PROT_READ | PROT_WRITE, file.fd(), 0, exact.out()), kOk);
  for (int i = 0; i < 4; ++i) file.floats(0)[i] = 7.0f;

  EXPECT_EQ(ANeuralNetworksMemory_copy(nullptr, fromDesc.get()), kNull);
  EXPECT_EQ(ANeuralNetworksMemory_copy(exact.get(), nullptr), kNull);
  EXPECT_EQ(ANeuralNetworksMemory_copy(fromDesc.get(), copyOfDesc.get()), kBadData);  // src uninitialized
  EXPECT_EQ(ANeuralNetworksMemory_copy(whole.get(), fromDesc.get()), kBadData);       // 4096 vs 16 bytes
  ASSERT_EQ(ANeuralNetworksMemory_copy(exact.get(), fromDesc.get()), kOk);
  ASSERT_EQ(ANeuralNetworksMemory_copy(fromDesc.get(), copyOfDesc.get()), kOk);

  // The copy now holds a = 7: usable as input 0.
  Execution execution(compilation);
  std::vector<float> ones(4, 1.0f), result(4);
  ASSERT_EQ(ANeuralNetworksExecution_setInputFromMemory(execution.get(), 0, nullptr, copyOfDesc.get(), 0, 0), kOk);
  ASSERT_EQ(execution.setInput(1, ones), kOk);
  ASSERT_EQ(execution.setOutput(0, result), kOk);
  ASSERT_EQ(execution.compute(), kOk);
  EXPECT_EQ(result, std::vector<float>(4, 8.0f));
}

}  // namespace
}  // namespace weft::test
