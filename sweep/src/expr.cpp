#include "npu/sweep/expr.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>

namespace npu::sweep {

struct Expr::Node {
  enum Kind { Number, Param, Unary, Binary, Call } kind = Number;
  double number = 0;
  std::string text;  // parameter path, operator or function name
  std::shared_ptr<const Node> a, b;
  uint32_t height = 0;  // operators on the longest path below (0 for a leaf): bounds eval's recursion
};

namespace {

using NodeP = std::shared_ptr<const Expr::Node>;

class Parser {
 public:
  explicit Parser(const std::string& s) : s_(s) {}

  Result<NodeP> parse_all(std::vector<std::string>* params) {
    params_ = params;
    auto n = parse_or_terms();  // the top level is not a nesting level
    if (!n) return n;
    skip();
    if (pos_ != s_.size()) return error("unexpected \"" + s_.substr(pos_, 1) + "\"");
    return n;
  }

 private:
  Error error(const std::string& what) const {
    return Error{"at offset " + std::to_string(pos_) + ": " + what};
  }
  void skip() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  bool eat(const std::string& op) {
    skip();
    if (s_.compare(pos_, op.size(), op) != 0) return false;
    pos_ += op.size();
    return true;
  }
  // Over kMaxExprDepth levels: an error, before the tree (walked and freed recursively) gets deeper.
  Result<NodeP> node(Expr::Node::Kind kind, const std::string& text, NodeP a, NodeP b) const {
    auto n = std::make_shared<Expr::Node>();
    n->kind = kind;
    n->text = text;
    n->height = 1 + std::max(a ? a->height : 0, b ? b->height : 0);
    if (n->height > kMaxExprDepth) return too_deep();
    n->a = std::move(a);
    n->b = std::move(b);
    return NodeP(n);
  }
  Result<NodeP> binary(const std::string& op, NodeP a, NodeP b) const {
    return node(Expr::Node::Binary, op, std::move(a), std::move(b));
  }
  Error too_deep() const {
    return error("nested deeper than " + std::to_string(kMaxExprDepth) +
                 " levels (parentheses, unary operators and chained terms each count one)");
  }
  // One level of the parser's recursion; false (and nothing entered) past kMaxExprDepth.
  bool enter() { return ++depth_ <= kMaxExprDepth ? true : (--depth_, false); }
  void leave() { --depth_; }

