// Result<T>: a value or an error. Errors cross layer boundaries as values, never as exceptions or crashes;
// each layer may wrap the message with its own context (file, JSON path, operand index). An error may
// carry a code (an errno value, as the driver's ioctls return) so the layer above decides by the code,
// never by matching the message; wrapping keeps it (with_context).
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace npu {

struct Error {
  std::string message;
  int code = 0;  // errno value; 0: none given
};

template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}      // NOLINT: implicit by design
  Result(Error error) : v_(std::move(error)) {}  // NOLINT: implicit by design

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() { return value(); }
  const T& operator*() const { return value(); }
  const std::string& error() const { return std::get<1>(v_).message; }
  int error_code() const { return std::get<1>(v_).code; }

 private:
  std::variant<T, Error> v_;
};

template <>
class [[nodiscard]] Result<void> {
 public:
  Result() = default;
  Result(Error error) : error_(std::move(error)) {}  // NOLINT: implicit by design
  bool ok() const { return !error_.has_value(); }
  explicit operator bool() const { return ok(); }
  const std::string& error() const { return error_->message; }
  int error_code() const { return error_->code; }

 private:
  std::optional<Error> error_;
};

inline Error make_error(std::string message, int code = 0) { return Error{std::move(message), code}; }

// The error of a failed `r`, its message prefixed with `context`, its code kept.
template <class T>
Error with_context(std::string context, const Result<T>& r) {
  return Error{std::move(context) + r.error(), r.error_code()};
}

}  // namespace npu
