#include "npu/tools/escaped_error.h"

#include <new>
#include <systemc>

namespace npu::tools {
namespace {

// Newlines folded into spaces and the text cut, so a hostile what() stays one readable line.
std::string one_line(const std::string& text) {
  constexpr size_t kMaxBytes = 400;
  std::string out;
  for (char c : text) {
    if (out.size() >= kMaxBytes) return out + "...";
    out += (c == '\n' || c == '\r') ? ' ' : c;
  }
  return out;
}

bool is_bad_alloc(const std::string& what) {
  return what == std::bad_alloc().what() || what == std::bad_array_new_length().what();
}

}  // namespace

std::string escaped_error_line(const std::exception_ptr& e) {
  try {
    std::rethrow_exception(e);
  } catch (const sc_core::sc_report& r) {
    // E549 "uncaught exception" carries the escaped exception's what() as its message; other reports
    // (a SystemC error of the kernel itself) their own id and message.
    const std::string msg = r.get_msg() ? r.get_msg() : "";
    const char* process = r.get_process_name();
    const std::string where =
        process && *process ? std::string(" (in SystemC process ") + process + ")" : std::string();
    if (is_bad_alloc(msg)) return "out of host memory" + where;
    const std::string type = r.get_msg_type() ? r.get_msg_type() : "";
    const bool uncaught = type == "uncaught exception";
    return one_line("internal error: " + (uncaught || type.empty() ? msg : type + ": " + msg) + where);
  } catch (const std::bad_alloc&) {
    return "out of host memory";
  } catch (const std::exception& x) {
    return one_line(std::string("internal error: ") + x.what());
  } catch (...) {
    return "internal error: an exception that is not a std::exception";
  }
}

}  // namespace npu::tools
