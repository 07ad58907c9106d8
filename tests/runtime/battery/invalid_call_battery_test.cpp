// Runs the invalid-call battery (Battery.h): each row is its own test, named after the call.
#include <gtest/gtest.h>

#include <cstdio>
#include <set>

#include "Battery.h"

namespace weft::test::battery {
namespace {

const std::vector<Case>& allCases() {
  static const std::vector<Case> cases = [] {
    std::vector<Case> all;
    for (auto part : {modelCases(), compilationCases(), executionCases(), memoryCases(), eventBurstAndDeviceCases()}) {
      for (Case& c : part) all.push_back(std::move(c));
    }
    return all;
  }();
  return cases;
}

class InvalidCall : public ::testing::TestWithParam<size_t> {};

TEST_P(InvalidCall, ReturnsTheDocumentedCodeAndChangesNothing) {
  const Case& c = allCases()[GetParam()];
  World world;
  EXPECT_EQ(c.call(world), c.expected) << c.name;
  world.expectIntact(c.subject);
}

INSTANTIATE_TEST_SUITE_P(Battery, InvalidCall, ::testing::Range<size_t>(0, allCases().size()),
                         [](const ::testing::TestParamInfo<size_t>& info) { return allCases()[info.param].name; });

// The count is part of what the battery reports (issue 12 asks for it): every row a distinct
// call, and well over the 123 of the independent battery the issue cites.
TEST(InvalidCallBattery, RowsAreDistinctAndNumerous) {
  std::set<std::string> names;
  for (const Case& c : allCases()) EXPECT_TRUE(names.insert(c.name).second) << "duplicate row " << c.name;
  std::printf("invalid-call battery: %zu distinct calls\n", names.size());
  EXPECT_GE(names.size(), 200u);
}

}  // namespace
}  // namespace weft::test::battery
