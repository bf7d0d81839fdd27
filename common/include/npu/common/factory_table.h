// One table per pluggable family (schedulers, governors, policies…): a row per implementation with its
// name, a one-line description and its constructor. Creation, the schema's choices, help and the error for
// an unknown name all read the same rows, so adding a row is all it takes to add a choice. The helpers
// accept any row type with a `name` member (a family may need more columns, e.g. a parameter explainer),
// as an array or as a span (a table passed down from the layer that assembles the platform).
#pragma once

#include <cstddef>
#include <span>
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
template <class R>
constexpr const R* find(std::span<const R> table, std::string_view name) {
  for (const auto& r : table)
    if (name == r.name) return &r;
  return nullptr;
}

template <class R>
std::vector<std::string> names(std::span<const R> table) {
  std::vector<std::string> out;
  for (const auto& r : table) out.emplace_back(r.name);
  return out;
}

// "a, b, c", for help text and the error for an unknown name.
template <class R>
std::string joined_names(std::span<const R> table, std::string_view sep = ", ") {
  std::string out;
  for (const auto& r : table) {
    if (!out.empty()) out += sep;
    out += r.name;
  }
  return out;
}

// The same on a table declared as an array.
template <class R, size_t N>
constexpr const R* find(const R (&table)[N], std::string_view name) {
  return find(std::span<const R>(table), name);
}

template <class R, size_t N>
std::vector<std::string> names(const R (&table)[N]) {
  return names(std::span<const R>(table));
}

template <class R, size_t N>
std::string joined_names(const R (&table)[N], std::string_view sep = ", ") {
  return joined_names(std::span<const R>(table), sep);
}

}  // namespace npu::factory
