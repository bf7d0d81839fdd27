#include "npu/mgr/npu_manager.h"

#include <algorithm>
#include <vector>

#include "npu/common/log.h"

namespace npu::mgr {
namespace {

int priority_rank(LoadPriority p) {
  switch (p) {
    case LoadPriority::NORMAL: return 0;
    case LoadPriority::BACKGROUND: return 1;
    case LoadPriority::OPPORTUNISTIC: return 2;
  }
  return 3;
}

}  // namespace

const char* to_string(LoadStatus s) {
  switch (s) {
    case LoadStatus::CAN_LOAD_NOW: return "CAN_LOAD_NOW";
    case LoadStatus::WAIT_FOR_UNLOAD: return "WAIT_FOR_UNLOAD";
    case LoadStatus::NOT_PRIORITIZED: return "NOT_PRIORITIZED";
  }
  return "?";
}

const char* to_string(RequestStatus s) { return s == RequestStatus::CANCELLED ? "CANCELLED" : "COMPLETE"; }

const char* to_string(UnloadReason r) { return r == UnloadReason::THERMAL ? "THERMAL" : "MEMORY_PRESSURE"; }

uint64_t reserved_bytes(SizeClass s) {
  switch (s) {
    case SizeClass::LESS_THAN_1GB: return 1ull << 30;
    case SizeClass::BETWEEN_1GB_AND_2GB: return 2ull << 30;
    case SizeClass::GREATER_THAN_2G: return 4ull << 30;
  }
  return 4ull << 30;
}

Executor::Executor(drv::Os& os, const std::string& name, uint64_t task_cost_ns)
    : os_(os), task_cost_ns_(task_cost_ns), wake_(os.make_wait_queue()) {
  os_.spawn(name, [this] { loop(); });
}

void Executor::post(std::function<void()> task) {
  tasks_.push_back(std::move(task));
  wake_->wake_all();
}

void Executor::loop() {
  for (;;) {
    while (tasks_.empty()) wake_->wait();
    auto task = std::move(tasks_.front());
    tasks_.pop_front();
    os_.delay_ns(task_cost_ns_);
    task();
  }
}

void ModelLoadStatusListener::notify_model_loaded(const ModelLoadRequest& r) { service_.loaded(uid_, r); }
void ModelLoadStatusListener::notify_model_unloaded(const ModelLoadRequest& r) { service_.unloaded(uid_, r); }

NpuService::NpuService(drv::Os& os, ServiceConfig cfg) : os_(os), cfg_(cfg) {}

void NpuService::set_importance(int uid, Importance importance) {
  importance_[uid] = importance;
  schedule();
}

bool NpuService::ranks_above(const Entry& a, const Entry& b) const {
  auto imp = [&](int uid) {
    auto it = importance_.find(uid);
    return static_cast<int>(it == importance_.end() ? Importance::BACKGROUND : it->second);
  };
  if (imp(a.uid) != imp(b.uid)) return imp(a.uid) < imp(b.uid);
  if (priority_rank(a.request.priority) != priority_rank(b.request.priority))
    return priority_rank(a.request.priority) < priority_rank(b.request.priority);
  return a.arrival < b.arrival;
}

void NpuService::request_can_load_model(int uid, const ModelLoadRequest& request,
                                        std::shared_ptr<ModelLoadRequestCallback> callback, Executor& executor) {
  os_.delay_ns(cfg_.binder_ns);
  const Key key{uid, request.id};
  if (entries_.count(key) || reserved_bytes(request.size) > cfg_.weight_memory_bytes) {
    // A reused id or a model that can never fit: the request ends at once.
    log::get("manager")->info("uid {} request {} refused ({})", uid, request.id,
                              entries_.count(key) ? "duplicate id" : "larger than NPU weight memory");
    executor.post([callback, request] { callback->on_model_load_request_complete(request, RequestStatus::CANCELLED); });
    return;
  }
  auto& listener = listeners_[uid];
  if (!listener) listener = std::make_unique<ModelLoadStatusListener>(*this, uid);
  entries_.emplace(key, Entry{uid, request, std::move(callback), &executor, State::WAITING, arrivals_++, listener.get()});
  schedule();
}

void NpuService::cancel_model_load(int uid, const ModelLoadRequest& request) {
  os_.delay_ns(cfg_.binder_ns);
  auto it = entries_.find({uid, request.id});
  if (it == entries_.end()) return;
  if (it->second.state != State::WAITING) used_ -= reserved_bytes(it->second.request.size);
  complete(it->first, RequestStatus::CANCELLED);
  schedule();
}

void NpuService::loaded(int uid, const ModelLoadRequest& request) {
  os_.delay_ns(cfg_.binder_ns);
  auto it = entries_.find({uid, request.id});
  if (it != entries_.end() && it->second.state == State::APPROVED) it->second.state = State::LOADED;
}

void NpuService::unloaded(int uid, const ModelLoadRequest& request) {
  os_.delay_ns(cfg_.binder_ns);
  auto it = entries_.find({uid, request.id});
  if (it == entries_.end() || it->second.state == State::WAITING) return;
  used_ -= reserved_bytes(it->second.request.size);
  complete(it->first, RequestStatus::COMPLETE);
  schedule();
}

void NpuService::complete(Key key, RequestStatus status) {
  auto it = entries_.find(key);
  auto cb = it->second.callback;
  const auto request = it->second.request;
  it->second.executor->post([cb, request, status] { cb->on_model_load_request_complete(request, status); });
  entries_.erase(it);
}

void NpuService::schedule() {
  auto log = log::get("manager");
  std::vector<Entry*> waiting, holders;
  for (auto& [k, e] : entries_) (e.state == State::WAITING ? waiting : holders).push_back(&e);
  auto by_rank = [this](const Entry* a, const Entry* b) { return ranks_above(*a, *b); };
  std::sort(waiting.begin(), waiting.end(), by_rank);
  std::sort(holders.begin(), holders.end(), by_rank);
  for (Entry* w : waiting) {
    const uint64_t need = reserved_bytes(w->request.size);
    if (used_ + need <= cfg_.weight_memory_bytes) {
      used_ += need;
      w->state = State::APPROVED;
      log->info("uid {} request {} approved ({} GiB reserved, {} GiB in use)", w->uid, w->request.id, need >> 30,
                used_ >> 30);
      auto cb = w->callback;
      auto* listener = w->listener;
      const auto request = w->request;
      w->executor->post([cb, request, listener] { cb->on_can_load_model(request, LoadStatus::CAN_LOAD_NOW, *listener); });
      continue;
    }
    // Memory already being given back counts; then ask holders ranked below, lowest first.
    uint64_t freeing = 0;
    for (const Entry* h : holders)
      if (h->state == State::UNLOADING) freeing += reserved_bytes(h->request.size);
    std::vector<Entry*> victims;
    for (auto it = holders.rbegin(); it != holders.rend() && used_ + need > cfg_.weight_memory_bytes + freeing; ++it) {
      if ((*it)->state == State::UNLOADING || !ranks_above(*w, **it)) continue;
      victims.push_back(*it);
      freeing += reserved_bytes((*it)->request.size);
    }
    if (used_ + need <= cfg_.weight_memory_bytes + freeing) {
      for (Entry* v : victims) {
        v->state = State::UNLOADING;
        log->info("uid {} request {} asked to unload for uid {} request {}", v->uid, v->request.id, w->uid,
                  w->request.id);
        auto cb = v->callback;
        const auto request = v->request;
        v->executor->post([cb, request] { cb->on_request_unload_model(request, UnloadReason::MEMORY_PRESSURE); });
      }
    }
    break;  // admit in rank order: nobody overtakes the highest-ranked waiter
  }
}

}  // namespace npu::mgr
