// A recursive-descent parser for the Python slice of python_expression.hpp, with Python's
// operator precedence: or < and < not < comparisons < + - < * / // % < unary - < **.
#include <cctype>

#include "kt/python_expression.hpp"

namespace cutune::kt {
namespace {

class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  PyNodePtr whole() {
    PyNodePtr node = expression();
    skip_space();
    if (pos_ != text_.size()) fail("unexpected '" + std::string(text_.substr(pos_, 12)) + "'");
    return node;
  }

 private:
  std::string_view text_;
  std::size_t pos_ = 0;

  [[noreturn]] void fail(const std::string& what) const {
    throw PythonError("Python expression '" + std::string(text_) + "' at column " +
                      std::to_string(pos_ + 1) + ": " + what);
  }
  void skip_space() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  static bool word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
  // Consumes `token` (a keyword only as a whole word).
  bool take(std::string_view token) {
    skip_space();
    if (text_.substr(pos_, token.size()) != token) return false;
    const bool keyword = word_char(token.front());
    if (keyword && pos_ + token.size() < text_.size() && word_char(text_[pos_ + token.size()])) {
      return false;
    }
    pos_ += token.size();
    return true;
  }
  void expect(std::string_view token) {
    if (!take(token)) fail("expected '" + std::string(token) + "'");
  }
  static PyNodePtr make(PyNode node) { return std::make_shared<const PyNode>(std::move(node)); }
  PyNodePtr binary(PyNode::Kind kind, std::string op, PyNodePtr a, PyNodePtr b) {
    return make({.kind = kind, .text = std::move(op), .children = {std::move(a), std::move(b)}});
  }

