// Device DRAM allocation (DramAllocator): first fit, alignment, the minimum alignment the device
// queue sets to the DRAM burst (so that where a region lies never changes the timing), freeing and
// coalescing, and a request that does not fit, which names the sizes and changes nothing.
#include <gtest/gtest.h>

#include <vector>

#include "DramAllocator.h"

namespace weft::accel::test {
namespace {

constexpr uint64_t kBase = 4096;

TEST(DramAllocator, RegionsStartOnTheMinimumAlignmentWhateverTheyAskFor) {
  auto allocator = DramAllocator::create(kBase + 8, 1 << 20, 256);
  std::vector<SharedRegion> regions;
  for (uint64_t bytes : {1, 100, 257, 64}) {
    auto r = allocator->allocate(bytes, 64, "a tensor");
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_EQ(r.value()->addr() % 256, 0u) << bytes;
    EXPECT_EQ(r.value()->bytes(), bytes);
    regions.push_back(std::move(r).value());
  }
  // A larger alignment than the minimum is honoured too.
  auto big = allocator->allocate(10, 4096, "a ring");
  ASSERT_TRUE(big.ok());
  EXPECT_EQ(big.value()->addr() % 4096, 0u);
  // Without a minimum, 64 is 64: first fit packs the regions.
  auto packed = DramAllocator::create(kBase, 1 << 20);
  auto a = packed->allocate(1, 64, "a"), b = packed->allocate(1, 64, "b");
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(b.value()->addr() - a.value()->addr(), 64u);
}

TEST(DramAllocator, AFreedRegionIsReusedInPlace) {
  auto allocator = DramAllocator::create(kBase, 1 << 20, 64);
  auto first = allocator->allocate(1000, 64, "first");
  ASSERT_TRUE(first.ok());
  SharedRegion region = std::move(first).value();
  const uint64_t addr = region->addr();
  auto second = allocator->allocate(1000, 64, "second");
  ASSERT_TRUE(second.ok());
  region.reset();  // the last handle goes: the region is free again
  EXPECT_EQ(allocator->bytesInUse(), 1000u);
  auto third = allocator->allocate(512, 64, "third");
  ASSERT_TRUE(third.ok());
  EXPECT_EQ(third.value()->addr(), addr);
}

TEST(DramAllocator, ARequestThatDoesNotFitNamesTheSizesAndChangesNothing) {
  auto allocator = DramAllocator::create(kBase, 4096, 64);
  auto kept = allocator->allocate(3000, 64, "weights of operation 0");
  ASSERT_TRUE(kept.ok());
  const uint64_t inUse = allocator->bytesInUse(), free = allocator->bytesFree();
  auto refused = allocator->allocate(2000, 64, "the command ring");
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find("the command ring needs 2000 bytes"), std::string::npos)
      << refused.error().message;
  EXPECT_NE(refused.error().message.find("DramMiB"), std::string::npos) << refused.error().message;
  EXPECT_EQ(allocator->bytesInUse(), inUse);
  EXPECT_EQ(allocator->bytesFree(), free);
  auto badAlignment = allocator->allocate(10, 48, "a tensor");
  ASSERT_FALSE(badAlignment.ok());
  EXPECT_NE(badAlignment.error().message.find("not a power of two"), std::string::npos);
  EXPECT_EQ(allocator->bytesInUse(), inUse);
}

}  // namespace
}  // namespace weft::accel::test
