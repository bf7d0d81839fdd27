#include "npu/common/suggest.h"

#include <algorithm>

namespace npu {

size_t edit_distance(std::string_view a, std::string_view b) {
  // Optimal string alignment: three rows of the dynamic programme.
  std::vector<size_t> prev2(b.size() + 1), prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        cur[j] = std::min(cur[j], prev2[j - 2] + 1);
    }
    prev2.swap(prev);
    prev.swap(cur);
  }
  return prev[b.size()];
}

std::string nearest_name(std::string_view given, const std::vector<std::string>& known) {
  const size_t limit = std::max<size_t>(2, given.size() / 3);
  std::string best;
  size_t best_distance = limit + 1;
  for (const auto& k : known) {
    const size_t d = edit_distance(given, k);
    if (d < best_distance) best = k, best_distance = d;
  }
  return best;
}

std::string did_you_mean(std::string_view given, const std::vector<std::string>& known) {
  const std::string n = nearest_name(given, known);
  return n.empty() || n == given ? std::string() : " (did you mean " + n + "?)";
}

}  // namespace npu
