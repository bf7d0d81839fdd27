#include "npu/sim/sram.h"

#include <algorithm>
#include <numeric>

namespace npu::sim {

Sram::Sram(uint64_t bytes, uint32_t banks, uint32_t bank_bytes)
    : bytes_(bytes, 0), banks_(std::max(1u, banks)), bank_bytes_(std::max(1u, bank_bytes)) {}

uint32_t Sram::group_cycles(uint64_t first, uint32_t row_bytes, uint32_t rows, uint64_t stride) const {
  std::vector<uint32_t> hits(banks_, 0);
  for (uint32_t r = 0; r < rows; ++r) {
    const uint64_t start = first + r * stride;
    const uint64_t g0 = start / bank_bytes_, g1 = (start + row_bytes - 1) / bank_bytes_;
    // A row touches each of its banks once (a row never wraps all the way around: it is shorter than the
    // port, and the port is narrower than the banks together — else it could not be packed).
    for (uint64_t g = g0; g <= g1 && g < g0 + banks_; ++g) ++hits[g % banks_];
  }
  return std::max(1u, *std::max_element(hits.begin(), hits.end()));
}

uint64_t Sram::conflict_cycles(uint64_t offset, uint32_t row_bytes, uint32_t rows, uint64_t stride,
                               uint32_t port_bytes) const {
  if (rows < 2 || row_bytes == 0 || port_bytes == 0) return 0;
  const uint32_t per_cycle = port_bytes / row_bytes;  // rows packed into one port cycle
  if (per_cycle < 2) return 0;
  // Row starts repeat modulo the bank period P = banks · bank_bytes, so groups repeat every
  // lcm(L, per_cycle) / per_cycle groups, L = P / gcd(stride mod P, P).
  const uint64_t period = uint64_t{banks_} * bank_bytes_;
  const uint64_t l = period / std::gcd(stride % period, period);
  const uint64_t groups_per_period = l / std::gcd(l, uint64_t{per_cycle});
  const uint64_t full_groups = rows / per_cycle;
  const uint32_t tail_rows = rows % per_cycle;
  auto extra = [&](uint64_t group, uint32_t n) {
    return uint64_t{group_cycles(offset + group * per_cycle * stride, row_bytes, n, stride)} - 1;
  };
  uint64_t per_period = 0;
  const uint64_t counted = std::min(full_groups, groups_per_period);
  for (uint64_t g = 0; g < counted; ++g) per_period += extra(g, per_cycle);
  uint64_t total = 0;
  if (full_groups <= groups_per_period) {
    total = per_period;
  } else {
    const uint64_t periods = full_groups / groups_per_period, rest = full_groups % groups_per_period;
    total = periods * per_period;
    for (uint64_t g = 0; g < rest; ++g) total += extra(g, per_cycle);
  }
  if (tail_rows > 1) total += extra(full_groups, tail_rows);
  return total;
}

}  // namespace npu::sim
