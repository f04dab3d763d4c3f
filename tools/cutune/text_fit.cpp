#include "text_fit.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <numeric>
#include <sstream>

namespace cutune::cli {

std::string fit(std::string_view text, std::size_t width) {
  if (text.size() <= width) return std::string(text);
  if (width <= 3) return std::string(text.substr(0, width));
  return std::string(text.substr(0, width - 3)) + "...";
}

std::vector<std::string> table_lines(const std::vector<std::vector<std::string>>& rows,
                                     std::size_t columns) {
  std::vector<std::string> lines;
  if (rows.empty()) return lines;
  constexpr std::size_t kGap = 2, kNarrowest = 8;
  std::vector<std::size_t> widths(rows.front().size(), 0);
  for (const auto& row : rows) {
    for (std::size_t c = 0; c < row.size(); ++c) widths[c] = std::max(widths[c], row[c].size());
  }
  auto total = [&] {
    return std::accumulate(widths.begin(), widths.end(), std::size_t{0}) +
           kGap * (widths.size() - 1);
  };
  while (total() > columns) {
    const auto widest = std::max_element(widths.begin(), widths.end());
    if (*widest <= kNarrowest) break;
    *widest = std::max(kNarrowest, *widest - std::min(*widest - kNarrowest, total() - columns));
  }
  for (const auto& row : rows) {
    std::string line;
    for (std::size_t c = 0; c + 1 < row.size(); ++c) {
      line += fmt::format("{:<{}}  ", fit(row[c], widths[c]), widths[c]);
    }
    lines.push_back(line + fit(row.back(), widths.back()));
  }
  return lines;
}

std::string wrap(std::string_view text, std::size_t width, std::string_view indent) {
  std::string out;
  std::size_t line = indent.size();  // characters on the output's current line, indent included
  for (std::size_t start = 0; start <= text.size();) {
    const std::size_t end = std::min(text.find_first_of(" \n", start), text.size());
    const std::string_view word = text.substr(start, end - start);
    if (line > indent.size() && line + 1 + word.size() > width) {
      out += '\n';
      out += indent;
      line = indent.size();
    } else if (line > indent.size()) {
      out += ' ';
      ++line;
    }
    out += word;
    line += word.size();
    if (end < text.size() && text[end] == '\n') {
      out += '\n';
      out += indent;
      line = indent.size();
    }
    start = end + 1;
  }
  return out;
}

namespace {

class FittingFormatter : public CLI::Formatter {
 public:
  std::string make_option_desc(const CLI::Option* option) const override {
    return wrap(Formatter::make_option_desc(option), description_width());
  }
  std::string make_subcommand(const CLI::App* sub) const override {
    std::stringstream out;
    CLI::detail::format_help(out, sub->get_display_name(true),
                             wrap(sub->get_description(), description_width()), column_width_);
    return out.str();
  }
  std::string make_description(const CLI::App* app) const override {
    return wrap(Formatter::make_description(app), kOutputColumns);
  }

 private:
  std::size_t description_width() const { return kOutputColumns - column_width_; }
};

}  // namespace

std::shared_ptr<CLI::Formatter> fitting_help_formatter() {
  return std::make_shared<FittingFormatter>();
}

std::string short_toolchain(std::string_view toolchain) {
  const std::string_view compiler = toolchain.substr(0, toolchain.find(';'));
  std::string text;
  int depth = 0;
  for (char c : compiler) {
    depth += c == '(';
    if (depth == 0 && !(c == ' ' && (text.empty() || text.back() == ' '))) text += c;
    depth -= c == ')' && depth > 0;
  }
  while (!text.empty() && text.back() == ' ') text.pop_back();
  return text;
}

}  // namespace cutune::cli
