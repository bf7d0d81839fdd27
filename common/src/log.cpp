#include "npu/common/log.h"

#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/stdout_color_sinks.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <sstream>
#include <vector>

namespace npu::log {
namespace {

std::function<uint64_t()>& clock_source() {
  static std::function<uint64_t()> now_ns;
  return now_ns;
}

// The %* flag: the simulated time of the line, or nothing without a clock.
class SimulatedTimeFlag : public spdlog::custom_flag_formatter {
 public:
  void format(const spdlog::details::log_msg&, const std::tm&, spdlog::memory_buf_t& dest) override {
    const auto& now = clock_source();
    if (!now) return;
    const uint64_t ns = now();
    char text[48];
    const int n =
        std::snprintf(text, sizeof text, "[%10llu.%03llu us] ", static_cast<unsigned long long>(ns / 1000),
                      static_cast<unsigned long long>(ns % 1000));
    dest.append(text, text + n);
  }
  std::unique_ptr<custom_flag_formatter> clone() const override {
    return std::make_unique<SimulatedTimeFlag>();
  }
};

struct Registry {
  std::mutex mutex;
  bool all = false;
  std::vector<std::string> selectors;
  bool initialised = false;

  void parse(const std::string& filter) {
    all = false;
    selectors.clear();
    if (filter == "1" || filter == "all") {
      all = true;
      return;
    }
    std::stringstream in(filter);
    std::string item;
    while (std::getline(in, item, ',')) {
      if (!item.empty()) selectors.push_back(item);
    }
  }
  void init_once() {
    if (initialised) return;
    initialised = true;
    const char* env = std::getenv("NPUSIM_LOG");
    parse(env ? env : "");
  }
  // A selector matches the name itself or any dotted child of it (`npu.ch0` matches `npu.ch0.dma`).
  bool matches(const std::string& name) const {
    if (all) return true;
    for (const auto& s : selectors) {
      if (name == s) return true;
      if (name.size() > s.size() && name.compare(0, s.size(), s) == 0 && name[s.size()] == '.') return true;
    }
    return false;
  }
};

Registry& registry() {
  static Registry r;
  return r;
}

}  // namespace

bool enabled(const std::string& name) {
  auto& r = registry();
  std::lock_guard lock(r.mutex);
  r.init_once();
  return r.matches(name);
}

std::shared_ptr<spdlog::logger> get(const std::string& name) {
  auto& r = registry();
  std::lock_guard lock(r.mutex);
  r.init_once();
  if (auto existing = spdlog::get(name)) return existing;
  auto logger = spdlog::stderr_color_mt(name);
  auto formatter = std::make_unique<spdlog::pattern_formatter>();
  formatter->add_flag<SimulatedTimeFlag>('*').set_pattern("%*[%n] %v");
  logger->set_formatter(std::move(formatter));
  logger->set_level(r.matches(name) ? spdlog::level::trace : spdlog::level::off);
  return logger;
}

void set_filter(const std::string& filter) {
  auto& r = registry();
  std::lock_guard lock(r.mutex);
  r.initialised = true;
  r.parse(filter);
  spdlog::apply_all([&](const std::shared_ptr<spdlog::logger>& l) {
    l->set_level(r.matches(l->name()) ? spdlog::level::trace : spdlog::level::off);
  });
}

void set_clock(std::function<uint64_t()> now_ns) { clock_source() = std::move(now_ns); }

namespace {
// Every log::get() name starts with one of these (the channels' SystemC names are npu.chN).
const char* const kRoots[] = {"compilation", "cpuexe",     "driver", "execution", "manager",
                              "model",       "scheduling", "npu",    "vp"};
}  // namespace

std::string unknown_selector(const std::string& filter) {
  if (filter == "1" || filter == "all") return {};
  std::stringstream in(filter);
  std::string item;
  while (std::getline(in, item, ',')) {
    if (item.empty()) continue;
    const std::string root = item.substr(0, item.find('.'));
    bool known = false;
    for (const char* r : kRoots) known = known || root == r;
    if (!known) return item;
  }
  return {};
}

std::string known_roots() {
  std::string s = "all";
  for (const char* r : kRoots) s += std::string(", ") + r;
  return s;
}

}  // namespace npu::log