  // Every "(", min(/max( argument and unary operator comes back through here: the recursion's bound.
  Result<NodeP> parse_or() {
    if (!enter()) return too_deep();
    auto l = parse_or_terms();
    leave();
    return l;
  }
  Result<NodeP> parse_or_terms() {
    auto l = parse_and();
    while (l && eat("||")) {
      auto r = parse_and();
      if (!r) return r;
      l = binary("||", *l, *r);
    }
    return l;
  }
  Result<NodeP> parse_and() {
    auto l = parse_cmp();
    while (l && eat("&&")) {
      auto r = parse_cmp();
      if (!r) return r;
      l = binary("&&", *l, *r);
    }
    return l;
  }
  Result<NodeP> parse_cmp() {
    auto l = parse_sum();
    if (!l) return l;
    for (const char* op : {"==", "!=", "<=", ">=", "<", ">"}) {
      if (eat(op)) {
        auto r = parse_sum();
        if (!r) return r;
        return binary(op, *l, *r);
      }
    }
    return l;
  }
  Result<NodeP> parse_sum() {
    auto l = parse_prod();
    while (l) {
      std::string op;
      if (eat("+"))
        op = "+";
      else if (eat("-"))
        op = "-";
      else
        break;
      auto r = parse_prod();
      if (!r) return r;
      l = binary(op, *l, *r);
    }
    return l;
  }
  Result<NodeP> parse_prod() {
    auto l = parse_unary();
    while (l) {
      std::string op;
      if (eat("*"))
        op = "*";
      else if (eat("/"))
        op = "/";
      else if (eat("%"))
        op = "%";
      else
        break;
      auto r = parse_unary();
      if (!r) return r;
      l = binary(op, *l, *r);
    }
    return l;
  }
  Result<NodeP> parse_unary() {
    skip();
    // "!=" is a comparison, never a negation.
    if (pos_ < s_.size() && (s_[pos_] == '-' || (s_[pos_] == '!' && s_.compare(pos_, 2, "!=") != 0))) {
      const std::string op(1, s_[pos_++]);
      if (!enter()) return too_deep();
      auto a = parse_unary();
      leave();
      if (!a) return a;
      return node(Expr::Node::Unary, op, *a, nullptr);
    }
    return parse_atom();
  }
  Result<NodeP> parse_atom() {
    skip();
    if (pos_ >= s_.size()) return error("expected a number, a parameter or \"(\", got the end");
    const char c = s_[pos_];
    if (eat("(")) {
      auto e = parse_or();
      if (!e) return e;
      if (!eat(")")) return error("expected \")\"");
      return e;
    }
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') {
      const char* start = s_.c_str() + pos_;
      char* end = nullptr;
      const double v = std::strtod(start, &end);
      if (end == start) return error("bad number");
      pos_ += static_cast<size_t>(end - start);
      auto n = std::make_shared<Expr::Node>();
      n->number = v;
      return NodeP(n);
    }
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      const size_t start = pos_;
      while (pos_ < s_.size() &&
             (std::isalnum(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_' || s_[pos_] == '.'))
        ++pos_;
      const std::string name = s_.substr(start, pos_ - start);
      if ((name == "min" || name == "max") && eat("(")) {
        auto a = parse_or();
        if (!a) return a;
        if (!eat(",")) return error("expected \",\" in " + name + "(a, b)");
        auto b = parse_or();
        if (!b) return b;
        if (!eat(")")) return error("expected \")\" closing " + name + "(");
        return node(Expr::Node::Call, name, *a, *b);
      }
      auto n = std::make_shared<Expr::Node>();
      n->kind = Expr::Node::Param;
      n->text = name;
      bool seen = false;
      for (const auto& p : *params_) seen = seen || p == name;
      if (!seen) params_->push_back(name);
      return NodeP(n);
    }
    return error("unexpected \"" + std::string(1, c) + "\"");
  }

  const std::string& s_;
  size_t pos_ = 0;
  std::vector<std::string>* params_ = nullptr;
  uint32_t depth_ = 0;
};

Result<double> eval(const Expr::Node& n,
                    const std::function<std::optional<double>(const std::string&)>& lookup) {
  switch (n.kind) {
    case Expr::Node::Number:
      return n.number;
    case Expr::Node::Param: {
      auto v = lookup(n.text);
      if (!v) return Error{"\"" + n.text + "\" is not a numeric parameter (see npusim config --explain)"};
      return *v;
    }
    case Expr::Node::Unary: {
      auto a = eval(*n.a, lookup);
      if (!a) return a;
      return n.text == "-" ? -*a : (*a == 0 ? 1.0 : 0.0);
    }
    case Expr::Node::Call:
    case Expr::Node::Binary: {
      auto a = eval(*n.a, lookup);
      if (!a) return a;
      auto b = eval(*n.b, lookup);
      if (!b) return b;
      const double x = *a, y = *b;
      const std::string& op = n.text;
      if (op == "min") return std::min(x, y);
      if (op == "max") return std::max(x, y);
      if (op == "+") return x + y;
      if (op == "-") return x - y;
      if (op == "*") return x * y;
      if (op == "/") {
        if (y == 0) return Error{"division by zero"};
        return x / y;
      }
      if (op == "%") {
        if (y == 0) return Error{"remainder by zero"};
        return std::fmod(x, y);
      }
      if (op == "==") return x == y ? 1.0 : 0.0;
      if (op == "!=") return x != y ? 1.0 : 0.0;
      if (op == "<=") return x <= y ? 1.0 : 0.0;
      if (op == ">=") return x >= y ? 1.0 : 0.0;
      if (op == "<") return x < y ? 1.0 : 0.0;
      if (op == ">") return x > y ? 1.0 : 0.0;
      if (op == "&&") return x != 0 && y != 0 ? 1.0 : 0.0;
      if (op == "||") return x != 0 || y != 0 ? 1.0 : 0.0;
      return Error{"unknown operator " + op};
    }
  }
  return Error{"bad expression"};
}

}  // namespace

Result<Expr> Expr::parse(const std::string& text) {
  Expr e;
  Parser p(text);
  auto root = p.parse_all(&e.parameters_);
  if (!root) return Error{root.error()};
  e.root_ = *root;
  return e;
}

Result<double> Expr::evaluate(const std::function<std::optional<double>(const std::string&)>& lookup) const {
  return eval(*root_, lookup);
}

}  // namespace npu::sweep
