// One table per enum: its {value, name} pairs, declared once beside the enum, give its string form (logs,
// JSON), its parser (configs, the CLI) and its list of names (schema choices, help, error messages), so
// the three cannot drift apart. An enum opts in with an ADL hook next to its declaration:
//
//   enum class Colour { RED, GREEN };
//   inline constexpr enums::Entry<Colour> kColourNames[] = {{Colour::RED, "red"}, {Colour::GREEN, "green"}};
//   constexpr const auto& enum_table(Colour) { return kColourNames; }
//
// and then enums::to_string(c), enums::parse<Colour>("red"), enums::names<Colour>().
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "npu/common/result.h"

namespace npu::enums {

template <class E>
struct Entry {
  E value;
  const char* name;
};

// The enum's table, found by argument-dependent lookup in the enum's namespace.
template <class E>
constexpr const auto& table() {
  return enum_table(E{});
}

// `unknown` for a value outside the table (a cast from a raw number).
template <class E>
constexpr const char* to_string(E v, const char* unknown = "?") {
  for (const auto& e : table<E>())
    if (e.value == v) return e.name;
  return unknown;
}

template <class E>
constexpr std::optional<E> parse(std::string_view name) {
  for (const auto& e : table<E>())
    if (name == e.name) return e.value;
  return std::nullopt;
}

// Every name, in table order.
template <class E>
std::vector<std::string> names() {
  std::vector<std::string> out;
  for (const auto& e : table<E>()) out.emplace_back(e.name);
  return out;
}

// The names separated by `sep` ("a, b, c"), for help text and error messages.
template <class E>
std::string joined_names(std::string_view sep = ", ") {
  std::string out;
  for (const auto& e : table<E>()) {
    if (!out.empty()) out += sep;
    out += e.name;
  }
  return out;
}

// parse(), or an error naming `what` and every valid name: `unknown colour "blue" (one of: red, green)`.
template <class E>
Result<E> parse_or_error(std::string_view name, std::string_view what) {
  if (auto v = parse<E>(name)) return *v;
  return make_error("unknown " + std::string(what) + " \"" + std::string(name) +
                    "\" (one of: " + joined_names<E>() + ")");
}

}  // namespace npu::enums
