// The package's tunes, for cutune.tune (families by name or spec path) and the host families of
// cutune.helion and cutune.triton: a request's options over the one TuneSession (cutune/session.hpp,
// shared with `cutune tune` and the runtime), and the store's decision.
#pragma once

#include <filesystem>
#include <string>

#include "cutune/family.hpp"
#include "cutune/problem.hpp"
#include "cutune/store.hpp"
#include "cutune_python.hpp"

namespace cutune::python {

// The store at `db`, or the default store when it is empty.
std::filesystem::path store_path(const std::string& db);

// tune_json's answer for a family and a resolved problem.
std::string tune_family_json(const Family& family, const Problem& problem,
                             const TuneRequest& request);

// The store's decision for `key` as tune_json's "decision", or "null" when it has none.
std::string stored_decision_json(const TuningKey& key, const std::string& db);

}  // namespace cutune::python
