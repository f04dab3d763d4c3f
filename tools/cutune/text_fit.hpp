// Output that fits a terminal: every command's text stays within 120 columns by default, cutting
// the cells that carry the least (a config's tail) rather than wrapping rows.
#pragma once

#include <CLI/CLI.hpp>
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace cutune::cli {

inline constexpr std::size_t kOutputColumns = 120;

// `text` cut to `width` characters, its end replaced by "..." when cut.
std::string fit(std::string_view text, std::size_t width);

// Rows (the first is the header) as lines of columns as wide as their widest cell, two spaces
// apart, the last unpadded; while a row would pass `columns`, the widest column is narrowed (to no
// less than 8) and its cells cut with fit().
std::vector<std::string> table_lines(const std::vector<std::vector<std::string>>& rows,
                                     std::size_t columns = kOutputColumns);

// `text` with its spaces turned into line breaks where a line would pass `width` (a word longer
// than that keeps its own line); existing line breaks stay. Every line after a break starts with
// `indent` (counted in the width); the caller indents the first line alike.
std::string wrap(std::string_view text, std::size_t width, std::string_view indent = {});

// CLI11's help, with every description wrapped so that no line passes kOutputColumns. Set on the
// app before its subcommands are added: they copy it.
std::shared_ptr<CLI::Formatter> fitting_help_formatter();

// The compiler part of a key's toolchain ("c++ (Debian 12.2.0-14) 12.2.0; -O3 ..." reads
// "c++ 12.2.0"): the text before its first ';', without parenthesized parts.
std::string short_toolchain(std::string_view toolchain);

}  // namespace cutune::cli
