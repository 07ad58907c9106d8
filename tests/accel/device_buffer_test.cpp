// Device memory on the accelerator (IDevice::allocate, DeviceBuffer.h): a tensor passed from one
// execution to the next through a buffer in simulated DRAM crosses no host copy when both keep it
// in the same layout (ExecutionProfile::hostCopyBytes), goes through the host when they do not,
// stays coherent with its host mapping, and bad roles are refused without allocating anything.
#include <gtest/gtest.h>

#include <cstring>

#include "AccelTestUtil.h"
#include "DeadlineModels.h"
#include "Device.h"
#include "DeviceBuffer.h"
#include "weft/hal/IBuffer.h"

namespace weft::accel::test {
namespace {

struct Chain {
  hal::SharedDevice device = approxDevice("weft8");
  std::mt19937 rng{21};
  // first: image -> image (3x3 SAME: its output needs no halo); second reads that image.
  OpModel first = makeConvChain(1, 10, 12, rng);
  OpModel second;
  hal::SharedPreparedModel a, b;

  explicit Chain(uint32_t secondKernel) : second(makeConvChain(1, 10, 12, rng, secondKernel)) {
    a = prepare(*device, first.model).value();
    b = prepare(*device, second.model).value();
  }
  nn::Result<hal::SharedBuffer> allocate(const hal::BufferDesc& desc = {}) const {
    return device->allocate(desc, {a, b}, {{1, 0, 1.0f}}, {{0, 0, 1.0f}});
  }
  // The CPU reference of the chain: first's output is second's input.
  std::vector<uint8_t> expected(std::vector<uint8_t>* middle = nullptr) const {
    auto y = runOnCpu(first).value().outputs[0];
    if (middle != nullptr) *middle = y;
    OpModel s = second;
    s.inputs[0] = y;
    return runOnCpu(s).value().outputs[0];
  }
};

nn::RequestArgument pointerTo(std::vector<uint8_t>& bytes) {
  nn::RequestArgument a;
  a.lifetime = nn::RequestArgument::LifeTime::POINTER;
  a.location.pointer = bytes.data();
  a.location.length = static_cast<uint32_t>(bytes.size());
  return a;
}
nn::RequestArgument inPool(uint32_t pool) {
  nn::RequestArgument a;
  a.lifetime = nn::RequestArgument::LifeTime::POOL;
  a.location.poolIndex = pool;
  return a;
}

// Runs first (input from the host, output into the buffer) then second (input from the buffer,
// output to the host); returns the output and the executions' host copy bytes.
struct ChainRun {
  std::vector<uint8_t> output;
  uint64_t firstCopies = 0, secondCopies = 0;
};
ChainRun runChain(const Chain& c, const hal::SharedBuffer& buffer, std::vector<uint8_t> input) {
  ChainRun run;
  nn::Request r1;
  r1.inputs.push_back(pointerTo(input));
  r1.outputs.push_back(inPool(0));
  r1.pools.push_back(buffer->asMemory());
  auto e1 = c.a->execute(r1, nn::MeasureTiming::NO, {}, {});
  EXPECT_TRUE(e1.ok()) << e1.error().message;
  if (!e1.ok()) return run;
  run.firstCopies = e1->profile.hostCopyBytes;
  run.output.assign(c.second.outputBytes[0], 0xEE);
  nn::Request r2;
  r2.inputs.push_back(inPool(0));
  r2.outputs.push_back(pointerTo(run.output));
  r2.pools.push_back(buffer->asMemory());
  auto e2 = c.b->execute(r2, nn::MeasureTiming::NO, {}, {});
  EXPECT_TRUE(e2.ok()) << e2.error().message;
  if (e2.ok()) run.secondCopies = e2->profile.hostCopyBytes;
  return run;
}

TEST(DeviceBuffer, AChainThroughABufferInTheSameLayoutCopiesNothingBetweenTheExecutions) {
  const Chain c(/*secondKernel=*/1);  // 1x1: reads the image without a halo, as first writes it
  auto buffer = c.allocate();
  ASSERT_TRUE(buffer.ok()) << buffer.error().message;
  ASSERT_NE(buffer.value()->asMemory(), nullptr);
  std::vector<uint8_t> middle;
  const std::vector<uint8_t> expected = c.expected(&middle);
  const ChainRun run = runChain(c, buffer.value(), c.first.inputs[0]);
  EXPECT_EQ(firstMismatch(run.output, expected), -1);
  // first copied its input in and nothing out; second nothing in and its output out.
  EXPECT_EQ(run.firstCopies, c.first.inputs[0].size());
  EXPECT_EQ(run.secondCopies, c.second.outputBytes[0]);
  // The host mapping sees what the device wrote.
  nn::SharedMemory mapping = buffer.value()->asMemory();
  ASSERT_EQ(mapping->size(), middle.size());
  EXPECT_EQ(std::memcmp(mapping->data(), middle.data(), middle.size()), 0);
}

TEST(DeviceBuffer, WhatTheHostWritesThroughTheMappingTheDeviceReads) {
  const Chain c(1);
  auto buffer = c.allocate();
  ASSERT_TRUE(buffer.ok()) << buffer.error().message;
  std::vector<uint8_t> y(c.second.inputs[0].size());
  for (size_t i = 0; i < y.size(); ++i) y[i] = static_cast<uint8_t>(i * 7);
  std::memcpy(buffer.value()->asMemory()->data(), y.data(), y.size());
  std::vector<uint8_t> out(c.second.outputBytes[0]);
  nn::Request r;
  r.inputs.push_back(inPool(0));
  r.outputs.push_back(pointerTo(out));
  r.pools.push_back(buffer.value()->asMemory());
  auto e = c.b->execute(r, nn::MeasureTiming::NO, {}, {});
  ASSERT_TRUE(e.ok()) << e.error().message;
  EXPECT_EQ(e->profile.hostCopyBytes, y.size() + out.size());  // the mapping's bytes went back once
  OpModel s = c.second;
  s.inputs[0] = y;
  EXPECT_EQ(firstMismatch(out, runOnCpu(s).value().outputs[0]), -1);
}

TEST(DeviceBuffer, ARoleKeepingTheTensorInAnotherLayoutGoesThroughTheHost) {
  const Chain c(/*secondKernel=*/3);  // 3x3 SAME: second keeps its input with a halo
  auto buffer = c.allocate();  // in second's layout, its input being the first role
  ASSERT_TRUE(buffer.ok()) << buffer.error().message;
  const ChainRun run = runChain(c, buffer.value(), c.first.inputs[0]);
  EXPECT_EQ(firstMismatch(run.output, c.expected()), -1);
  EXPECT_GT(run.firstCopies, c.first.inputs[0].size());  // first's output through the host
  EXPECT_EQ(run.secondCopies, c.second.outputBytes[0]);   // second reads it in place
}

TEST(DeviceBuffer, CopyFromAndCopyToRoundTrip) {
  const Chain c(1);
  auto buffer = c.allocate();
  ASSERT_TRUE(buffer.ok()) << buffer.error().message;
  struct Host final : nn::Memory {
    std::vector<uint8_t> bytes;
    uint8_t* data() override { return bytes.data(); }
    size_t size() const override { return bytes.size(); }
  } in, out;
  in.bytes.resize(buffer.value()->asMemory()->size());
  for (size_t i = 0; i < in.bytes.size(); ++i) in.bytes[i] = static_cast<uint8_t>(i * 13 + 1);
  ASSERT_TRUE(buffer.value()->copyFrom(in, {}).ok());
  out.bytes.resize(in.bytes.size());
  ASSERT_TRUE(buffer.value()->copyTo(out).ok());
  EXPECT_EQ(out.bytes, in.bytes);
  Host small;
  small.bytes.resize(3);
  EXPECT_FALSE(buffer.value()->copyFrom(small, {}).ok());
  EXPECT_FALSE(buffer.value()->copyTo(small).ok());
  EXPECT_FALSE(buffer.value()->copyFrom(in, {1, 2, 3}).ok());
}

TEST(DeviceBuffer, BadRolesAreRefusedAndAllocateNothing) {
  const Chain c(1);
  const auto& queue = std::static_pointer_cast<const Device>(c.device)->queue();
  auto other = deviceOn(sim::createBackend(sim::BackendKind::kApprox, hw::HwConfig::load("weft8")));
  auto foreign = prepare(*other, c.first.model).value();
  std::mt19937 rng(5);
  auto otherShape = prepare(*c.device, makeConvChain(1, 6, 12, rng).model).value();
  const uint64_t inUse = queue->allocator()->bytesInUse();
  struct Case {
    const char* what;
    std::vector<hal::SharedPreparedModel> models;
    std::vector<hal::BufferRole> inputs, outputs;
    hal::BufferDesc desc;
  };
  const Case cases[] = {
      {"no role", {c.a}, {}, {}, {}},
      {"a model index out of range", {c.a}, {{1, 0, 1.0f}}, {}, {}},
      {"an input index out of range", {c.a}, {{0, 1, 1.0f}}, {}, {}},
      {"an output index out of range", {c.a}, {}, {{0, 3, 1.0f}}, {}},
      {"a model prepared on another device", {foreign}, {{0, 0, 1.0f}}, {}, {}},
      {"roles of other dimensions", {c.a, otherShape}, {{1, 0, 1.0f}}, {{0, 0, 1.0f}}, {}},
      {"a descriptor of other dimensions", {c.a}, {{0, 0, 1.0f}}, {}, {{1, 10, 10, 13}}},
      {"a descriptor of another rank", {c.a}, {{0, 0, 1.0f}}, {}, {{10, 10, 12}}},
  };
  for (const Case& k : cases) {
    SCOPED_TRACE(k.what);
    auto refused = c.device->allocate(k.desc, k.models, k.inputs, k.outputs);
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.error().code, nn::ErrorStatus::BAD_DATA);
    EXPECT_EQ(queue->allocator()->bytesInUse(), inUse);
  }
  // Unspecified dimensions in the descriptor are the roles'.
  EXPECT_TRUE(c.device->allocate({{0, 10, 0, 12}}, {c.a}, {{0, 0, 1.0f}}, {}).ok());
}

TEST(DeviceBuffer, PartOfABufferIsNotAnArgument) {
  const Chain c(1);
  auto buffer = c.allocate();
  ASSERT_TRUE(buffer.ok()) << buffer.error().message;
  std::vector<uint8_t> out(c.second.outputBytes[0]);
  nn::Request r;
  r.inputs.push_back(inPool(0));
  r.inputs[0].location.offset = 4;
  r.outputs.push_back(pointerTo(out));
  r.pools.push_back(buffer.value()->asMemory());
  auto e = c.b->execute(r, nn::MeasureTiming::NO, {}, {});
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.error().code, nn::ErrorStatus::BAD_DATA);
}

}  // namespace
}  // namespace weft::accel::test
