#include "cutune/value.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cutune/problem.hpp"
#include "printers.hpp"

namespace cutune {
namespace {

TEST(Value, JsonRoundTripsEveryType) {
  const std::vector<Value> values = {
      true, 42, -7, 2.5, "cooperative", Value(Value::List{1, "x", Value::List{false}})};
  for (const Value& v : values) {
    EXPECT_EQ(Value::from_json(v.to_json()), v) << v.to_string();
    EXPECT_EQ(Value::from_json(nlohmann::json::parse(v.to_string())), v) << v.to_string();
  }
  EXPECT_EQ(Value(Value::List{1, "x"}).to_string(), R"([1,"x"])");
}

TEST(Value, FromJsonRejectsObjectsAndNullNamingThem) {
  try {
    Value::from_json(nlohmann::json::parse(R"({"a": 1})"));
    FAIL() << "an object is not a value";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("object"), std::string::npos) << e.what();
  }
  EXPECT_THROW(Value::from_json(nullptr), std::invalid_argument);
}

TEST(Value, AccessorsNameTheActualType) {
  try {
    Value("pingpong").as_int();
    FAIL() << "a string is not an integer";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "expected an integer value, got a string");
  }
  EXPECT_DOUBLE_EQ(Value(3).as_double(), 3.0);  // integers widen
  EXPECT_THROW(Value(3.0).as_int(), std::invalid_argument);
}

TEST(Value, HashSeparatesTypesAndIsStableAcrossRuns) {
  const std::uint64_t basis = 0xcbf29ce484222325ULL;
  EXPECT_EQ(Value(1).hash(basis), Value(1).hash(basis));
  EXPECT_NE(Value(1).hash(basis), Value(true).hash(basis));
  EXPECT_NE(Value(1).hash(basis), Value(1.0).hash(basis));
  EXPECT_NE(Value(1).hash(basis), Value("1").hash(basis));
  EXPECT_NE(Value(Value::List{1, 2}).hash(basis), Value(Value::List{2, 1}).hash(basis));
  EXPECT_NE(Value("ab").hash(basis), Value("ba").hash(basis));
  EXPECT_EQ(Value(-0.0).hash(basis), Value(0.0).hash(basis));  // equal values, equal hashes
  // Stored results are keyed by these hashes: a change here orphans every stored row.
  EXPECT_EQ(Value("cooperative").hash(basis), 0xbc7f0cbf96e30651ULL);
  EXPECT_EQ(Value(128).hash(basis), 0x22cdb9b80149c210ULL);
}

TEST(Problem, ParsesTypedArgumentsAndPrintsThemSorted) {
  const Problem p = Problem::parse("m=2048, n=4096,k=4096,dtype=bf16,alpha=0.5,fused=true");
  EXPECT_EQ(p.get_int("m"), 2048);
  EXPECT_EQ(p.at("dtype").as_string(), "bf16");
  EXPECT_DOUBLE_EQ(p.at("alpha").as_double(), 0.5);
  EXPECT_TRUE(p.at("fused").as_bool());
  EXPECT_EQ(p.canonical(), "alpha=0.5,dtype=bf16,fused=true,k=4096,m=2048,n=4096");
  EXPECT_EQ(Problem::parse("").args().size(), 0u);
}

TEST(Problem, MalformedItemsAreNamed) {
  for (const char* text : {"m", "=3", "m=", "m=1,,n=2", "m=1,m=2"}) {
    try {
      Problem::parse(text);
      FAIL() << text << " parsed";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("problem"), std::string::npos) << e.what();
    }
  }
  try {
    Problem::parse("m=1").at("k");
    FAIL() << "k is missing";
  } catch (const std::out_of_range& e) {
    EXPECT_NE(std::string(e.what()).find("'k'"), std::string::npos) << e.what();
  }
}

TEST(Device, H200DescriptionMatchesTheCard) {
  const Device d = Device::h200();
  EXPECT_EQ(d.cc_major, 9);
  EXPECT_EQ(d.sm_count, 132);
  EXPECT_EQ(d.smem_per_block, 227 * 1024);
  EXPECT_EQ(d.canonical(), "NVIDIA H200,cc=9.0,smem=232448,sms=132");
  EXPECT_GT(Device::host_cpu().sm_count, 0);
}

}  // namespace
}  // namespace cutune
