// The generic enum and factory tables (npu/common/enum_table.h, factory_table.h) on a local enum and a
// local family, and the schema's report of a choice's allowed values.
#include <gtest/gtest.h>

#include <memory>

#include "../support/enum_table_checks.h"
#include "npu/common/config.h"
#include "npu/common/factory_table.h"

namespace npu::test_colour {

enum class Colour { RED = 2, GREEN = 5, BLUE = 7 };
inline constexpr enums::Entry<Colour> kColourNames[] = {
    {Colour::RED, "red"}, {Colour::GREEN, "green"}, {Colour::BLUE, "blue"}};
constexpr const auto& enum_table(Colour) { return kColourNames; }

struct Shape {
  virtual ~Shape() = default;
  virtual int sides() const = 0;
};
struct Triangle : Shape {
  int sides() const override { return 3; }
};
struct Square : Shape {
  int sides() const override { return 4; }
};
using ShapeRow = factory::Row<std::unique_ptr<Shape> (*)()>;
constexpr ShapeRow kShapes[] = {
    {"triangle", "three sides", []() -> std::unique_ptr<Shape> { return std::make_unique<Triangle>(); }},
    {"square", "four sides", []() -> std::unique_ptr<Shape> { return std::make_unique<Square>(); }},
};

}  // namespace npu::test_colour

namespace {

using namespace npu;
using test_colour::Colour;

TEST(EnumTable, ToStringParseAndNamesComeFromTheTable) {
  static_assert(enums::to_string(Colour::GREEN)[0] == 'g', "to_string is constexpr");
  static_assert(*enums::parse<Colour>("blue") == Colour::BLUE, "parse is constexpr");
  EXPECT_STREQ(enums::to_string(Colour::RED), "red");
  EXPECT_STREQ(enums::to_string(static_cast<Colour>(3)), "?");
  EXPECT_STREQ(enums::to_string(static_cast<Colour>(3), "invalid"), "invalid");
  EXPECT_EQ(enums::parse<Colour>("green"), Colour::GREEN);
  EXPECT_FALSE(enums::parse<Colour>("Green").has_value()) << "names are case-sensitive";
  EXPECT_FALSE(enums::parse<Colour>("").has_value());
  EXPECT_EQ(enums::names<Colour>(), (std::vector<std::string>{"red", "green", "blue"}));
  EXPECT_EQ(enums::joined_names<Colour>(), "red, green, blue");
  EXPECT_EQ(enums::joined_names<Colour>(" | "), "red | green | blue");
}

TEST(EnumTable, UnknownNameErrorListsEveryName) {
  const auto r = enums::parse_or_error<Colour>("mauve", "colour");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), "unknown colour \"mauve\" (one of: red, green, blue)");
  const auto ok = enums::parse_or_error<Colour>("blue", "colour");
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(*ok, Colour::BLUE);
}

TEST(EnumTable, LocalTableIsSound) { npu::test::expect_sound_enum_table<Colour>("colour"); }

TEST(EnumTable, ListedNamesSplitsTheErrorList) {
  EXPECT_EQ(npu::test::listed_names("x (one of: a, b-c, d)"), (std::vector<std::string>{"a", "b-c", "d"}));
  EXPECT_TRUE(npu::test::listed_names("no list").empty());
}

TEST(FactoryTable, FindNamesAndJoin) {
  using test_colour::kShapes;
  ASSERT_NE(factory::find(kShapes, "square"), nullptr);
  EXPECT_EQ(factory::find(kShapes, "square")->make()->sides(), 4);
  EXPECT_EQ(factory::find(kShapes, "circle"), nullptr);
  EXPECT_EQ(factory::names(kShapes), (std::vector<std::string>{"triangle", "square"}));
  EXPECT_EQ(factory::joined_names(kShapes), "triangle, square");
}

TEST(FactoryTable, SchemaReportsAChoicesAllowedValues) {
  using test_colour::kShapes;
  std::string shape;
  uint32_t n = 0;
  cfg::Schema s;
  s.choice("shape", &shape, "square", factory::names(kShapes), "a shape").u32("n", &n, 1, "", "a number");
  EXPECT_EQ(s.choices("shape"), factory::names(kShapes));
  EXPECT_TRUE(s.choices("n").empty()) << "not a choice";
  EXPECT_TRUE(s.choices("nothing").empty());
}

}  // namespace
