#include "npu/common/config.h"

#include <sstream>

#include "npu/common/file_io.h"
#include "npu/common/suggest.h"
#include "npu/common/version.h"

namespace npu::cfg {
namespace {

std::string json_path(const std::string& dotted) { return "$." + dotted; }

// Values and --set text in messages: invalid UTF-8 replaced, at most 80 bytes of them kept.
constexpr size_t kShownBytes = 83;
std::string shown(const nlohmann::json& v) { return io::json_for_message(v, kShownBytes); }
std::string shown_text(const std::string& raw) { return io::text_for_message(raw, kShownBytes); }

template <class T>
std::string range_text(const char* kind, T min, T max) {
  std::ostringstream s;
  s << kind << " in [" << min << ", " << max << "]";
  return s.str();
}

}  // namespace

Schema& Schema::u32(std::string path, uint32_t* field, uint32_t def, std::string unit, std::string desc,
                    uint32_t min, uint32_t max) {
  *field = def;
  std::string expected = range_text("an integer", min, max);
  params_.push_back({path, std::move(unit), std::move(desc), std::to_string(def), expected,
                     [=](const nlohmann::json& v) -> Result<void> {
                       if (!v.is_number_integer() || v.get<int64_t>() < static_cast<int64_t>(min) ||
                           v.get<int64_t>() > static_cast<int64_t>(max))
                         return make_error("expected " + expected + ", got " + shown(v));
                       *field = v.get<uint32_t>();
                       return {};
                     },
                     [=] { return nlohmann::json(*field); }});
  return *this;
}

Schema& Schema::u64(std::string path, uint64_t* field, uint64_t def, std::string unit, std::string desc,
                    uint64_t min, uint64_t max) {
  *field = def;
  std::string expected = range_text("an integer", min, max);
  params_.push_back({path, std::move(unit), std::move(desc), std::to_string(def), expected,
                     [=](const nlohmann::json& v) -> Result<void> {
                       // A non-negative signed integer (JSON built in C++ from an int) counts too.
                       const bool non_negative =
                           v.is_number_unsigned() || (v.is_number_integer() && v.get<int64_t>() >= 0);
                       if (!non_negative || v.get<uint64_t>() < min || v.get<uint64_t>() > max)
                         return make_error("expected " + expected + ", got " + shown(v));
                       *field = v.get<uint64_t>();
                       return {};
                     },
                     [=] { return nlohmann::json(*field); }});
  return *this;
}

Schema& Schema::f64(std::string path, double* field, double def, std::string unit, std::string desc,
                    double min, double max) {
  *field = def;
  std::string expected = range_text("a number", min, max);
  std::ostringstream d;
  d << def;
  params_.push_back({path, std::move(unit), std::move(desc), d.str(), expected,
                     [=](const nlohmann::json& v) -> Result<void> {
                       if (!v.is_number() || v.get<double>() < min || v.get<double>() > max)
                         return make_error("expected " + expected + ", got " + shown(v));
                       *field = v.get<double>();
                       return {};
                     },
                     [=] { return nlohmann::json(*field); }});
  return *this;
}

Schema& Schema::boolean(std::string path, bool* field, bool def, std::string desc) {
  *field = def;
  params_.push_back({path, "", std::move(desc), def ? "true" : "false", "true or false",
                     [=](const nlohmann::json& v) -> Result<void> {
                       if (!v.is_boolean()) return make_error("expected true or false, got " + shown(v));
                       *field = v.get<bool>();
                       return {};
                     },
                     [=] { return nlohmann::json(*field); }});
  return *this;
}

Schema& Schema::choice(std::string path, std::string* field, std::string def,
                       std::vector<std::string> allowed, std::string desc) {
  *field = def;
  std::string expected = "one of";
  for (size_t i = 0; i < allowed.size(); ++i) expected += (i ? ", \"" : " \"") + allowed[i] + "\"";
  params_.push_back({path, "", std::move(desc), "\"" + def + "\"", expected,
                     [=](const nlohmann::json& v) -> Result<void> {
                       if (v.is_string()) {
                         for (const auto& a : allowed) {
                           if (a == v.get<std::string>()) {
                             *field = a;
                             return {};
                           }
                         }
                       }
                       return make_error("expected " + expected + ", got " + shown(v));
                     },
                     [=] { return nlohmann::json(*field); }});
  choices_[params_.back().path] = std::move(allowed);
  return *this;
}

std::vector<std::string> Schema::choices(const std::string& path) const {
  const auto it = choices_.find(path);
  return it == choices_.end() ? std::vector<std::string>{} : it->second;
}

const Schema::Param* Schema::find(const std::string& path) const {
  for (const auto& p : params_) {
    if (p.path == path) return &p;
  }
  return nullptr;
}

bool Schema::is_prefix(const std::string& path) const {
  for (const auto& p : params_) {
    if (p.path.size() > path.size() && p.path.compare(0, path.size(), path) == 0 &&
        p.path[path.size()] == '.')
      return true;
  }
  return false;
}

Result<void> Schema::walk(const nlohmann::json& node, const std::string& path, const std::string& source) {
  if (const Param* p = find(path)) {
    if (auto r = p->assign(node); !r) return make_error(source + ": " + json_path(path) + ": " + r.error());
    return {};
  }
  if (!is_prefix(path)) {
    std::vector<std::string> known;
    for (const auto& p : params_) known.push_back(p.path);
    return make_error(source + ": " + json_path(path) + ": unknown parameter" + did_you_mean(path, known));
  }
  if (!node.is_object())
    return make_error(source + ": " + json_path(path) + ": expected an object, got " + shown(node));
  for (const auto& [key, value] : node.items()) {
    if (auto r = walk(value, path + "." + key, source); !r) return r;
  }
  return {};
}

Result<void> Schema::apply(const nlohmann::json& doc, const std::string& source,
                           const std::vector<std::string>& ignored_top_level) {
  if (!doc.is_object()) return make_error(source + ": $: expected an object, got " + shown(doc));
  for (const auto& [key, value] : doc.items()) {
    bool ignored = false;
    for (const auto& i : ignored_top_level) ignored = ignored || i == key;
    if (ignored) continue;
    if (key == kBuildKey) {  // the build that wrote the file (npusim run --out's config.json)
      if (!value.is_object())
        return make_error(source + ": $." + key +
                          ": expected the object naming the npusim build that wrote the file, got " +
                          shown(value));
      continue;
    }
    if (auto r = walk(value, key, source); !r) return r;
  }
  return {};
}

Result<void> Schema::set(const std::string& assignment) {
  const auto eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0)
    return make_error("--set " + shown_text(assignment) + ": expected path=value, e.g. npu.channels=2");
  const std::string path = assignment.substr(0, eq);
  const std::string text = assignment.substr(eq + 1);
  const Param* p = find(path);
  if (!p) {
    std::vector<std::string> known;
    for (const auto& q : params_) known.push_back(q.path);
    return make_error("--set " + shown_text(assignment) + ": unknown parameter " + shown_text(path) +
                      did_you_mean(path, known) + " (see npusim config --explain)");
  }
  if (auto n = io::check_json_nesting(text); !n) return make_error("--set " + path + ": " + n.error());
  nlohmann::json value = nlohmann::json::parse(text, nullptr, false);
  if (value.is_discarded()) value = text;  // bare strings need no quotes
  if (auto r = p->assign(value); !r) return make_error("--set " + path + ": " + r.error());
  return {};
}

std::string Schema::explain() const {
  std::ostringstream s;
  for (const auto& p : params_) {
    s << p.path << " = " << p.default_text;
    if (!p.unit.empty()) s << " [" << p.unit << "]";
    s << "  — " << p.description << " (" << p.expected << ")\n";
  }
  return s.str();
}

nlohmann::json Schema::values() const {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& p : params_)
    out[nlohmann::json::json_pointer("/" + [&] {
      std::string s = p.path;
      for (auto& c : s)
        if (c == '.') c = '/';
      return s;
    }())] = p.get();
  return out;
}

}  // namespace npu::cfg
