#include "npu/tools/memory_budget.h"

#include <sys/resource.h>
#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>

#include "npu/models/tensor.h"

namespace npu::tools {
namespace {

std::string gib(uint64_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f GiB", static_cast<double>(bytes) / static_cast<double>(1ull << 30));
  return buf;
}

uint64_t default_budget() {
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  const long page = ::sysconf(_SC_PAGE_SIZE);
  uint64_t total = pages > 0 && page > 0 ? static_cast<uint64_t>(pages) * static_cast<uint64_t>(page) : 0;
  rlimit as{};
  if (::getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY && (total == 0 || as.rlim_cur < total))
    total = as.rlim_cur;
  return total ? total / 4 * 3 : uint64_t{8} << 30;
}

}  // namespace

Result<uint64_t> parse_memory_size(const std::string& text) {
  size_t i = 0;
  uint64_t n = 0;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
    const uint64_t digit = static_cast<uint64_t>(text[i] - '0');
    if (n > (UINT64_MAX - digit) / 10) return make_error("\"" + text + "\": too large");
    n = n * 10 + digit;
    ++i;
  }
  unsigned shift = 0;
  if (i + 1 == text.size()) {
    switch (std::toupper(static_cast<unsigned char>(text[i]))) {
      case 'K':
        shift = 10;
        break;
      case 'M':
        shift = 20;
        break;
      case 'G':
        shift = 30;
        break;
      case 'T':
        shift = 40;
        break;
      default:
        shift = 64;
    }
    ++i;
  }
  if (i == 0 || i != text.size() || shift == 64 || n == 0)
    return make_error("\"" + text + "\": expected a size such as 512M, 8G or a number of bytes above 0");
  if (shift && n > (UINT64_MAX >> shift)) return make_error("\"" + text + "\": too large");
  return n << shift;
}

Result<uint64_t> memory_budget(std::optional<uint64_t> override_bytes) {
  if (override_bytes) return *override_bytes;
  if (const char* env = std::getenv("NPUSIM_MEMORY_LIMIT"); env && *env) {
    auto n = parse_memory_size(env);
    if (!n) return make_error("NPUSIM_MEMORY_LIMIT: " + n.error());
    return *n;
  }
  return default_budget();
}

Result<void> check_host_memory(const models::Model& model, const std::string& name, uint64_t budget) {
  const models::Subgraph& g = model.main;
  uint64_t total = 0, largest = 0;
  std::string largest_what;
  for (const auto* list : {&g.input_indexes, &g.output_indexes}) {
    for (uint32_t idx : *list) {
      if (idx >= g.operands.size()) continue;  // validation names it
      const models::Operand& op = g.operands[idx];
      const uint32_t element = models::element_size(op.type);
      if (!op.fully_specified() || element == 0 || op.element_count() > models::max_operand_bytes() / element)
        continue;
      const uint64_t bytes = op.byte_size();
      total += bytes;
      if (bytes > largest) {
        largest = bytes;
        largest_what = std::string(list == &g.input_indexes ? "input " : "output ") + std::to_string(idx) +
                       " (" + std::string(models::to_string(op.type)) + " " +
                       models::dims_to_string(op.dimensions) + ", " + gib(bytes) + ")";
      }
    }
  }
  // Twice: the host's buffer and the simulated DRAM's copy.
  if (total > budget / 2)
    return make_error(name + ": its inputs and outputs need at least " + gib(2 * total) +
                      " of host memory (held by the host and in the simulated DRAM; the largest is " +
                      largest_what + "), above the memory budget of " + gib(budget) +
                      " (NPUSIM_MEMORY_LIMIT or --memory-limit)");
  return {};
}

}  // namespace npu::tools
