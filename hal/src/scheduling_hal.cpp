#include "npu/hal/scheduling_hal.h"

#include <set>

#include "npu/common/log.h"

namespace npu::hal {
namespace {

std::shared_ptr<spdlog::logger> logger() { return log::get("scheduling"); }

}  // namespace

AidlStatus validate_scheduling_configs(const std::vector<SchedulingConfig>& configs) {
  std::map<int, size_t> seen;
  for (size_t i = 0; i < configs.size(); ++i) {
    const auto& c = configs[i];
    const std::string where =
        "schedulingConfigs[" + std::to_string(i) + "] (uid " + std::to_string(c.uid) + ")";
    auto [it, fresh] = seen.emplace(c.uid, i);
    if (!fresh)
      return {BinderException::ILLEGAL_ARGUMENT,
              where + ": a config for this uid already appears at [" + std::to_string(it->second) + "]"};
    for (const auto& [field, value] : {std::pair<const char*, int>{"appPriority", c.app_priority},
                                       {"minPriority", c.min_priority},
                                       {"maxPriority", c.max_priority}}) {
      if (value < kMinPriority || value > kMaxPriority)
        return {BinderException::ILLEGAL_ARGUMENT, where + ": " + field + " " + std::to_string(value) +
                                                       " outside [" + std::to_string(kMinPriority) + ", " +
                                                       std::to_string(kMaxPriority) + "]"};
    }
    if (c.min_priority > c.max_priority)
      return {BinderException::ILLEGAL_ARGUMENT, where + ": minPriority " + std::to_string(c.min_priority) +
                                                     " is worse than maxPriority " +
                                                     std::to_string(c.max_priority)};
  }
  return {};
}

SchedulingHal::SchedulingHal(drv::Driver& driver, SchedulingHalConfig cfg)
    : driver_(driver), cfg_(cfg), callback_thread_(driver.os(), "npu_scheduling_cb", cfg.callback_task_ns) {
  driver_.set_work_observer(this);
}

SchedulingHal::~SchedulingHal() { driver_.set_work_observer(nullptr); }

AidlStatus SchedulingHal::set_scheduling_configs(const std::vector<SchedulingConfig>& configs) {
  driver_.os().delay_ns(cfg_.call_ns);
  if (auto s = validate_scheduling_configs(configs); !s.ok()) {
    logger()->warn("setSchedulingConfigs: {}", s.message);
    return s;
  }
  configs_.clear();
  driver_.clear_scheduling_configs();
  for (const auto& c : configs) {
    configs_[c.uid] = c;
    driver_.set_scheduling_config(c);
  }
  logger()->debug("setSchedulingConfigs: {} configs", configs.size());
  return {};
}

AidlStatus SchedulingHal::update_scheduling_configs(const std::vector<SchedulingConfig>& configs) {
  driver_.os().delay_ns(cfg_.call_ns);
  if (auto s = validate_scheduling_configs(configs); !s.ok()) {
    logger()->warn("updateSchedulingConfigs: {}", s.message);
    return s;
  }
  for (const auto& c : configs) {
    configs_[c.uid] = c;
    driver_.set_scheduling_config(c);
  }
  return {};
}

AidlStatus SchedulingHal::set_callback(std::shared_ptr<SchedulingCallback> callback,
                                       int debounce_duration_ms) {
  driver_.os().delay_ns(cfg_.call_ns);
  if (debounce_duration_ms < 0)
    return {BinderException::ILLEGAL_ARGUMENT,
            "setCallback: debounce_duration_ms " + std::to_string(debounce_duration_ms) + " is negative"};
  // A new callback starts from a clean slate: it hears of work requested from now on only.
  callback_ = std::move(callback);
  ++generation_;
  debounce_ns_ = static_cast<uint64_t>(debounce_duration_ms) * 1'000'000;
  for (auto& [id, t] : tracks_) t = Track{};
  held_ends_.clear();
  idle_held_ = false;
  return {};
}

std::optional<SchedulingConfig> SchedulingHal::scheduling_config(int uid) const {
  auto it = configs_.find(uid);
  if (it == configs_.end()) return std::nullopt;
  return it->second;
}

void SchedulingHal::emit(Event event) {
  if (!callback_) return;
  callback_thread_.post([this, event, cb = callback_, gen = generation_]() mutable {
    if (gen != generation_) return;  // the callback was replaced or cleared meanwhile
    event.info.id = static_cast<drv::JobId>(next_event_id_++);
    switch (event.type) {
      case EventType::IDLE:
        cb->on_idle();
        break;
      case EventType::REQUESTED:
        cb->on_work_requested(event.info);
        break;
      case EventType::STARTED:
        cb->on_work_started(event.info, event.start);
        break;
      case EventType::ENDED:
        cb->on_work_ended(event.info, event.end);
        break;
    }
  });
}

void SchedulingHal::on_work_requested(const WorkInfo& work) {
  Track& t = tracks_[work.id];
  if (!callback_) return;
  idle_held_ = false;
  t.reported = true;
  if (auto held = held_ends_.find(work.uid); held != held_ends_.end()) {
    // Repetitive work: this job continues the uid's previous one, whose end is never reported.
    t.folded = true;
    held_ends_.erase(held);
    return;
  }
  emit({EventType::REQUESTED, work});
}

void SchedulingHal::on_work_started(const WorkInfo& work, StartReason reason) {
  auto it = tracks_.find(work.id);
  if (it == tracks_.end() || !it->second.reported) return;
  if (it->second.folded && reason == StartReason::INITIAL) return;
  emit({EventType::STARTED, work, reason});
}

void SchedulingHal::on_work_ended(const WorkInfo& work, EndReason reason) {
  auto it = tracks_.find(work.id);
  if (it == tracks_.end()) return;
  const bool reported = it->second.reported;
  if (reason == EndReason::PAUSED) {
    if (reported) emit({EventType::ENDED, work, StartReason::INITIAL, reason});
    return;
  }
  tracks_.erase(it);
  if (!reported) return;
  Event end{EventType::ENDED, work, StartReason::INITIAL, reason};
  if (debounce_ns_ == 0 || reason != EndReason::COMPLETED) {
    emit(end);
    return;
  }
  // Hold the end back. An end already held for the uid belongs to overlapping work: report it now.
  if (auto held = held_ends_.find(work.uid); held != held_ends_.end()) {
    emit(held->second.event);
    held_ends_.erase(held);
  }
  const uint64_t token = next_token_++;
  held_ends_[work.uid] = HeldEnd{end, token};
  callback_thread_.post_after(debounce_ns_, [this, uid = work.uid, token] { release_held_end(uid, token); });
}

void SchedulingHal::release_held_end(int uid, uint64_t token) {
  auto held = held_ends_.find(uid);
  if (held == held_ends_.end() || held->second.token != token) return;  // folded or superseded
  emit(held->second.event);
  held_ends_.erase(held);
  maybe_emit_idle();
}

void SchedulingHal::on_idle() {
  if (!callback_) return;
  idle_held_ = true;
  maybe_emit_idle();
}

void SchedulingHal::maybe_emit_idle() {
  if (!idle_held_ || !held_ends_.empty()) return;
  idle_held_ = false;
  emit({EventType::IDLE, {}});
}

}  // namespace npu::hal
