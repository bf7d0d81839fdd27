#include "npu/mgr/npu_service.h"

#include <algorithm>

#include "npu/common/log.h"

namespace npu::mgr {
namespace {

std::shared_ptr<spdlog::logger> logger() { return log::get("manager"); }

constexpr uint64_t kMiB = 1ull << 20;
constexpr const char* kImportanceKeys[] = {"foreground", "visible", "service", "background", "cached"};

}  // namespace

// The service's ISchedulingCallback: NPU work events arrive on the HAL's callback thread and are
// handled on the service's own.
class NpuService::WorkListener : public hal::SchedulingCallback {
 public:
  explicit WorkListener(NpuService& service) : service_(service) {}
  void on_idle() override {}
  void on_work_requested(const hal::WorkInfo&) override {}
  void on_work_started(const hal::WorkInfo&, hal::StartReason) override {}
  void on_work_ended(const hal::WorkInfo& info, hal::EndReason reason) override {
    if (reason != hal::EndReason::COMPLETED) return;
    service_.thread_.post([this, uid = info.original_uid] { service_.on_work_completed(uid); });
  }

 private:
  NpuService& service_;
};

void ServiceConfig::declare(cfg::Schema& s) {
  s.u64("manager.weight_memory_mib", &weight_memory_mib, 0, "MiB",
        "NPU weight memory the npu service arbitrates (0: the driver's weight-memory region)");
  s.u64("manager.size_class.less_than_1gb_mib", &size_class_mib[0], 1024, "MiB",
        "Weight memory a NPU_MODEL_SIZE_LESS_THAN_1GB request reserves", 1);
  s.u64("manager.size_class.between_1gb_and_2gb_mib", &size_class_mib[1], 2048, "MiB",
        "Weight memory a NPU_MODEL_SIZE_BETWEEN_1GB_AND_2GB request reserves", 1);
  s.u64("manager.size_class.greater_than_2g_mib", &size_class_mib[2], 4096, "MiB",
        "Weight memory a NPU_MODEL_SIZE_GREATER_THAN_2G request reserves", 1);
  s.u64("manager.binder_ns", &binder_ns, 20'000, "ns", "CPU cost of one client call into the npu service");
  s.u64("manager.task_ns", &task_ns, 5'000, "ns", "CPU cost of the service thread handling one event");
  s.u64("manager.unload_timeout_ms", &unload_timeout_ms, 1000, "ms",
        "Time a client asked to unload has before its work is cancelled and its memory reclaimed", 1);
  s.u32("manager.debounce_ms", &debounce_ms, hal::kDebounceDurationMs, "ms",
        "Debounce of the service's scheduling-HAL callback", 0, 10'000);
  s.choice("manager.policy", &policy, "THERMAL_PRIORITY", policy_names(), "Model-load policy");
  for (size_t i = 0; i < bands.size(); ++i) {
    const std::string base = std::string("manager.band.") + kImportanceKeys[i];
    auto& b = bands[i];
    s.u32(base + ".app_priority", &b.app_priority, b.app_priority, "",
          "SchedulingConfig priority of a uid of this importance", 0, 1000);
    s.u32(base + ".min_job_priority", &b.min_job_priority, b.min_job_priority, "",
          "Best job priority its jobs may have", 0, 1000);
    s.u32(base + ".max_job_priority", &b.max_job_priority, b.max_job_priority, "",
          "Worst job priority its jobs may have", 0, 1000);
  }
}

Result<std::unique_ptr<NpuService>> NpuService::create(hal::SchedulingHal& hal, ServiceConfig cfg,
                                                       stats::Registry* stats) {
  for (size_t i = 0; i < cfg.bands.size(); ++i) {
    const auto& b = cfg.bands[i];
    hal::SchedulingConfig c{static_cast<int>(b.min_job_priority),
                            static_cast<int>(b.max_job_priority),
                            0,
                            static_cast<int>(b.app_priority),
                            true,
                            false};
    if (auto v = hal::validate_scheduling_configs({c}); !v.ok())
      return make_error(std::string("manager.band.") + kImportanceKeys[i] + ": " + v.message);
  }
  auto policy = make_policy(cfg.policy, nlohmann::json::object());
  if (!policy) return make_error(policy.error());
  return std::unique_ptr<NpuService>(new NpuService(hal, std::move(cfg), std::move(*policy), stats));
}

NpuService::NpuService(hal::SchedulingHal& hal, ServiceConfig cfg, std::unique_ptr<LoadPolicy> policy,
                       stats::Registry* stats)
    : hal_(hal),
      cfg_(std::move(cfg)),
      policy_(std::move(policy)),
      thread_(hal.os(), "npu_service", cfg_.task_ns),
      work_listener_(std::make_shared<WorkListener>(*this)) {
  stats::Registry& r = stats ? *stats : own_stats_;
  counters_.requests = &r.counter("manager.requests", "requests", "Model-load requests accepted");
  counters_.approvals = &r.counter("manager.approvals", "requests", "onCanLoadModel(CAN_LOAD_NOW) sent");
  counters_.unload_requests = &r.counter("manager.unload_requests", "requests", "onRequestUnloadModel sent");
  counters_.thermal_unloads =
      &r.counter("manager.thermal_unloads", "requests", "onRequestUnloadModel sent for thermal reasons");
  counters_.revocations =
      &r.counter("manager.revocations", "requests", "Holders revoked after ignoring an unload request");
  counters_.cancellations = &r.counter("manager.cancellations", "requests", "Requests that ended CANCELLED");
  counters_.completions = &r.counter("manager.completions", "requests", "Requests that ended COMPLETE");
  hal_.set_thermal_observer(this);
  thread_.post([this] {
    if (auto s = hal_.set_callback(work_listener_, static_cast<int>(cfg_.debounce_ms)); !s.ok())
      logger()->error("setCallback: {}", s.message);
  });
}

NpuService::~NpuService() { hal_.set_thermal_observer(nullptr); }

uint64_t NpuService::capacity_bytes() const {
  return cfg_.weight_memory_mib ? cfg_.weight_memory_mib * kMiB : hal_.weight_memory_bytes();
}

uint64_t NpuService::bytes_for(SizeClass size) const {
  return cfg_.size_class_mib[static_cast<size_t>(size)] * kMiB;
}

uint64_t NpuService::held_bytes() const {
  uint64_t held = 0;
  for (const auto& [k, e] : entries_)
    if (holds_memory(e.state)) held += bytes_for(e.request.size);
  return held;
}

Importance NpuService::importance_of(int uid) const {
  auto it = importance_.find(uid);
  return it == importance_.end() ? Importance::BACKGROUND : it->second;
}

std::optional<RequestState> NpuService::state_of(int uid, int64_t request_id) const {
  auto it = entries_.find({uid, request_id});
  if (it == entries_.end()) return std::nullopt;
  return it->second.state;
}

hal::SchedulingConfig NpuService::scheduling_config_for(int uid, Importance importance) const {
  const PriorityBand& b = cfg_.bands[static_cast<size_t>(importance)];
  return hal::SchedulingConfig{static_cast<int>(b.min_job_priority),
                               static_cast<int>(b.max_job_priority),
                               uid,
                               static_cast<int>(b.app_priority),
                               true,
                               false};
}

Result<void> NpuService::can_load_model(int uid, const ModelLoadRequest& request,
                                        std::shared_ptr<ModelLoadRequestCallback> callback,
                                        Executor& executor, ModelLoadStatusListener& listener) {
  hal_.os().delay_ns(cfg_.binder_ns);
  const std::string what =
      "requestCanLoadModel: uid " + std::to_string(uid) + " request " + std::to_string(request.id);
  if (!callback) return make_error(what + ": no callback");
  const Key key{uid, request.id};
  if (entries_.count(key)) return make_error(what + ": this request id is still active");
  if (bytes_for(request.size) > capacity_bytes())
    return make_error(what + ": size class " + to_string(request.size) + " reserves " +
                      std::to_string(bytes_for(request.size) / kMiB) + " MiB, more than the " +
                      std::to_string(capacity_bytes() / kMiB) + " MiB of NPU weight memory");
  Entry e;
  e.uid = uid;
  e.request = request;
  e.callback = std::move(callback);
  e.executor = &executor;
  e.listener = &listener;
  e.arrival = arrivals_++;
  e.waiting_since_ns = hal_.os().now_ns();
  entries_.emplace(key, std::move(e));
  ++*counters_.requests;
  logger()->debug("uid {} request {} ({}, {}) arrives", uid, request.id, to_string(request.size),
                  to_string(request.priority));
  evaluate();
  return {};
}

void NpuService::cancel_model_load(int uid, const ModelLoadRequest& request) {
  hal_.os().delay_ns(cfg_.binder_ns);
  const Key key{uid, request.id};
  if (!entries_.count(key)) return;
  complete(key, RequestStatus::CANCELLED);
  evaluate();
}

void NpuService::notify_model_loaded(int uid, const ModelLoadRequest& request) {
  hal_.os().delay_ns(cfg_.binder_ns);
  auto it = entries_.find({uid, request.id});
  if (it == entries_.end()) return;
  if (it->second.state == RequestState::APPROVED) {
    it->second.state = RequestState::LOADED;
  } else if (it->second.state != RequestState::UNLOADING) {
    logger()->warn("uid {} request {} reports loaded in state {}", uid, request.id,
                   to_string(it->second.state));
  }
}

void NpuService::notify_model_unloaded(int uid, const ModelLoadRequest& request) {
  hal_.os().delay_ns(cfg_.binder_ns);
  const Key key{uid, request.id};
  if (!entries_.count(key)) return;
  complete(key, RequestStatus::COMPLETE);
  evaluate();
}

Result<void> NpuService::set_policy(const std::string& name, const nlohmann::json& params) {
  hal_.os().delay_ns(cfg_.binder_ns);
  auto p = make_policy(name, params);
  if (!p) return make_error("setPolicy: " + p.error());
  logger()->info("policy {} replaces {}", (*p)->name(), policy_->name());
  policy_ = std::move(*p);
  reevaluation_at_ns_ = 0;
  evaluate();
  return {};
}

void NpuService::set_importance(int uid, Importance importance) {
  importance_[uid] = importance;
  if (auto s = hal_.update_scheduling_configs({scheduling_config_for(uid, importance)}); !s.ok())
    logger()->error("updateSchedulingConfigs: {}", s.message);
  logger()->debug("uid {} is now {}", uid, to_string(importance));
  evaluate();
}

void NpuService::set_thermal_severity(ThermalSeverity severity) {
  if (severity == severity_) return;
  logger()->info("thermal severity {} → {}", drv::to_string(severity_), drv::to_string(severity));
  severity_ = severity;
  if (tracer_)
    tracer_->counter("manager", "thermal severity", hal_.os().now_ns(), static_cast<double>(severity));
  evaluate();
}

void NpuService::on_thermal_severity(ThermalSeverity severity, double) {
  // Kernel context: never act here.
  thread_.post([this, severity] { set_thermal_severity(severity); });
}

void NpuService::on_work_completed(int uid) {
  last_completed_ns_[uid] = hal_.os().now_ns();
  evaluate();
}

void NpuService::evaluate() {
  if (evaluating_) return;
  evaluating_ = true;
  // A cancellation frees a place: evaluate again until the verdicts settle.
  for (int round = 0; round < 8; ++round) {
    ServiceView view;
    view.now_ns = hal_.os().now_ns();
    view.capacity_bytes = capacity_bytes();
    view.severity = severity_;
    view.last_completed_ns = last_completed_ns_;
    std::vector<Key> keys;
    for (const auto& [k, e] : entries_) keys.push_back(k);
    std::sort(keys.begin(), keys.end(),
              [this](const Key& a, const Key& b) { return entries_.at(a).arrival < entries_.at(b).arrival; });
    for (const Key& k : keys) {
      const Entry& e = entries_.at(k);
      view.requests.push_back(
          RequestView{e.uid, e.request, e.state, importance_of(e.uid), bytes_for(e.request.size), e.arrival,
                      is_waiting(e.state) ? view.now_ns - e.waiting_since_ns : e.waited_ns});
    }
    Decision d = policy_->evaluate(view);
    if (d.rulings.size() != keys.size()) {
      logger()->error("policy {} ruled on {} of {} requests", policy_->name(), d.rulings.size(), keys.size());
      break;
    }
    bool cancelled = false;
    for (size_t i = 0; i < keys.size(); ++i) {
      auto it = entries_.find(keys[i]);
      if (it == entries_.end()) continue;
      cancelled |= d.rulings[i].verdict == Verdict::CANCEL && is_waiting(it->second.state);
      apply(it->second, d.rulings[i]);
    }
    apply_paused(d.paused_uids);
    schedule_reevaluation(d.reevaluate_at_ns);
    note_held();
    if (!cancelled) break;
  }
  evaluating_ = false;
}

void NpuService::apply(Entry& e, const Ruling& r) {
  const Key key{e.uid, e.request.id};
  if (is_waiting(e.state)) {
    switch (r.verdict) {
      case Verdict::KEEP:
        return;
      case Verdict::ADMIT:
        e.state = RequestState::APPROVED;
        e.waited_ns = hal_.os().now_ns() - e.waiting_since_ns;
        ++*counters_.approvals;
        logger()->info("uid {} request {} approved ({} MiB, {} MiB held)", e.uid, e.request.id,
                       bytes_for(e.request.size) / kMiB, held_bytes() / kMiB);
        send_status(e, LoadStatus::CAN_LOAD_NOW);
        return;
      case Verdict::WAIT_FOR_UNLOAD:
        e.state = RequestState::WAIT_FOR_UNLOAD;
        send_status(e, LoadStatus::WAIT_FOR_UNLOAD);
        return;
      case Verdict::NOT_PRIORITIZED:
        e.state = RequestState::NOT_PRIORITIZED;
        send_status(e, LoadStatus::NOT_PRIORITIZED);
        return;
      case Verdict::CANCEL:
        complete(key, RequestStatus::CANCELLED);
        return;
      case Verdict::UNLOAD:
        break;
    }
  } else if (e.state == RequestState::APPROVED || e.state == RequestState::LOADED) {
    if (r.verdict == Verdict::KEEP) return;
    if (r.verdict == Verdict::UNLOAD) {
      e.state = RequestState::UNLOADING;
      e.unload_token = next_token_++;
      ++*counters_.unload_requests;
      if (r.reason == UnloadReason::THERMAL) ++*counters_.thermal_unloads;
      logger()->info("uid {} request {} asked to unload ({})", e.uid, e.request.id, to_string(r.reason));
      if (tracer_)
        tracer_->instant(track_of(e.uid), "unload requested", hal_.os().now_ns(),
                         {{"request", e.request.id}, {"reason", to_string(r.reason)}});
      e.executor->post([cb = e.callback, request = e.request, reason = r.reason] {
        cb->on_request_unload_model(request, reason);
      });
      thread_.post_after(cfg_.unload_timeout_ms * 1'000'000,
                         [this, key, token = e.unload_token] { unload_timed_out(key, token); });
      return;
    }
  } else if (r.verdict == Verdict::KEEP) {
    return;  // UNLOADING
  }
  logger()->warn("policy {}: verdict {} does not apply to uid {} request {} in state {}", policy_->name(),
                 to_string(r.verdict), e.uid, e.request.id, to_string(e.state));
}

void NpuService::send_status(Entry& e, LoadStatus status) {
  if (e.last_status == status && status != LoadStatus::CAN_LOAD_NOW) return;
  e.last_status = status;
  e.executor->post([cb = e.callback, request = e.request, status, listener = e.listener] {
    cb->on_can_load_model(request, status, *listener);
  });
}

void NpuService::complete(const Key& key, RequestStatus status) {
  auto it = entries_.find(key);
  if (it == entries_.end()) return;
  ++*(status == RequestStatus::CANCELLED ? counters_.cancellations : counters_.completions);
  logger()->debug("uid {} request {} ends {}", key.first, key.second, to_string(status));
  const Entry& e = it->second;
  if (tracer_) {
    const uint64_t now = hal_.os().now_ns();
    const bool held = holds_memory(e.state);
    const uint64_t waited = held ? e.waited_ns : now - e.waiting_since_ns;
    const std::string name = "request " + std::to_string(e.request.id);
    tracer_->span(track_of(e.uid), name + " waits", e.waiting_since_ns, waited,
                  {{"size", to_string(e.request.size)}, {"priority", to_string(e.request.priority)}});
    if (held)
      tracer_->span(track_of(e.uid), name + " holds " + to_string(e.request.size),
                    e.waiting_since_ns + waited, now - e.waiting_since_ns - waited,
                    {{"end", to_string(status)}});
  }
  e.executor->post([cb = e.callback, request = e.request, status] {
    cb->on_model_load_request_complete(request, status);
  });
  entries_.erase(it);
}

void NpuService::unload_timed_out(const Key& key, uint64_t token) {
  auto it = entries_.find(key);
  if (it == entries_.end() || it->second.state != RequestState::UNLOADING || it->second.unload_token != token)
    return;
  if (paused_.count(key.first)) {
    // The holder cannot unload while we keep its frame in flight paused: that is not ignoring the
    // request, so its timeout starts again when its work resumes.
    it->second.unload_timeout_deferred = true;
    return;
  }
  logger()->warn("uid {} request {} ignored its unload request for {} ms: its NPU work is cancelled",
                 key.first, key.second, cfg_.unload_timeout_ms);
  ++*counters_.revocations;
  if (tracer_)
    tracer_->instant(track_of(key.first), "revoked", hal_.os().now_ns(), {{"request", key.second}});
  hal_.cancel_uid_work(key.first);
  complete(key, RequestStatus::CANCELLED);
  evaluate();
}

void NpuService::schedule_reevaluation(uint64_t at_ns) {
  const uint64_t now = hal_.os().now_ns();
  if (at_ns <= now) return;
  if (reevaluation_at_ns_ > now && reevaluation_at_ns_ <= at_ns) return;  // an earlier timer is pending
  reevaluation_at_ns_ = at_ns;
  thread_.post_after(at_ns - now, [this, at_ns] {
    if (reevaluation_at_ns_ != at_ns) return;  // superseded
    reevaluation_at_ns_ = 0;
    evaluate();
  });
}

void NpuService::apply_paused(const std::set<int>& wanted) {
  for (int uid : wanted)
    if (!paused_.count(uid)) {
      logger()->info("uid {}: NPU work paused", uid);
      hal_.set_uid_paused(uid, true);
    }
  for (int uid : paused_)
    if (!wanted.count(uid)) {
      logger()->info("uid {}: NPU work resumed", uid);
      hal_.set_uid_paused(uid, false);
      for (auto& [key, e] : entries_) {
        if (key.first != uid || e.state != RequestState::UNLOADING || !e.unload_timeout_deferred) continue;
        e.unload_timeout_deferred = false;
        thread_.post_after(cfg_.unload_timeout_ms * 1'000'000,
                           [this, key = key, token = e.unload_token] { unload_timed_out(key, token); });
      }
    }
  paused_ = wanted;
}

void NpuService::note_held() {
  const uint64_t held = held_bytes();
  max_held_ = std::max(max_held_, held);
  if (tracer_ && held != last_traced_held_) {
    const uint64_t whole_mib = held / kMiB;  // the counter is in whole MiB
    tracer_->counter("manager", "held weight memory MiB", hal_.os().now_ns(), static_cast<double>(whole_mib));
    last_traced_held_ = held;
  }
}

uint32_t NpuService::track_of(int uid) {
  auto it = tracks_.find(uid);
  if (it == tracks_.end())
    it = tracks_.emplace(uid, tracer_->track("manager", "uid " + std::to_string(uid))).first;
  return it->second;
}

}  // namespace npu::mgr
