// A recording's measurements as one content hash (cutune/replay.hpp), so that a set of recorded
// spaces can skip a space it already holds under another name or format.
#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <vector>

#include "cutune/replay.hpp"
#include "hash/content_hash.hpp"

namespace cutune {

std::string measurements_fingerprint(const Recording& recording) {
  std::vector<std::string> rows;
  rows.reserve(recording.entries.size());
  for (const RecordedEntry& entry : recording.entries) {
    std::string row;
    for (const Value& v : entry.values) row += v.to_string() + ",";
    row += entry.measurement.ok() ? fmt::format("{}", entry.measurement.time_ms)
                                  : std::string(to_string(entry.measurement.outcome));
    rows.push_back(std::move(row));
  }
  // Sorted: two formats list the same configurations in different orders.
  std::sort(rows.begin(), rows.end());
  hash::ContentHash hash;
  for (const std::string& row : rows) hash.field(row);
  return hash.hex();
}

}  // namespace cutune
