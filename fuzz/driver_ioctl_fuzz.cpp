// The driver's ioctl surface as a hostile client uses it: the bytes are a program of alloc / free /
// write / read of buffer objects, and submits of command buffers whose descriptors are raw bytes (DMA
// device addresses optionally placed inside one of the client's buffers, so deeper checks are reached),
// plus cancels, with bad handles, offsets and lengths. Properties: no crash or sanitizer report, every
// refused call is an error rather than a partial effect, and a victim buffer of another context keeps
// its bytes whatever the client's jobs do (the isolation the driver's DMA-range checks promise).
// Each job is bounded to 2 ms of simulated time (JobRequest::timeout_ns), so a legitimate huge DMA is
// ended as a hang by the driver's watchdog instead of making the input time out.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "npu/regmap/descriptors.h"
#include "platform.h"

namespace {

using namespace npu;

constexpr uint64_t kJobBoundNs = 2'000'000;
constexpr size_t kMaxOps = 64;

void client(system::System& s, fuzz::Bytes& in) {
  drv::Driver& d = s.driver();
  auto victim_ctx = d.open_context(20000, 2000);
  auto ctx = d.open_context(10000 + in.u8(), 1000);
  if (!victim_ctx || !ctx) std::abort();  // two contexts on an idle driver always open
  // The victim: another app's buffer with a known pattern.
  auto victim = d.alloc_bo(*victim_ctx, 4096);
  if (!victim) std::abort();
  std::vector<uint8_t> pattern(4096);
  for (size_t i = 0; i < pattern.size(); ++i) pattern[i] = static_cast<uint8_t>(i * 7 + 3);
  if (!d.write_bo(*victim_ctx, victim->handle, 0, pattern.data(), pattern.size())) std::abort();

  std::vector<drv::BufferObject> bos;
  std::vector<std::shared_ptr<drv::Fence>> fences;
  auto pick_handle = [&](uint8_t sel) -> drv::BoHandle {
    if (sel & 0x80 || bos.empty()) return static_cast<drv::BoHandle>(in.u32());  // any handle at all
    return bos[sel % bos.size()].handle;
  };
  for (size_t op = 0; op < kMaxOps && !in.empty(); ++op) {
    switch (in.u8() % 7) {
      case 0: {  // alloc: up to 16 MiB, sometimes weights memory
        const uint64_t size = in.u32() % (16u << 20);
        auto bo = d.alloc_bo(*ctx, size, in.u8() & 1);
        if (bo) bos.push_back(*bo);
        break;
      }
      case 1: {  // free
        const drv::BoHandle h = pick_handle(in.u8());
        if (d.free_bo(*ctx, h))
          bos.erase(std::remove_if(bos.begin(), bos.end(), [h](const auto& b) { return b.handle == h; }),
                    bos.end());
        break;
      }
      case 2: {  // write: any offset and length, data from the input
        const drv::BoHandle h = pick_handle(in.u8());
        const uint64_t offset = in.u64();
        const auto data = in.take(in.u8());
        (void)d.write_bo(*ctx, h, offset, data.data(), data.size());
        break;
      }
      case 3: {  // read: a length the buffer may not have
        const drv::BoHandle h = pick_handle(in.u8());
        const uint64_t offset = in.u64();
        std::vector<uint8_t> out(in.u16() % 8192);
        (void)d.read_bo(*ctx, h, offset, out.data(), out.size());
        break;
      }
      case 4: {  // submit: stages of command buffers of raw descriptors
        drv::JobRequest job;
        const uint32_t stages = in.u8() % 3;  // 0 stages: refused
        for (uint32_t st = 0; st < stages; ++st) {
          job.stages.emplace_back();
          const uint32_t buffers = in.u8() % 3;
          for (uint32_t b = 0; b < buffers; ++b) {
            std::vector<desc::Raw> cmds(in.u8() % 5);
            for (auto& c : cmds) {
              const auto raw = in.take(desc::kDescriptorBytes);
              if (!raw.empty()) std::memcpy(c.bytes, raw.data(), raw.size());
              // Often a DMA's device address inside one of the client's buffers (offset from the input).
              const uint8_t place = in.u8();
              if (!bos.empty() && (place & 1))
                desc::set_dma_dev(c, bos[(place >> 1) % bos.size()].device_address + in.u16());
            }
            job.stages.back().push_back(std::move(cmds));
          }
        }
        job.job_priority = static_cast<int>(in.u16() % 1100);  // past 1000: refused
        job.timeout_ns = kJobBoundNs;
        job.timing_only = in.u8() & 1;
        auto f = d.submit(*ctx, std::move(job));
        if (f) fences.push_back(*f);
        break;
      }
      case 5: {  // cancel the last job (or a made-up id)
        const drv::JobId id = fences.empty() || (in.u8() & 1) ? in.u32() : fences.back()->job_id;
        (void)d.cancel(*ctx, id);
        break;
      }
      case 6:  // let the jobs run a while
        s.os().delay_ns(in.u16() * 100ull);
        break;
    }
  }
  for (auto& f : fences) d.wait(*f);  // every job ends: completed, failed (its 2 ms bound) or cancelled
  if (!d.close_context(*ctx)) std::abort();
  std::vector<uint8_t> now(pattern.size());
  if (!d.read_bo(*victim_ctx, victim->handle, 0, now.data(), now.size())) std::abort();
  if (now != pattern) std::abort();  // another context's jobs wrote into the victim's buffer
  if (!d.close_context(*victim_ctx)) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::Bytes in(data, size);
  // 64 ops of at most a few 2 ms jobs (retried on a hang by the driver) end well inside a second.
  if (!fuzz::run_input([&](system::System& s) { client(s, in); }, 1.0)) std::abort();
  return 0;
}
