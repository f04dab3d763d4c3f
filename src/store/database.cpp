#include "database.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>

namespace cutune::store {

const Value& Rows::at(int row, int column) const {
  return rows_.at(static_cast<std::size_t>(row)).at(static_cast<std::size_t>(column));
}

bool Rows::is_null(int row, int column) const {
  return std::holds_alternative<std::monostate>(at(row, column));
}

// PostgreSQL hands every cell over as text, SQLite as its stored type: each reader takes both.
std::string Rows::text(int row, int column) const {
  const Value& v = at(row, column);
  if (const auto* s = std::get_if<std::string>(&v)) return *s;
  if (const auto* i = std::get_if<std::int64_t>(&v)) return std::to_string(*i);
  if (const auto* d = std::get_if<double>(&v)) return fmt::format("{}", *d);
  return {};
}

double Rows::real(int row, int column) const {
  const Value& v = at(row, column);
  if (const auto* d = std::get_if<double>(&v)) return *d;
  if (const auto* i = std::get_if<std::int64_t>(&v)) return static_cast<double>(*i);
  if (const auto* s = std::get_if<std::string>(&v)) return std::strtod(s->c_str(), nullptr);
  return NAN;
}

std::int64_t Rows::integer(int row, int column) const {
  const Value& v = at(row, column);
  if (const auto* i = std::get_if<std::int64_t>(&v)) return *i;
  if (const auto* d = std::get_if<double>(&v)) return static_cast<std::int64_t>(*d);
  if (const auto* s = std::get_if<std::string>(&v)) return std::strtoll(s->c_str(), nullptr, 10);
  return 0;
}

}  // namespace cutune::store
