#include "npu/sim/dram.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace npu::sim {

using sc_core::SC_NS;
using sc_core::sc_time;

Dram::Dram(sc_core::sc_module_name name, const DramConfig& cfg, stats::Registry& stats, bool fast)
    : sc_module(name),
      host("host"),
      cfg_(cfg),
      size_(static_cast<uint64_t>(cfg.size_mib) << 20),
      ns_per_byte_(1.0 / cfg.bandwidth_gbps),
      quantum_port_time_(ns_per_byte_ * static_cast<double>(cfg.arbitration_bytes), SC_NS),
      latency_(cfg.latency_ns, SC_NS),
      bytes_read_(stats.counter(std::string(this->name()) + ".host_bytes_read", "B", "Bytes the host read")),
      bytes_written_(
          stats.counter(std::string(this->name()) + ".host_bytes_written", "B", "Bytes the host wrote")),
      dma_bytes_(
          stats.counter(std::string(this->name()) + ".dma_bytes", "B", "Bytes moved by NPU DMA and fetch")),
      busy_ns_(
          stats.value(std::string(this->name()) + ".busy_ns", "ns", "Time the DRAM port was transferring")),
      bandwidth_used_(
          stats.value(std::string(this->name()) + ".bandwidth_gbps", "GB/s",
                      "Whole run: average DMA bandwidth since time 0 (DMA and descriptor-fetch bytes)")),
      utilisation_(
          stats.value(std::string(this->name()) + ".utilisation", "",
                      "Whole run: fraction of the time since time 0 the DRAM port was transferring")),
      window_bandwidth_(
          stats.value(std::string(this->name()) + ".window_bandwidth_gbps", "GB/s",
                      "DMA bandwidth over the NPU's execution window (npu.execution_window_ns)")),
      window_utilisation_(stats.value(std::string(this->name()) + ".window_utilisation", "",
                                      "Fraction of the execution window the DRAM port was transferring")) {
  host.register_b_transport(this, &Dram::b_transport);
  fast_ = fast;
  if (fast) {  // only then: exact mode's processes stay what they were
    SC_HAS_PROCESS(Dram);
    SC_METHOD(settle);
    sensitive << next_end_;
    dont_initialize();
  }
}

uint8_t* Dram::page(uint64_t index) {
  auto& p = pages_[index];
  if (!p) {
    p = std::make_unique<uint8_t[]>(kPageBytes);
    std::memset(p.get(), 0, kPageBytes);
  }
  return p.get();
}

bool Dram::use_external(uint8_t* base) {
  if (!base) return false;
  for (const auto& [index, data] : pages_) {
    const uint64_t at = index * kPageBytes;
    std::memcpy(base + at, data.get(), std::min(kPageBytes, size_ - at));
  }
  pages_.clear();
  external_ = base;
  return true;
}

void Dram::read(uint64_t addr, void* dst, uint64_t len) const {
  if (external_) {
    std::memcpy(dst, external_ + addr, len);
    return;
  }
  auto* out = static_cast<uint8_t*>(dst);
  while (len > 0) {
    const uint64_t index = addr / kPageBytes, offset = addr % kPageBytes;
    const uint64_t n = std::min(len, kPageBytes - offset);
    auto it = pages_.find(index);
    if (it == pages_.end()) {
      std::memset(out, 0, n);
    } else {
      std::memcpy(out, it->second.get() + offset, n);
    }
    out += n;
    addr += n;
    len -= n;
  }
}

void Dram::write(uint64_t addr, const void* src, uint64_t len) {
  if (external_) {
    std::memcpy(external_ + addr, src, len);
    return;
  }
  const auto* in = static_cast<const uint8_t*>(src);
  while (len > 0) {
    const uint64_t index = addr / kPageBytes, offset = addr % kPageBytes;
    const uint64_t n = std::min(len, kPageBytes - offset);
    std::memcpy(page(index) + offset, in, n);
    in += n;
    addr += n;
    len -= n;
  }
}

bool Dram::transfer(uint64_t bytes, double requester_ns_per_byte, const sc_core::sc_event* abort) {
  // Fast mode: one port model for every transfer (gathers, context save and restore too).
  if (fast_) return share(bytes, requester_ns_per_byte, sc_core::SC_ZERO_TIME, sc_core::SC_ZERO_TIME, abort);
  dma_bytes_ += bytes;
  auto wait_for = [abort](const sc_time& t) {
    if (!abort) {
      sc_core::wait(t);
      return true;
    }
    const sc_time until = sc_core::sc_time_stamp() + t;
    sc_core::wait(t, *abort);
    return sc_core::sc_time_stamp() >= until;
  };
  if (!wait_for(sc_time(cfg_.latency_ns, SC_NS))) return false;
  // Built from double nanoseconds: a per-byte sc_time would round to the 1 ps resolution. A whole
  // quantum's times are built once (the same values; building an sc_time is costly): the port's at
  // construction, the requester's per transfer that has a whole quantum (a descriptor fetch has none).
  const uint64_t whole = cfg_.arbitration_bytes;
  const sc_time whole_requester = bytes >= whole
                                      ? sc_time(requester_ns_per_byte * static_cast<double>(whole), SC_NS)
                                      : sc_core::SC_ZERO_TIME;
  while (bytes > 0) {
    const uint64_t quantum = std::min<uint64_t>(bytes, whole);
    const sc_time now = sc_core::sc_time_stamp();
    const sc_time start = std::max(now, next_free_);
    const sc_time port_time =
        quantum == whole ? quantum_port_time_ : sc_time(ns_per_byte_ * static_cast<double>(quantum), SC_NS);
    next_free_ = start + port_time;
    busy_ns_ += port_time.to_seconds() * 1e9;
    const sc_time requester = quantum == whole
                                  ? whole_requester
                                  : sc_time(requester_ns_per_byte * static_cast<double>(quantum), SC_NS);
    const sc_time done = std::max(next_free_, now + requester);
    if (!wait_for(done - now)) return false;
    bytes -= quantum;
  }
  return true;
}

