// Range-checked JSON fields (weft/common/json_fields.h): every value of the right kind comes
// back, every wrong one is an error of the caller's type with the message the readers print.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "weft/common/json_fields.h"

namespace weft::common::json_fields {
namespace {

using nlohmann::json;

// The caller's error types: the functions throw these, never another.
struct ReaderError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
struct OtherError {
  explicit OtherError(std::string m) : message(std::move(m)) {}
  std::string message;
};

// The message of the ReaderError `f` throws; fails when it throws none.
template <typename F>
std::string messageOf(F f) {
  try {
    f();
  } catch (const ReaderError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no ReaderError";
  return "";
}

TEST(JsonFields, IntegersMustFitTheirType) {
  const json j = json::parse(R"({"a": 255, "b": 256, "c": -1, "d": 128.0, "e": 1.5, "f": "7", "g": 1e300,
                                  "h": 18446744073709551615, "i": -9223372036854775808})");
  EXPECT_EQ((get<uint8_t, ReaderError>(j, "a", "net.json")), 255);
  EXPECT_EQ((get<int32_t, ReaderError>(j, "d", "net.json")), 128);
  EXPECT_EQ((get<uint64_t, ReaderError>(j, "h", "net.json")), UINT64_MAX);
  EXPECT_EQ((get<int64_t, ReaderError>(j, "i", "net.json")), INT64_MIN);
  EXPECT_EQ(messageOf([&] { get<uint8_t, ReaderError>(j, "b", "net.json"); }),
            "net.json: \"b\" must be an integer in [0, 255]");
  EXPECT_EQ(messageOf([&] { get<uint32_t, ReaderError>(j, "c", "net.json"); }),
            "net.json: \"c\" must be an integer in [0, 4294967295]");
  EXPECT_EQ(messageOf([&] { get<int32_t, ReaderError>(j, "e", "net.json"); }),
            "net.json: \"e\" must be an integer in [-2147483648, 2147483647]");
  EXPECT_EQ(messageOf([&] { get<int32_t, ReaderError>(j, "f", "net.json"); }), "net.json: \"f\" must be an integer");
  EXPECT_EQ(messageOf([&] { get<int64_t, ReaderError>(j, "g", "net.json"); }),
            "net.json: \"g\" must be an integer in [-9223372036854775808, 9223372036854775807]");
  EXPECT_EQ(messageOf([&] { get<int64_t, ReaderError>(j, "h", "net.json"); }),
            "net.json: \"h\" must be an integer in [-9223372036854775808, 9223372036854775807]");
}

TEST(JsonFields, FloatsMustBeFiniteNumbersInRange) {
  const json j = json::parse(R"({"s": 0.5, "n": 3, "big": 1e300, "t": true})");
  EXPECT_EQ((get<float, ReaderError>(j, "s", "w")), 0.5f);
  EXPECT_EQ((get<double, ReaderError>(j, "n", "w")), 3.0);
  EXPECT_EQ((get<double, ReaderError>(j, "big", "w")), 1e300);
  EXPECT_EQ(messageOf([&] { get<float, ReaderError>(j, "big", "w"); }),
            "w: \"big\" is 1e+300, out of the range of a 32-bit float");
  EXPECT_EQ(messageOf([&] { get<float, ReaderError>(j, "t", "w"); }), "w: \"t\" must be a number");
}

TEST(JsonFields, OtherTypesAndMissingFieldsNameTheField) {
  const json j = json::parse(R"({"name": "resnet", "n": 3})");
  EXPECT_EQ((get<std::string, ReaderError>(j, "name", "w")), "resnet");
  EXPECT_EQ(messageOf([&] { get<std::string, ReaderError>(j, "n", "w"); }).rfind("w: \"n\" has the wrong type (", 0),
            0u);
  EXPECT_EQ(messageOf([&] { get<int, ReaderError>(j, "missing", "layer 2"); }), "layer 2: missing \"missing\"");
  EXPECT_EQ(messageOf([&] { field<ReaderError>(json::array({1}), "n", "w"); }), "w: missing \"n\"");
}

TEST(JsonFields, IntegersWithinBoundsSayWhichBoundsAndWhatWasWritten) {
  const json j = json::parse(R"({"stride": 0, "axis": 2, "f": 2.0})");
  EXPECT_EQ((integerFieldIn<ReaderError>(j, "axis", -4, 3, "w")), 2);
  EXPECT_EQ(messageOf([&] { integerFieldIn<ReaderError>(j, "stride", 1, 64, "w"); }),
            "w: \"stride\" is 0, not in [1, 64]");
  EXPECT_EQ(messageOf([&] { integerFieldIn<ReaderError>(j, "f", 1, 64, "w"); }), "w: \"f\" must be an integer");
  EXPECT_EQ(messageOf([&] { integer<ReaderError>(json("x"), "spec.json: grid.Rows:"); }),
            "spec.json: grid.Rows: must be an integer");
  EXPECT_EQ((integer<ReaderError>(json(-5), "s")), -5);
}

TEST(JsonFields, TheErrorIsTheCallersTypeAndWorksWithOrderedJson) {
  const nlohmann::ordered_json j = nlohmann::ordered_json::parse(R"({"n": 300})");
  EXPECT_EQ((get<uint16_t, OtherError>(j, "n", "w")), 300);
  try {
    get<uint8_t, OtherError>(j, "n", "w");
    FAIL() << "no OtherError";
  } catch (const OtherError& e) {
    EXPECT_EQ(e.message, "w: \"n\" must be an integer in [0, 255]");
  }
}

}  // namespace
}  // namespace weft::common::json_fields
