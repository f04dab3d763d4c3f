// How a tune writes its measurements to the store so that none it measured is lost when the store
// fails in the middle of a batch (its disk full, its file turned read-only, its server gone): the
// first write the store refuses, and every one after it, is kept in memory in order; flush() tries
// them again a few times with growing pauses, and when the store still refuses, throws a
// StoreError that lists every result it could not write, one JSON object per line (config,
// outcome, time, detail), so that the tune fails loudly with nothing it measured dropped.
// Not thread-safe (one per tune, as the tune's Store).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cutune/store.hpp"

namespace cutune::tuning {

class ResultWriter {
 public:
  explicit ResultWriter(Store* store) : store_(store) {}

  // The row id of the committed result; none when it was kept for flush() (the store refused it,
  // or refused an earlier one still kept) or when there is no store.
  std::optional<std::int64_t> write_or_keep(const StoredResult& result);

  // A result whose row id is needed now (a decision names it): written, after whatever is kept.
  // Returns 0 without a store. Throws StoreError as flush() does.
  std::int64_t write(const StoredResult& result);

  // Writes everything kept, oldest first, trying again after 0.5, 1 and 2 s. Returns the row id of
  // the last result written (0 when none was kept). Throws StoreError, with the store's error and
  // every result still unwritten, when the store refuses them throughout.
  std::int64_t flush();

  std::size_t kept() const { return kept_.size(); }

 private:
  Store* store_;
  std::vector<StoredResult> kept_;
  std::string error_;  // the store's latest refusal
};

}  // namespace cutune::tuning