namespace {

// One quantum of the earliest request among `flows` (ties: the earlier transfer), as transfer() books it:
// the port after what is booked, the requester at its own pace. Returns it, or nullptr when no request is
// before `until_ns`.
template <typename Flow>
Flow* book_next(std::vector<Flow>& flows, double* free_ns, double until_ns, double port_ns_per_byte,
                double quantum, double* port_ns) {
  Flow* next = nullptr;
  for (Flow& f : flows)
    if (f.remaining &&
        (!next || f.ready_ns < next->ready_ns || (f.ready_ns == next->ready_ns && f.seq < next->seq)))
      next = &f;
  if (!next || next->ready_ns >= until_ns) return nullptr;
  const double q = std::min(static_cast<double>(next->remaining), quantum);
  const double start = std::max(next->ready_ns, *free_ns);
  *port_ns = port_ns_per_byte * q;
  *free_ns = start + *port_ns;
  next->done_ns = std::max(*free_ns, next->ready_ns + next->ns_per_byte * q);
  next->ready_ns = next->done_ns;
  next->remaining -= static_cast<uint64_t>(q);
  return next;
}

double now_ns() { return sc_core::sc_time_stamp().to_seconds() * 1e9; }

}  // namespace

void Dram::commit() {
  const double now = now_ns();
  double port = 0;
  while (book_next(flows_, &free_ns_, now, ns_per_byte_, static_cast<double>(cfg_.arbitration_bytes), &port))
    busy_ns_ += port;
}

void Dram::settle() {
  commit();
  const double now = now_ns();
  double first = std::numeric_limits<double>::infinity();
  for (Flow& f : flows_) {
    if (f.woken || f.remaining) continue;
    if (f.done_ns <= now + 5e-4) {  // within half a picosecond: sc_time's resolution
      f.woken = true;
      f.done->notify(f.tail);
    } else {
      first = std::min(first, f.done_ns);
    }
  }
  // Plan on a copy until the first end: a transfer joining before then plans again.
  plan_ = flows_;  // assigned, not built: keeps its allocation from one plan to the next
  double free = free_ns_, port = 0;
  while (const Flow* f =
             book_next(plan_, &free, first, ns_per_byte_, static_cast<double>(cfg_.arbitration_bytes), &port))
    if (!f->remaining) first = std::min(first, f->done_ns);
  next_end_.cancel();
  if (first < std::numeric_limits<double>::infinity())
    next_end_.notify(sc_time(std::max(1.0, std::ceil((first - now) * 1000.0)), sc_core::SC_PS));
}

bool Dram::share(uint64_t bytes, double requester_ns_per_byte, const sc_time& before, const sc_time& tail,
                 const sc_core::sc_event* abort) {
  dma_bytes_ += bytes;
  sc_core::sc_event done;
  Flow f;
  f.seq = next_seq_++;
  f.remaining = bytes;
  f.ns_per_byte = requester_ns_per_byte;
  f.ready_ns = now_ns() + (before + latency_).to_seconds() * 1e9;
  f.done_ns = f.ready_ns;
  f.tail = tail;
  f.done = &done;
  commit();
  flows_.push_back(f);
  settle();
  // Ended (done, aborted, or the thread unwound): the transfer leaves the port; quanta booked stay booked.
  struct Leave {
    Dram& d;
    uint64_t seq;
    ~Leave() {
      d.commit();
      const auto it =
          std::find_if(d.flows_.begin(), d.flows_.end(), [this](const Flow& x) { return x.seq == seq; });
      const bool ended = it->woken;  // else aborted: the others' plan changes
      d.flows_.erase(it);
      if (!ended) d.settle();
    }
  } leave{*this, f.seq};
  if (abort) {
    sc_core::wait(done | *abort);
  } else {
    sc_core::wait(done);
  }
  return done.triggered();
}

void Dram::update_stats(double window_ns) {
  const double ns = sc_core::sc_time_stamp().to_seconds() * 1e9;
  bandwidth_used_ = ns > 0 ? static_cast<double>(dma_bytes_) / ns : 0.0;  // B/ns = GB/s
  utilisation_ = ns > 0 ? busy_ns_ / ns : 0.0;
  // Port time booked by a transfer still in flight may reach past the window's end.
  window_bandwidth_ = window_ns > 0 ? static_cast<double>(dma_bytes_) / window_ns : 0.0;
  window_utilisation_ = window_ns > 0 ? std::min(1.0, busy_ns_ / window_ns) : 0.0;
}

void Dram::b_transport(tlm::tlm_generic_payload& gp, sc_time& delay) {
  const uint64_t addr = gp.get_address();
  const uint64_t len = gp.get_data_length();
  if (gp.get_byte_enable_ptr() || gp.get_streaming_width() < len) {
    gp.set_response_status(tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
    return;
  }
  if (!in_range(addr, len)) {
    gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return;
  }
  if (gp.is_read()) {
    read(addr, gp.get_data_ptr(), len);
    bytes_read_ += len;
  } else if (gp.is_write()) {
    write(addr, gp.get_data_ptr(), len);
    bytes_written_ += len;
  }
  // Host accesses share the DRAM port too but are not arbitrated against DMA (not modelled).
  delay += sc_time(cfg_.latency_ns + ns_per_byte_ * static_cast<double>(len), SC_NS);
  gp.set_response_status(tlm::TLM_OK_RESPONSE);
}

}  // namespace npu::sim
