// Checks every enum table and factory table must pass: each name parses back to its value, names and
// values are unique, and the error for an unknown name lists every valid name.
#pragma once

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "npu/common/enum_table.h"

namespace npu::test {

// The names an error lists after "(one of: ", up to the closing parenthesis.
inline std::vector<std::string> listed_names(const std::string& error) {
  const std::string open = "(one of: ";
  const auto begin = error.find(open);
  const auto end = error.rfind(')');
  std::vector<std::string> out;
  if (begin == std::string::npos || end == std::string::npos || end < begin) return out;
  const std::string list = error.substr(begin + open.size(), end - begin - open.size());
  size_t at = 0;
  while (at <= list.size()) {
    const auto comma = list.find(", ", at);
    out.push_back(list.substr(at, comma == std::string::npos ? std::string::npos : comma - at));
    if (comma == std::string::npos) break;
    at = comma + 2;
  }
  return out;
}

template <class E>
void expect_sound_enum_table(const std::string& what) {
  SCOPED_TRACE(what);
  std::set<std::string> names;
  std::set<long long> values;
  for (const auto& e : enums::table<E>()) {
    EXPECT_TRUE(names.insert(e.name).second) << "duplicate name " << e.name;
    EXPECT_TRUE(values.insert(static_cast<long long>(e.value)).second) << "duplicate value of " << e.name;
    EXPECT_STREQ(enums::to_string(e.value), e.name);
    const auto back = enums::parse<E>(enums::to_string(e.value));
    ASSERT_TRUE(back.has_value()) << e.name;
    EXPECT_EQ(*back, e.value) << e.name;
  }
  EXPECT_EQ(enums::names<E>().size(), names.size());
  const auto bad = enums::parse_or_error<E>("no-such-name", what);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().find("no-such-name"), std::string::npos) << bad.error();
  EXPECT_EQ(listed_names(bad.error()), enums::names<E>()) << bad.error();
}

}  // namespace npu::test
