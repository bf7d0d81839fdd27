// "Did you mean" hints for mistyped names (subcommands, --set parameters, shipped configs).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace npu {

// Edit distance counting insertions, deletions, substitutions and swaps of adjacent characters as one.
size_t edit_distance(std::string_view a, std::string_view b);

// The name of `known` nearest to `given`, when it is near enough to be a typo (distance at most 2, or a
// third of the length for long names); empty otherwise. Ties go to the first listed.
std::string nearest_name(std::string_view given, const std::vector<std::string>& known);

// " (did you mean X?)" for nearest_name's X, or empty.
std::string did_you_mean(std::string_view given, const std::vector<std::string>& known);

}  // namespace npu
