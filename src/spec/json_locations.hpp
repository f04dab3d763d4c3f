// Where each value of a JSON document sits in its text, so that a spec's schema errors can say
// "file:line:col". nlohmann's DOM keeps no positions; a SAX pass over the same text records the
// byte offset of every object member (at its key) and array element, by JSON pointer.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <unordered_map>

namespace cutune::spec {

struct TextPosition {
  int line = 1;
  int column = 1;
};

// Line and column (both from 1) of a byte offset in text.
TextPosition position_of(std::string_view text, std::size_t offset);

class JsonLocations {
 public:
  // text must be valid JSON (parse it first: the parser's own errors carry a byte position).
  explicit JsonLocations(std::string_view text);

  // The position of the value at `pointer` ("/knobs/2/kind"), or of its nearest recorded
  // ancestor (a missing member is reported where its object starts).
  TextPosition find(std::string pointer) const;

 private:
  std::string_view text_;
  std::unordered_map<std::string, std::size_t> offsets_;
};

// Appends one reference token to a JSON pointer, escaping '~' and '/'.
std::string child_pointer(const std::string& parent, std::string_view token);

}  // namespace cutune::spec
