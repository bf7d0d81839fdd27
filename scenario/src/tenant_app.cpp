#include "npu/scenario/tenant_app.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

namespace npu::scenario {
namespace {

constexpr uint64_t kNever = std::numeric_limits<uint64_t>::max();

uint64_t ms_to_ns(double ms) { return static_cast<uint64_t>(std::llround(ms * 1e6)); }

}  // namespace

// Runs on the app's executor: sets flags and wakes the main thread.
class TenantApp::Callback : public mgr::ModelLoadRequestCallback {
 public:
  explicit Callback(TenantApp& app) : app_(app) {}
  void on_can_load_model(const mgr::ModelLoadRequest& r, mgr::LoadStatus status,
                         mgr::ModelLoadStatusListener& listener) override {
    if (r.id != app_.current_id_ || status != mgr::LoadStatus::CAN_LOAD_NOW) return;
    app_.listener_ = &listener;
    app_.approved_ = true;
    app_.wake_->wake_all();
  }
  void on_request_unload_model(const mgr::ModelLoadRequest& r, mgr::UnloadReason) override {
    if (r.id != app_.current_id_) return;
    app_.unload_asked_ = true;
    app_.wake_->wake_all();
  }
  void on_model_load_request_complete(const mgr::ModelLoadRequest& r, mgr::RequestStatus) override {
    if (r.id != app_.current_id_) return;
    app_.ended_ = true;
    app_.wake_->wake_all();
  }

