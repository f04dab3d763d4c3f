// What `cutune tune` prints and adds to its JSON report around the tune itself: the warm start,
// the comparison with the family's reference, and the ranked report with the tournament.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "cutune/tune.hpp"
#include "cutune/warm_start.hpp"

namespace cutune::cli {

// The configs a tune starts from: the winners of the nearest other shapes tuned in the store.
struct WarmStart {
  std::vector<NearestWinner> winners;
  std::size_t evaluated = 0;  // of those, how many the tune measured or found in the store
  bool enabled = true;
};

// How many of the warm-start configs the tune evaluated.
std::size_t count_evaluated(const TuneReport& report, const std::vector<NearestWinner>& winners);
nlohmann::json warm_start_json(const WarmStart& warm);
void print_warm_start(const WarmStart& warm);
// Which priors the tune used (other devices' and shapes' results) and the weight each ended with.
void print_transfer(bool enabled, const TuneReport& report);

// What the report adds for a built-in family: rates and the vendor library on the same problem.
struct Comparison {
  double flop_count = 0;
  std::string reference_name;
  std::optional<Measurement> reference;
  std::size_t encoder_errors = 0;  // evaluated configs the surrogate's encoding rejected
};

// Evaluated configs the surrogate's encoding rejects.
std::size_t count_encoder_errors(const TuneReport& report, const Space& space);
nlohmann::json comparison_json(const TuneReport& report, const Comparison& c);
void print_comparison(const TuneReport& report, const Comparison& c);

// The winner first, then the `show` fastest others, the outcomes with what the outputs were
// checked against (Family::checked_against), the tournament and the winner.
void print_report(const TuneReport& report, const TuningKey& key, std::size_t show,
                  const std::string& checked_against);

}  // namespace cutune::cli
