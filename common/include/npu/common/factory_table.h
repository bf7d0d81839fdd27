// One table per pluggable family (schedulers, governors, policies…): a row per implementation with its
// name, a one-line description and its constructor. Creation, the schema's choices, help and the error for
// an unknown name all read the same rows, so adding a row is all it takes to add a choice. The helpers
// accept any row type with a `name` member (a family may need more columns, e.g. a parameter explainer).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace npu::factory {

template <class Make>
struct Row {
  const char* name;
  const char* description;
  Make make;
};

// The row called `name`, or nullptr.
template <class R, size_t N>
constexpr const R* find(const R (&table)[N], std::string_view name) {
  for (const auto& r : table)
    if (name == r.name) return &r;
  return nullptr;
}

template <class R, size_t N>
std::vector<std::string> names(const R (&table)[N]) {
  std::vector<std::string> out;
  for (const auto& r : table) out.emplace_back(r.name);
  return out;
}

// "a, b, c", for help text and the error for an unknown name.
template <class R, size_t N>
std::string joined_names(const R (&table)[N], std::string_view sep = ", ") {
  std::string out;
  for (const auto& r : table) {
    if (!out.empty()) out += sep;
    out += r.name;
  }
  return out;
}

}  // namespace npu::factory
