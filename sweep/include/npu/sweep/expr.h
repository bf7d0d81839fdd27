// Constraint expressions of a sweep file: a small, safe arithmetic and comparison language over the
// design's parameters, e.g. "npu.channel.array.rows == npu.channel.array.cols" or
// "npu.channels * npu.channel.sram.kib <= 4096". Grammar (usual precedence, left-associative):
//   expr := or;  or := and ('||' and)*;  and := cmp ('&&' cmp)*;
//   cmp := sum (('=='|'!='|'<='|'<'|'>='|'>') sum)?;  sum := prod (('+'|'-') prod)*;
//   prod := unary (('*'|'/'|'%') unary)*;  unary := ('-'|'!')? atom;
//   atom := number | parameter path | '(' expr ')' | min(expr, expr) | max(expr, expr)
// Values are doubles (true = 1, false = 0); a parameter whose value is a string compares equal only to
// itself, so string parameters cannot be used. It does not loop, call out or allocate per evaluation
// beyond the tree: a parse error names the character offset. An expression nests at most
// kMaxExprDepth levels: parentheses, unary operators and the operators of a chain (a + b + c is two)
// each count one, so neither parsing, evaluating nor freeing it can exhaust the stack.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "npu/common/result.h"

namespace npu::sweep {

inline constexpr uint32_t kMaxExprDepth = 256;

class Expr {
 public:
  struct Node;
  static Result<Expr> parse(const std::string& text);
  // Every parameter path the expression reads.
  const std::vector<std::string>& parameters() const { return parameters_; }
  // `lookup` gives a parameter's numeric value, nullopt when it is unknown or not a number.
  Result<double> evaluate(const std::function<std::optional<double>(const std::string&)>& lookup) const;

 private:
  std::shared_ptr<const Node> root_;
  std::vector<std::string> parameters_;
};

}  // namespace npu::sweep