 private:
  TenantApp& app_;
};

TenantApp::TenantApp(hal::NpuDevice& device, mgr::NpuService& service, const AppSpec& spec,
                     RunnableModel model, uint64_t seed, uint64_t end_ns, trace::Tracer* tracer)
    : device_(device),
      service_(service),
      spec_(spec),
      model_(std::move(model)),
      precompiled_(model_.take_precompiled()),
      end_ns_(end_ns),
      tracer_(tracer),
      manager_(service, spec.uid),
      executor_(service.os(), spec.name),
      callback_(std::make_shared<Callback>(*this)),
      wake_(service.os().make_wait_queue()),
      rng_(seed ^ (static_cast<uint64_t>(spec.uid) * 0x9E3779B97F4A7C15ull)) {
  run_.name = spec.name;
  run_.uid = spec.uid;
  run_.priority = std::string(mgr::to_string(spec.importance.front().importance)) + "/" +
                  std::to_string(spec.job_priority);
  next_open_ns_ = static_cast<uint64_t>(std::llround(spec.workload.start_s * 1e9));
  if (tracer_) track_ = tracer_->track("apps", spec.name);
}

TenantApp::~TenantApp() = default;

void TenantApp::start() {
  service_.os().spawn(spec_.name + "_main", [this] { main(); });
}

double TenantApp::uniform() {
  // 53 random bits → [0, 1): the same on every platform, unlike std::*_distribution.
  return static_cast<double>(rng_() >> 11) * (1.0 / 9007199254740992.0);
}

uint64_t TenantApp::stop_ns() const {
  const uint64_t stop =
      spec_.workload.stop_s < 0 ? end_ns_ : static_cast<uint64_t>(std::llround(spec_.workload.stop_s * 1e9));
  return std::min(stop, end_ns_);
}

bool TenantApp::closed_loop() const {
  return spec_.workload.kind == WorkloadKind::LLM || spec_.workload.kind == WorkloadKind::BATCH;
}

TenantApp::Arrival TenantApp::next_arrival() {
  const WorkloadSpec& w = spec_.workload;
  const uint64_t at = next_open_ns_;
  if (at >= stop_ns()) return {kNever, 0, 0};
  switch (w.kind) {
    case WorkloadKind::PERIODIC:
      next_open_ns_ = static_cast<uint64_t>(std::llround(w.start_s * 1e9 + (seq_ + 1.0) * w.period_ms * 1e6));
      break;
    case WorkloadKind::POISSON:
      next_open_ns_ += ms_to_ns(-std::log1p(-uniform()) * 1000.0 / w.rate_hz);
      break;
    case WorkloadKind::BURSTY:
      if (burst_left_ == 0)
        burst_left_ = w.burst_min + static_cast<uint32_t>(uniform() * (w.burst_max - w.burst_min + 1));
      if (--burst_left_ > 0)
        next_open_ns_ += ms_to_ns(w.burst_spacing_ms);
      else
        next_open_ns_ += ms_to_ns(-std::log1p(-uniform()) * w.mean_gap_ms);
      break;
    case WorkloadKind::LLM:
    case WorkloadKind::BATCH:
      break;
  }
  ++run_.arrivals;
  return {at, w.deadline_ms > 0 ? at + ms_to_ns(w.deadline_ms) : 0, seq_++};
}

bool TenantApp::sleep_until(uint64_t t) {
  drv::Os& os = service_.os();
  while (os.now_ns() < t) {
    if (interrupted()) return false;
    wake_->wait_for(t - os.now_ns());
  }
  return !interrupted();
}

void TenantApp::main() {
  drv::Os& os = service_.os();
  while (os.now_ns() < end_ns_) {
    const mgr::ModelLoadRequest request{++current_id_, spec_.size_class, spec_.load_priority};
    approved_ = ended_ = unload_asked_ = false;
    ++run_.load_requests;
    asked_ns_ = os.now_ns();
    if (auto r = manager_.request_can_load_model(request, callback_, executor_); !r) {
      run_.errors.push_back("requestCanLoadModel: " + r.error());
      return;
    }
    while (!approved_ && !ended_ && os.now_ns() < end_ns_) wake_->wait_for(end_ns_ - os.now_ns());
    if (asked_ns_ != kNoRequest)
      count_load_wait(std::exchange(asked_ns_, kNoRequest), std::min(os.now_ns(), end_ns_));
    if (os.now_ns() >= end_ns_) return;
    if (approved_) ++run_.approvals;
    if (approved_ && !ended_) {
      if (!load(request.id)) {
        manager_.cancel_model_load(request);
      } else {
        listener_->notify_model_loaded(request);
        serve();
        unload();
        if (!ended_) listener_->notify_model_unloaded(request);
      }
    }
    while (!ended_ && os.now_ns() < end_ns_) wake_->wait_for(end_ns_ - os.now_ns());
    if (gave_up_) return;
    const uint64_t again = os.now_ns() + ms_to_ns(spec_.rerequest_delay_ms);
    while (os.now_ns() < std::min(again, end_ns_)) wake_->wait_for(std::min(again, end_ns_) - os.now_ns());
  }
}

void TenantApp::count_load_wait(uint64_t asked_ns, uint64_t until_ns) {
  run_.load_wait_ns += until_ns - asked_ns;
  uint64_t from = asked_ns;
  const auto& timeline = spec_.importance;
  for (size_t k = 1; k < timeline.size(); ++k) {
    // Importance is ordered FOREGROUND (most important) … CACHED: a promotion lowers the value.
    const uint64_t at = static_cast<uint64_t>(std::llround(timeline[k].at_s * 1e9));
    if (timeline[k].importance < timeline[k - 1].importance && at > from && at <= until_ns) from = at;
  }
  run_.load_wait_since_promotion_ns += until_ns - from;
}

bool TenantApp::load(int64_t request_id) {
  drv::Os& os = service_.os();
  const uint64_t t0 = os.now_ns();
  auto [status, program] = device_.prepare_program(precompiled_);
  if (!status.ok()) {
    run_.errors.push_back("request " + std::to_string(request_id) + ": model " + model_.name + ": " +
                          status.message);
    // No unload by anybody can make room: stop asking.
    if (status.code == hal::ErrorStatus::RESOURCE_EXHAUSTED_PERSISTENT) gave_up_ = true;
    return false;
  }
  program_ = std::move(program);
  ++run_.loads;
  run_.load_ns += os.now_ns() - t0;
  resident_since_ = os.now_ns();
  if (!run_.first_loaded_ns) run_.first_loaded_ns = resident_since_;
  return true;
}

void TenantApp::unload() {
  program_->release();
  program_.reset();
  ++run_.unloads;
  run_.resident.push_back({resident_since_, service_.os().now_ns(), "resident"});
  // An LLM loses its KV cache with the model: a session in progress prefills again after reloading.
  tokens_done_ = 0;
  prefill_done_ = 0;
}

std::vector<std::string> TenantApp::decoder_pass(const char* weights, uint32_t m, uint64_t context) const {
  std::vector<std::string> programs{weights};
  const uint32_t blocks = kv_blocks(context);
  if (precompiled_.programs.count(attention_program(m, blocks)))
    programs.push_back(attention_program(m, blocks));
  return programs;
}

bool TenantApp::run_job(const std::vector<std::string>& programs, const char* what, RequestRecord* rec) {
  hal::ExecuteOptions options;
  options.job_priority = spec_.job_priority;
  options.deadline_hint_ns = rec->deadline_ns;  // a hint for deadline-aware schedulers
  options.job_timeout_ns = 60'000'000'000ull;
  const hal::ExecutionResult r = program_->execute(programs, options, spec_.name + " " + what);
  for (const hal::JobTimes& t : r.job_times) run_.jobs.push_back({t.submit_ns, t.end_ns, what});
  run_.device_cycles += r.device_cycles;
  run_.energy_pj += r.device_energy_pj;
  run_.preemptions += r.preemptions;
  rec->jobs += r.jobs;
  rec->preemptions += r.preemptions;
  rec->device_cycles += r.device_cycles;
  rec->energy_pj += r.device_energy_pj;
  if (!r.status.ok()) {
    // Cancelled by the manager (a revoked holder) is part of the scenario; anything else is an error.
    if (!r.revoked) run_.errors.push_back(std::string(what) + ": " + r.status.message);
    return false;
  }
  return true;
}

void TenantApp::serve() {
  drv::Os& os = service_.os();
  const WorkloadSpec& w = spec_.workload;
  while (!interrupted() && os.now_ns() < end_ns_) {
    if (w.kind == WorkloadKind::LLM || w.kind == WorkloadKind::BATCH) {
      if (!in_session_) {
        if (next_open_ns_ >= stop_ns() ||
            (w.kind == WorkloadKind::BATCH && w.jobs && batch_done_ >= w.jobs)) {
          sleep_until(end_ns_);
          return;
        }
        if (!sleep_until(next_open_ns_)) return;
        session_ = {};
        session_.seq = seq_++;
        session_.arrival_ns = next_open_ns_;
        ++run_.arrivals;
        in_session_ = true;
        tokens_done_ = 0;
        prefill_done_ = 0;
      }
      if (!session_.start_ns) session_.start_ns = os.now_ns();
      bool ok = true;
      if (w.kind == WorkloadKind::BATCH) {
        ok = run_job({"infer"}, "job", &session_);
        if (ok) ++batch_done_;
      } else {
        // The prompt in chunks (progress is lost with the model, as the KV cache is).
        const uint32_t prefill_jobs =
            model_.prefill_jobs + static_cast<uint32_t>(precompiled_.programs.count("prefill_tail"));
        while (ok && prefill_done_ < prefill_jobs && !interrupted()) {
          const bool full = prefill_done_ < model_.prefill_jobs;
          const uint32_t m = full ? model_.prefill_chunk : w.prefill_tokens % model_.prefill_chunk;
          const uint64_t context =
              full ? uint64_t{prefill_done_ + 1} * model_.prefill_chunk : w.prefill_tokens;
          ok = run_job(decoder_pass(full ? "prefill" : "prefill_tail", m, context), "prefill", &session_);
          if (ok) ++prefill_done_;
        }
        if (ok && prefill_done_ < prefill_jobs) return;  // asked to unload mid-prompt: prefill again later
        while (ok && tokens_done_ < w.decode_tokens && !interrupted()) {
          ok = run_job(decoder_pass("decode", 1, uint64_t{w.prefill_tokens} + tokens_done_ + 1), "decode",
                       &session_);
          if (ok) ++tokens_done_;
        }
        if (ok && tokens_done_ < w.decode_tokens) return;  // asked to unload mid-session: resume later
      }
      if (!ok) return;
      session_.end_ns = os.now_ns();
      run_.requests.push_back(session_);
      if (tracer_)
        tracer_->span(track_, w.kind == WorkloadKind::LLM ? "session" : "job", session_.start_ns,
                      session_.end_ns - session_.start_ns, {{"seq", session_.seq}});
      in_session_ = false;
      next_open_ns_ = os.now_ns() + ms_to_ns(w.kind == WorkloadKind::LLM ? w.think_ms : w.gap_ms);
      continue;
    }
    if (pending_.empty()) pending_.push_back(next_arrival());
    const Arrival a = pending_.front();
    if (a.at_ns == kNever) {
      sleep_until(end_ns_);
      return;
    }
    if (!sleep_until(a.at_ns)) return;
    pending_.erase(pending_.begin());
    RequestRecord rec;
    rec.seq = a.seq;
    rec.arrival_ns = a.at_ns;
    rec.deadline_ns = a.deadline_ns;
    if (a.deadline_ns && os.now_ns() >= a.deadline_ns) {
      rec.dropped = rec.missed = true;
      rec.start_ns = rec.end_ns = os.now_ns();
      run_.requests.push_back(rec);
      continue;
    }
    rec.start_ns = os.now_ns();
    if (!run_job({"infer"}, "request", &rec)) return;
    rec.end_ns = os.now_ns();
    rec.missed = a.deadline_ns && rec.end_ns > a.deadline_ns;
    run_.requests.push_back(rec);
    if (tracer_)
      tracer_->span(track_, rec.missed ? "request (missed)" : "request", rec.arrival_ns,
                    rec.end_ns - rec.arrival_ns, {{"seq", rec.seq}});
  }
}

AppRun TenantApp::finish(uint64_t running_cycles) {
  if (program_) run_.resident.push_back({resident_since_, end_ns_, "resident"});
  run_.device_cycles += running_cycles;
  if (asked_ns_ != kNoRequest) count_load_wait(std::exchange(asked_ns_, kNoRequest), end_ns_);
  if (const drv::Fence* in_flight = program_ ? program_->in_flight() : nullptr) {
    run_.device_cycles += in_flight->device_cycles;
    run_.energy_pj += in_flight->energy_pj;
  }
  if (closed_loop()) return run_;
  // Open-loop requests that arrived but were never served: dropped once their deadline passed.
  std::vector<Arrival> rest = pending_;
  for (Arrival a = next_arrival(); a.at_ns != kNever; a = next_arrival()) rest.push_back(a);
  AppRun out = run_;
  for (const Arrival& a : rest) {
    if (a.at_ns == kNever || !a.deadline_ns || a.deadline_ns > end_ns_) continue;
    RequestRecord rec;
    rec.seq = a.seq;
    rec.arrival_ns = a.at_ns;
    rec.deadline_ns = a.deadline_ns;
    rec.dropped = rec.missed = true;
    out.requests.push_back(rec);
  }
  return out;
}

}  // namespace npu::scenario
