#include "json_locations.hpp"

#include <iterator>
#include <nlohmann/json.hpp>
#include <vector>

namespace cutune::spec {
namespace {

// A character iterator that publishes how far the parser has read.
struct TrackingIterator {
  using iterator_category = std::forward_iterator_tag;
  using value_type = char;
  using difference_type = std::ptrdiff_t;
  using pointer = const char*;
  using reference = const char&;

  const char* at;
  const char** furthest;

  reference operator*() const { return *at; }
  TrackingIterator& operator++() {
    ++at;
    if (at > *furthest) *furthest = at;
    return *this;
  }
  TrackingIterator operator++(int) {
    auto copy = *this;
    ++*this;
    return copy;
  }
  bool operator==(const TrackingIterator& other) const { return at == other.at; }
};

// Records offsets while the parser walks the document. The parser reports a value right after
// reading its last character (a number also reads the character that ends it), so the last read
// character lies on the value's line.
class Recorder : public nlohmann::json_sax<nlohmann::json> {
 public:
  Recorder(const char* begin, const char** furthest,
           std::unordered_map<std::string, std::size_t>& offsets)
      : begin_(begin), furthest_(furthest), offsets_(offsets) {}

  bool null() override { return scalar(); }
  bool boolean(bool) override { return scalar(); }
  bool number_integer(number_integer_t) override { return scalar(); }
  bool number_unsigned(number_unsigned_t) override { return scalar(); }
  bool number_float(number_float_t, const string_t&) override { return scalar(); }
  bool string(string_t& text) override {
    next_pointer(start_of_string(text));
    return true;
  }
  bool binary(binary_t&) override { return scalar(); }
  bool start_object(std::size_t) override { return open(false); }
  bool start_array(std::size_t) override { return open(true); }
  bool end_object() override { return close(); }
  bool end_array() override { return close(); }
  bool key(string_t& name) override {
    auto& frame = frames_.back();
    frame.member = child_pointer(frame.pointer, name);
    offsets_.emplace(frame.member, start_of_string(name));
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
    return false;
  }

 private:
  struct Frame {
    std::string pointer;
    bool array = false;
    std::size_t index = 0;
    std::string member;
  };

  std::size_t here() const { return static_cast<std::size_t>(*furthest_ - begin_) - 1; }
  // The opening quote of a string just read (exact unless it holds escapes).
  std::size_t start_of_string(const std::string& text) const {
    return here() >= text.size() + 1 ? here() - text.size() - 1 : 0;
  }

  // The pointer of the value that starts now, recorded when it is an array element.
  std::string next_pointer(std::size_t offset) {
    if (frames_.empty()) return "";
    auto& frame = frames_.back();
    if (!frame.array) return frame.member;
    auto pointer = child_pointer(frame.pointer, std::to_string(frame.index++));
    offsets_.emplace(pointer, offset);
    return pointer;
  }
  bool scalar() {
    next_pointer(here());
    return true;
  }
  bool open(bool array) {
    auto pointer = next_pointer(here());
    offsets_.emplace(pointer, here());
    frames_.push_back({std::move(pointer), array, 0, {}});
    return true;
  }
  bool close() {
    frames_.pop_back();
    return true;
  }

  const char* begin_;
  const char** furthest_;
  std::unordered_map<std::string, std::size_t>& offsets_;
  std::vector<Frame> frames_;
};

}  // namespace

TextPosition position_of(std::string_view text, std::size_t offset) {
  TextPosition position;
  offset = std::min(offset, text.size());
  for (std::size_t i = 0; i < offset; ++i) {
    if (text[i] == '\n') {
      ++position.line;
      position.column = 1;
    } else {
      ++position.column;
    }
  }
  return position;
}

std::string child_pointer(const std::string& parent, std::string_view token) {
  std::string pointer = parent + "/";
  for (char c : token) {
    if (c == '~') {
      pointer += "~0";
    } else if (c == '/') {
      pointer += "~1";
    } else {
      pointer += c;
    }
  }
  return pointer;
}

JsonLocations::JsonLocations(std::string_view text) : text_(text) {
  const char* furthest = text.data();
  Recorder recorder(text.data(), &furthest, offsets_);
  TrackingIterator first{text.data(), &furthest};
  TrackingIterator last{text.data() + text.size(), &furthest};
  nlohmann::json::sax_parse(first, last, &recorder);
}

TextPosition JsonLocations::find(std::string pointer) const {
  for (;;) {
    if (auto found = offsets_.find(pointer); found != offsets_.end()) {
      return position_of(text_, found->second);
    }
    if (pointer.empty()) return {};
    pointer.erase(pointer.rfind('/'));
  }
}

}  // namespace cutune::spec
