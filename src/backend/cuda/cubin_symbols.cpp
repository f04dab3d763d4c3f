#include "cubin_symbols.hpp"

#include <cctype>
#include <set>

namespace cutune::cuda::cubin_symbols {
namespace {

// The NUL-terminated strings of `image` that start with `prefix`, each whole.
std::set<std::string> strings_starting(std::string_view image, std::string_view prefix) {
  std::set<std::string> found;
  for (std::size_t at = image.find(prefix); at != std::string_view::npos;
       at = image.find(prefix, at + 1)) {
    if (at > 0 && image[at - 1] != '\0') continue;  // inside another string
    const std::size_t end = image.find('\0', at);
    if (end != std::string_view::npos) found.emplace(image.substr(at, end - at));
  }
  return found;
}

}  // namespace

bool is_plain_name(std::string_view name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name.front()))) return false;
  for (const char c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return true;
}

std::optional<std::string> entry_symbol(std::string_view image, std::string_view name,
                                        std::string& why) {
  // The string table holds each symbol once; sections named after a kernel (.text.NAME,
  // .nv.info.NAME) do not start at a string's beginning and are skipped.
  if (!strings_starting(image, std::string(name) + std::string(1, '\0')).empty()) {
    return std::string(name);  // extern "C"
  }
  const std::string mangled = "_Z" + std::to_string(name.size()) + std::string(name);
  const std::set<std::string> symbols = strings_starting(image, mangled);
  if (symbols.size() == 1) return *symbols.begin();
  if (symbols.empty()) {
    why = "no kernel '" + std::string(name) + "' in the cubin";
  } else {
    why = "kernel '" + std::string(name) + "' is overloaded (";
    for (const std::string& symbol : symbols)
      why += symbol + (symbol == *symbols.rbegin() ? ")" : ", ");
    why += "): give NVRTC a name expression with its signature";
  }
  return std::nullopt;
}

}  // namespace cutune::cuda::cubin_symbols
