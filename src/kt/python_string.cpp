// Python string literals' escapes (python_expression.hpp): Kernel Tuner descriptions quote
// compiler flags and paths whose backslashes must arrive as Python would read them.
#include <cctype>
#include <string>

#include "python_expression.hpp"

namespace cutune::kt {
namespace {

void append_utf8(std::string& out, unsigned long code) {
  if (code < 0x80) {
    out += static_cast<char>(code);
  } else if (code < 0x800) {
    out += static_cast<char>(0xC0 | (code >> 6));
    out += static_cast<char>(0x80 | (code & 0x3F));
  } else if (code < 0x10000) {
    out += static_cast<char>(0xE0 | (code >> 12));
    out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (code & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (code >> 18));
    out += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (code & 0x3F));
  }
}

// `digits` hexadecimal digits at body[at]; Python refuses fewer.
unsigned long hex_digits(std::string_view body, std::size_t at, std::size_t digits) {
  if (at + digits > body.size()) throw PythonError("truncated \\x or \\u escape in a string");
  unsigned long code = 0;
  for (std::size_t i = at; i < at + digits; ++i) {
    const auto c = static_cast<unsigned char>(body[i]);
    if (!std::isxdigit(c)) throw PythonError("truncated \\x or \\u escape in a string");
    code = code * 16 +
           static_cast<unsigned long>(std::isdigit(c) ? c - '0' : std::tolower(c) - 'a' + 10);
  }
  return code;
}

char simple_escape(char c) {
  switch (c) {
    case 'n':
      return '\n';
    case 't':
      return '\t';
    case 'r':
      return '\r';
    case 'a':
      return '\a';
    case 'b':
      return '\b';
    case 'f':
      return '\f';
    case 'v':
      return '\v';
    case '\\':
    case '\'':
    case '"':
      return c;
    default:
      return 0;
  }
}

}  // namespace

std::string python_unescape(std::string_view body) {
  std::string out;
  for (std::size_t i = 0; i < body.size(); ++i) {
    if (body[i] != '\\' || i + 1 == body.size()) {
      out += body[i];
      continue;
    }
    const char c = body[++i];
    if (const char simple = simple_escape(c); simple != 0) {
      out += simple;
    } else if (c == '\n') {
      // a backslash at a line's end continues the string
    } else if (c == 'x' || c == 'u' || c == 'U') {
      const std::size_t digits = c == 'x' ? 2 : c == 'u' ? 4 : 8;
      append_utf8(out, hex_digits(body, i + 1, digits));
      i += digits;
    } else if (c >= '0' && c <= '7') {
      unsigned long code = 0;
      std::size_t used = 0;
      while (used < 3 && i + used < body.size() && body[i + used] >= '0' && body[i + used] <= '7') {
        code = code * 8 + static_cast<unsigned long>(body[i + used] - '0');
        ++used;
      }
      append_utf8(out, code);
      i += used - 1;
    } else {
      out += '\\';  // Python keeps an unknown escape as it is written
      out += c;
    }
  }
  return out;
}

}  // namespace cutune::kt
