// Reading the CSV files npusim writes (layers.csv, sweep exports) in tests.
#pragma once

#include <string>
#include <vector>

namespace npu::testing {

// Fields of one CSV line, split at commas outside double quotes (the quotes dropped).
inline std::vector<std::string> csv_fields(const std::string& line) {
  std::vector<std::string> f(1);
  bool quoted = false;
  for (char c : line) {
    if (c == '"')
      quoted = !quoted;
    else if (c == ',' && !quoted)
      f.emplace_back();
    else
      f.back() += c;
  }
  return f;
}

}  // namespace npu::testing