  PyNodePtr expression() {
    PyNodePtr left = conjunction();
    while (take("or")) left = binary(PyNode::Kind::boolean, "or", left, conjunction());
    return left;
  }
  PyNodePtr conjunction() {
    PyNodePtr left = negation();
    while (take("and")) left = binary(PyNode::Kind::boolean, "and", left, negation());
    return left;
  }
  PyNodePtr negation() {
    if (take("not"))
      return make({.kind = PyNode::Kind::unary, .text = "not", .children = {negation()}});
    return comparison();
  }
  PyNodePtr comparison() {
    PyNode node{.kind = PyNode::Kind::compare};
    node.children.push_back(sum());
    for (;;) {
      std::string op;
      for (const char* candidate : {"==", "!=", "<=", ">=", "<", ">"}) {
        if (take(candidate)) {
          op = candidate;
          break;
        }
      }
      if (op.empty()) {
        if (take("in") || take("is")) fail("'in' and 'is' are not supported");
        break;
      }
      node.ops.push_back(op);
      node.children.push_back(sum());
    }
    return node.ops.empty() ? node.children.front() : make(std::move(node));
  }
  PyNodePtr sum() {
    PyNodePtr left = product();
    for (;;) {
      if (take("+"))
        left = binary(PyNode::Kind::binary, "+", left, product());
      else if (take("-"))
        left = binary(PyNode::Kind::binary, "-", left, product());
      else
        return left;
    }
  }
  PyNodePtr product() {
    PyNodePtr left = unary();
    for (;;) {
      if (take("//"))
        left = binary(PyNode::Kind::binary, "//", left, unary());
      else if (take("*"))
        left = binary(PyNode::Kind::binary, "*", left, unary());
      else if (take("/"))
        left = binary(PyNode::Kind::binary, "/", left, unary());
      else if (take("%"))
        left = binary(PyNode::Kind::binary, "%", left, unary());
      else
        return left;
    }
  }
  PyNodePtr unary() {
    if (take("-")) return make({.kind = PyNode::Kind::unary, .text = "-", .children = {unary()}});
    if (take("+")) return unary();
    return power();
  }
  PyNodePtr power() {
    PyNodePtr base = atom();
    for (;;) {
      if (take("[")) {  // subscript: ProblemSize[0]
        base = make({.kind = PyNode::Kind::index, .children = {base, expression()}});
        expect("]");
      } else if (take(".")) {  // a method of a value: x.astype(numpy.float32)
        const std::string method = word();
        expect("(");
        PyNode call{.kind = PyNode::Kind::call, .text = "." + method};
        call.children.push_back(base);
        call.ops.push_back("");
        arguments(call);
        base = make(std::move(call));
      } else {
        break;
      }
    }
    // `**` binds tighter than unary minus on its left and is right-associative.
    if (take("**")) return binary(PyNode::Kind::binary, "**", base, unary());
    return base;
  }
  PyNodePtr atom() {
    skip_space();
    if (pos_ >= text_.size()) fail("unexpected end");
    const char c = text_[pos_];
    if (take("(")) {  // parentheses, or a tuple (read as a list)
      if (take(")")) return make({.kind = PyNode::Kind::list});
      PyNodePtr inner = expression();
      if (!take(",")) {
        expect(")");
        return inner;
      }
      PyNode tuple{.kind = PyNode::Kind::list, .children = {inner}};
      while (!take(")")) {
        tuple.children.push_back(expression());
        if (!take(",")) {
          expect(")");
          break;
        }
      }
      return make(std::move(tuple));
    }
    if (take("[")) return list();
    if (take("{")) return dict();
    if (c == '\'' || c == '"') return string();
    if ((c == 'r' || c == 'R') && pos_ + 1 < text_.size() &&
        (text_[pos_ + 1] == '\'' || text_[pos_ + 1] == '"')) {
      ++pos_;
      return string(/*raw=*/true);
    }
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') return number();
    if (word_char(c)) {
      std::string name = word();
      if (name == "True" || name == "False") {
        return make({.kind = PyNode::Kind::number, .value = name == "True" ? 1 : 0});
      }
      if (name == "None") return make({.kind = PyNode::Kind::number, .value = nullptr});
      if (name == "lambda" || name == "for" || name == "if") fail("unexpected '" + name + "'");
      // A dotted name (numpy.random.randn, numpy.float32) is one name; a method of a value is
      // read by power().
      while (pos_ + 1 < text_.size() && text_[pos_] == '.' &&
             std::isalpha(static_cast<unsigned char>(text_[pos_ + 1]))) {
        ++pos_;
        name += "." + word();
      }
      if (take("(")) {
        PyNode call{.kind = PyNode::Kind::call, .text = name};
        arguments(call);
        return make(std::move(call));
      }
      return make({.kind = PyNode::Kind::name, .text = name});
    }
    fail(std::string("unexpected '") + c + "'");
  }
  std::string word() {
    skip_space();
    const std::size_t start = pos_;
    while (pos_ < text_.size() && word_char(text_[pos_])) ++pos_;
    if (start == pos_) fail("expected a name");
    return std::string(text_.substr(start, pos_ - start));
  }
  // A call's arguments after its '(': positional, `*splat` (ops "*") and keyword=value (ops the
  // keyword), up to the closing ')'.
  void arguments(PyNode& call) {
    while (!take(")")) {
      std::string keyword;
      if (take("**")) fail("'**' arguments are not supported");
      if (take("*")) {
        keyword = "*";
      } else {
        skip_space();
        const std::size_t start = pos_;
        while (pos_ < text_.size() && word_char(text_[pos_])) ++pos_;
        std::size_t after = pos_;
        while (after < text_.size() && text_[after] == ' ') ++after;
        if (pos_ > start && after < text_.size() && text_[after] == '=' &&
            (after + 1 >= text_.size() || text_[after + 1] != '=')) {
          keyword = std::string(text_.substr(start, pos_ - start));
          pos_ = after + 1;
        } else {
          pos_ = start;
        }
      }
      call.children.push_back(expression());
      call.ops.push_back(keyword);
      if (!take(",")) {
        expect(")");
        return;
      }
    }
  }
  PyNodePtr list() {
    PyNode node{.kind = PyNode::Kind::list};
    if (take("]")) return make(std::move(node));
    PyNodePtr first = expression();
    if (take("for")) {
      PyNode comp{.kind = PyNode::Kind::comprehension};
      skip_space();
      const std::size_t start = pos_;
      while (pos_ < text_.size() && word_char(text_[pos_])) ++pos_;
      comp.variable = std::string(text_.substr(start, pos_ - start));
      if (comp.variable.empty()) fail("expected a variable after 'for'");
      expect("in");
      comp.children = {first, expression()};
      if (take("if")) comp.children.push_back(expression());
      expect("]");
      return make(std::move(comp));
    }
    node.children.push_back(first);
    while (take(",")) {
      if (take("]")) return make(std::move(node));
      node.children.push_back(expression());
    }
    expect("]");
    return make(std::move(node));
  }
  PyNodePtr dict() {
    PyNode node{.kind = PyNode::Kind::dict};
    while (!take("}")) {
      node.children.push_back(expression());
      expect(":");
      node.children.push_back(expression());
      if (!take(",")) {
        expect("}");
        break;
      }
    }
    return make(std::move(node));
  }
  // A string literal; `raw` for r'...', whose backslashes are all kept.
  PyNodePtr string(bool raw = false) {
    const char quote = text_[pos_];
    const std::string_view closing = text_.substr(pos_, 3) == std::string(3, quote)
                                         ? text_.substr(pos_, 3)
                                         : text_.substr(pos_, 1);
    pos_ += closing.size();
    const std::size_t start = pos_;
    while (pos_ < text_.size() && text_.substr(pos_, closing.size()) != closing) {
      if (text_[pos_] == '\\' && pos_ + 1 < text_.size()) ++pos_;  // an escaped quote
      ++pos_;
    }
    if (pos_ >= text_.size()) fail("unterminated string");
    const std::string_view body = text_.substr(start, pos_ - start);
    pos_ += closing.size();
    std::string out;
    try {
      out = raw ? std::string(body) : python_unescape(body);
    } catch (const PythonError& e) {
      fail(e.what());
    }
    return make({.kind = PyNode::Kind::string, .value = out});
  }
  PyNodePtr number() {
    const std::size_t start = pos_;
    bool real = false;
    while (pos_ < text_.size() &&
           (std::isdigit(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '.' ||
            text_[pos_] == 'e' || text_[pos_] == 'E' || text_[pos_] == '_' ||
            ((text_[pos_] == '-' || text_[pos_] == '+') &&
             (text_[pos_ - 1] == 'e' || text_[pos_ - 1] == 'E')))) {
      real = real || text_[pos_] == '.' || text_[pos_] == 'e' || text_[pos_] == 'E';
      ++pos_;
    }
    std::string digits;
    for (const char c : text_.substr(start, pos_ - start)) {
      if (c != '_') digits += c;
    }
    try {
      return make(
          {.kind = PyNode::Kind::number,
           .value = real ? nlohmann::json(std::stod(digits)) : nlohmann::json(std::stoll(digits))});
    } catch (const std::exception&) {
      fail("bad number '" + digits + "'");
    }
  }
};

}  // namespace

PyNodePtr parse_python(std::string_view text) { return Parser(text).whole(); }

}  // namespace cutune::kt
