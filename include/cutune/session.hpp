// One tune session: what `cutune tune`, the Python package (cutune.tune and its host kernels) and
// the runtime's tunes share around tune(). A family and a problem, by the one rule for what a user
// types (tune_session: family_source and problem_for, as `cutune space` resolves them, so that
// `--problem m=128` means one problem to both); the family's evaluator and the store key it gives;
// the store; the warm start from the nearest tuned shapes and the transfer priors
// (cutune/warm_start.hpp); the tune; and its report as JSON.
//
//   TuneSession session = tune_session("gemm", "m=128", {.store = Store::default_path()});
//   TuneOptions options;
//   options.effort = Effort::quick;
//   const TuneReport report = session.run(options);
//   std::cout << session.report_json(report).dump(2);
#pragma once

#include <cstddef>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cutune/family.hpp"
#include "cutune/problem.hpp"
#include "cutune/store.hpp"
#include "cutune/tune.hpp"
#include "cutune/warm_start.hpp"

namespace cutune {

struct TuneSessionOptions {
  // The devices measuring at once (Family::make_evaluator's); empty: the family's default.
  std::vector<int> devices;
  // The results store; none: keep no results, and start from nothing the store knows.
  std::optional<std::filesystem::path> store;
  // read_only: the store is read for the warm start and priors, and the tune records nothing.
  OpenMode store_mode = OpenMode::read_write;
  // How many nearest tuned shapes' winners the tune starts from (add_warm_start); 0: none.
  std::size_t warm_start_neighbours = kWarmStartNeighbours;
  // The family's results on other devices and shapes in the store as priors (add_priors).
  bool transfer = true;
};

class TuneSession {
 public:
  // A family and a problem already resolved (the runtime's families, host kernels). A spec family
  // keeps its spec alive through `source.spec`; a family that points into a spec held elsewhere
  // needs it to outlive the session.
  TuneSession(FamilySource source, Problem problem, TuneSessionOptions options = {});

  const Family& family() const { return source_.family; }
  const Problem& problem() const { return problem_; }

  // Makes the family's evaluator, opens the store, adds the warm start and the priors to
  // `options` (after any it holds), and runs tune(). Once per session. Throws
  // std::invalid_argument for a family that cannot be tuned in this build, and what the
  // evaluator, the store and tune() throw.
  TuneReport run(TuneOptions options, const TuneCallbacks& callbacks = {});

  // After run(): the key the tune's results are stored under, the evaluator it measured with
  // (time_reference: the family's reference on the same problem), the open store (nullptr: none),
  // the winners it started from, and whether it looked for priors.
  const TuningKey& key() const;
  FamilyEvaluator& target();
  Store* store() { return store_ ? &*store_ : nullptr; }
  const std::vector<NearestWinner>& warm_start() const { return warm_start_; }
  bool transfer() const { return transfer_; }

  // What `cutune tune --json` and the Python package report of the tune itself (tune_report_json
  // under the session's key, with the store's decision when it has one), whether it looked for
  // transfer priors ("transfer": {"enabled", "priors"}), and what the outputs were compared with
  // ("checked_against": Family::checked_against, null when nothing).
  nlohmann::json report_json(const TuneReport& report) const;

 private:
  FamilySource source_;
  Problem problem_;
  TuneSessionOptions options_;
  std::optional<FamilyEvaluator> target_;
  std::optional<TuningKey> key_;
  std::optional<Store> store_;
  std::vector<NearestWinner> warm_start_;
  bool transfer_ = false;
};

// A session for what a user types: a built-in family's name or a kernel spec file's path, and a
// problem text, by the one rule (family_source, problem_for in cutune/family.hpp): `cutune tune`,
// `cutune space` and the Python package resolve alike. Defined beside that rule in src/families
// (cutune_families). Throws what family_source and problem_for throw.
TuneSession tune_session(const std::string& spec_or_family, std::string_view problem,
                         TuneSessionOptions options = {});

}  // namespace cutune
