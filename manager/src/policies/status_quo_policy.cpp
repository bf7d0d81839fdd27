// STATUS_QUO (AOSP's default): no arbitration, as before the NPU manager existed — every request may
// load at once, nobody is ever asked to unload. Memory is not checked: the driver fails a load that
// does not fit, as it did before.
#include "npu/mgr/policy.h"

namespace npu::mgr {
namespace {

class StatusQuoPolicy : public LoadPolicy {
 public:
  const char* name() const override { return "STATUS_QUO"; }
  Decision evaluate(const ServiceView& view) override {
    Decision d;
    for (const auto& r : view.requests)
      d.rulings.push_back({is_waiting(r.state) ? Verdict::ADMIT : Verdict::KEEP});
    return d;
  }
};

}  // namespace

Result<std::unique_ptr<LoadPolicy>> make_status_quo_policy(const nlohmann::json& params) {
  if (!params.empty()) return make_error("setPolicy(STATUS_QUO): takes no parameters, got " + params.dump());
  return std::unique_ptr<LoadPolicy>(std::make_unique<StatusQuoPolicy>());
}

}  // namespace npu::mgr
