// Which of a kernel's pointer parameters point to const data, read from its declaration in the
// source: without an `answer`, what a kernel may write is what its signature lets it write.
#include <cctype>

#include "kt/script_context.hpp"

namespace cutune::kt {
namespace {

bool identifier_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Where `word` stands in `text` as a whole identifier, from `from` on; npos when nowhere.
std::size_t find_word(const std::string& text, const std::string& word, std::size_t from = 0) {
  for (std::size_t at = text.find(word, from); at != std::string::npos;
       at = text.find(word, at + 1)) {
    const std::size_t after = at + word.size();
    if ((at == 0 || !identifier_char(text[at - 1])) &&
        (after == text.size() || !identifier_char(text[after]))) {
      return at;
    }
  }
  return std::string::npos;
}

// The source with its comments and string literals blanked, so that neither is read as code.
std::string code_of(std::string_view source) {
  std::string out(source);
  for (std::size_t i = 0; i < out.size(); ++i) {
    std::size_t end = i;
    if (out.compare(i, 2, "//") == 0) {
      end = out.find('\n', i);
    } else if (out.compare(i, 2, "/*") == 0) {
      end = out.find("*/", i + 2);
      end = end == std::string::npos ? end : end + 2;
    } else if (out[i] == '"') {
      end = i + 1;
      while (end < out.size() && out[end] != '"') end += out[end] == '\\' ? 2 : 1;
      end = end < out.size() ? end + 1 : std::string::npos;
    } else {
      continue;
    }
    end = std::min(end, out.size());
    for (std::size_t j = i; j < end; ++j) out[j] = out[j] == '\n' ? '\n' : ' ';
    i = end - 1;
  }
  return out;
}

// The parameters between the parenthesis at `open` and its match, split at top-level commas.
std::optional<std::vector<std::string>> parameters_at(const std::string& code, std::size_t open) {
  std::vector<std::string> out{""};
  int depth = 0;
  for (std::size_t i = open + 1; i < code.size(); ++i) {
    const char c = code[i];
    if (c == ')' && depth == 0) {
      if (out.size() == 1 && out[0].find_first_not_of(" \t\n") == std::string::npos) out.clear();
      return out;
    }
    if (c == '(' || c == '<' || c == '[') ++depth;
    if (c == ')' || c == '>' || c == ']') --depth;
    if (c == ',' && depth == 0) {
      out.emplace_back();
    } else {
      out.back() += c;
    }
  }
  return std::nullopt;
}

// A declaration, not a call: between the statement's start and the name stand only the return
// type and qualifiers (`__global__ void`, `extern "C" float`), no `=`, `(` or `return`.
bool declares(const std::string& code, std::size_t name_at) {
  const std::size_t start = code.find_last_of(";{}#", name_at == 0 ? 0 : name_at - 1);
  const std::string before = code.substr(start == std::string::npos ? 0 : start + 1,
                                         name_at - (start == std::string::npos ? 0 : start + 1));
  if (before.find_first_not_of(" \t\n") == std::string::npos) return false;
  return before.find_first_of("=(") == std::string::npos &&
         before.find("return") == std::string::npos;
}

}  // namespace

std::optional<std::vector<bool>> const_pointer_parameters(std::string_view source,
                                                          const std::string& name) {
  const std::string code = code_of(source);
  for (std::size_t at = find_word(code, name); at != std::string::npos;
       at = find_word(code, name, at + 1)) {
    if (!declares(code, at)) continue;
    const std::size_t open = code.find_first_not_of(" \t\n", at + name.size());
    if (open == std::string::npos || code[open] != '(') continue;
    const auto parameters = parameters_at(code, open);
    if (!parameters) return std::nullopt;
    std::vector<bool> out;
    for (const std::string& parameter : *parameters) {
      // `const float*` and `float const*` point to const data; `float* const` does not.
      const std::size_t star = parameter.find('*');
      out.push_back(star != std::string::npos && find_word(parameter, "const") < star);
    }
    return out;
  }
  return std::nullopt;
}

}  // namespace cutune::kt
