#include "tile_memory.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>

#include "npu/rtl/tile_runner.h"

namespace npu::rtl::detail {
namespace {

[[noreturn]] void bad_command(const std::string& what) {
  throw std::invalid_argument("Int8TileCommand: " + what);
}

// Bytes an operand of `rows` rows of `row_bytes` bytes at stride `ld` spans.
size_t extent(uint32_t rows, uint32_t row_bytes, uint32_t ld) {
  if (rows == 0 || row_bytes == 0) return 0;
  return static_cast<size_t>(rows - 1) * ld + row_bytes;
}

void check_access(const char* port, uint32_t addr, uint32_t bytes, size_t limit, uint32_t lanes) {
  if (bytes == 0) return;  // touches no memory, whatever the offset (k = 0 or n = 0 tiles)
  if (bytes > lanes || static_cast<size_t>(addr) + bytes > limit) {
    throw std::runtime_error(std::string("RTL ") + port + " access out of range: offset " +
                             std::to_string(addr) + ", " + std::to_string(bytes) + " bytes, operand spans " +
                             std::to_string(limit));
  }
}

}  // namespace

void validate_tile_command(const sim::Int8TileCommand& c, sim::ArrayGeometry g) {
  const auto dims = "m=" + std::to_string(c.m) + " k=" + std::to_string(c.k) + " n=" + std::to_string(c.n);
  if (c.n > g.cols) {
    bad_command("n=" + std::to_string(c.n) + " exceeds the array's " + std::to_string(g.cols) + " columns");
  }
  if (c.k > 0 && c.lda < c.k) bad_command("lda=" + std::to_string(c.lda) + " < k (" + dims + ")");
  if (c.n > 0 && c.ldw < c.n) bad_command("ldw=" + std::to_string(c.ldw) + " < n (" + dims + ")");
  if (c.n > 0 && c.ldo < c.n) bad_command("ldo=" + std::to_string(c.ldo) + " < n (" + dims + ")");
  if (c.m > 0 && c.k > 0 && c.a == nullptr) bad_command("a is null (" + dims + ")");
  if (c.k > 0 && c.n > 0 && c.w == nullptr) bad_command("w is null (" + dims + ")");
  if (c.m > 0 && c.n > 0 && (c.bias == nullptr || c.out_multiplier == nullptr || c.out_shift == nullptr)) {
    bad_command("bias, out_multiplier and out_shift must all be set (" + dims + ")");
  }
  if (c.m > 0 && c.n > 0 && c.out == nullptr) bad_command("out is null (" + dims + ")");
  // The RTL computes byte offsets in 32 bits.
  constexpr size_t kMaxOffset = 0xFFFFFFFFu;
  if (extent(c.m, c.k, c.lda) > kMaxOffset || extent(c.k, c.n, c.ldw) > kMaxOffset ||
      extent(c.m, c.n, c.ldo) > kMaxOffset) {
    bad_command("an operand spans more than 4 GiB (" + dims + ")");
  }
}

uint64_t hang_limit_cycles(const sim::Int8TileCommand& c, sim::ArrayGeometry g) {
  // Every pass lasts at most max(block rows, rows) cycles plus a stall shorter than block rows + cols;
  // then the pipeline drains in rows + cols + a few. Four times that, plus slack, is surely a hang.
  const uint64_t chunks = std::max<uint64_t>(1, (static_cast<uint64_t>(c.k) + g.rows - 1) / g.rows);
  const uint64_t blocks = (static_cast<uint64_t>(c.m) + kAccumulatorRows - 1) / kAccumulatorRows;
  return 4 * blocks * chunks * (kAccumulatorRows + 2ULL * g.rows + 2ULL * g.cols) + 1000;
}

TileMemory::TileMemory(const sim::Int8TileCommand& cmd, sim::ArrayGeometry g) : cmd_(cmd), geometry_(g) {
  validate_tile_command(cmd, g);
  a_extent_ = extent(cmd.m, cmd.k, cmd.lda);
  w_extent_ = extent(cmd.k, cmd.n, cmd.ldw);
  out_extent_ = extent(cmd.m, cmd.n, cmd.ldo);
}

void TileMemory::read_a(uint32_t addr, uint32_t bytes, Lanes& lanes) const {
  check_access("activation read", addr, bytes, a_extent_, geometry_.rows);
  lanes.fill(0);
  if (bytes > 0) std::memcpy(lanes.data(), cmd_.a + addr, bytes);
}

void TileMemory::read_w(uint32_t addr, uint32_t bytes, Lanes& lanes) const {
  check_access("weight read", addr, bytes, w_extent_, geometry_.cols);
  lanes.fill(0);
  if (bytes > 0) std::memcpy(lanes.data(), cmd_.w + addr, bytes);
}

void TileMemory::read_params(uint32_t channel, uint32_t& bias, uint32_t& multiplier, uint32_t& shift) const {
  if (channel >= cmd_.n) {
    throw std::runtime_error("RTL parameter read of channel " + std::to_string(channel) +
                             " but n=" + std::to_string(cmd_.n));
  }
  bias = static_cast<uint32_t>(cmd_.bias[channel]);
  multiplier = static_cast<uint32_t>(cmd_.out_multiplier[channel]);
  shift = static_cast<uint32_t>(cmd_.out_shift[channel]);
}

void TileMemory::write_out(uint32_t addr, uint32_t bytes, const Lanes& lanes) const {
  check_access("output write", addr, bytes, out_extent_, geometry_.cols);
  if (bytes > 0) std::memcpy(cmd_.out + addr, lanes.data(), bytes);
  ++rows_written_;
}

}  // namespace npu::rtl::detail
