// One tune's part in a tune shared through a PostgreSQL store (docs/scale-out.md): it joins the
// key, claims each candidate before measuring it, hands back what another participant measured or
// is measuring, finds candidates whose claim expired with a participant that died, and runs the
// final tournament only when no other participant has it or anything in flight.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "cutune/config.hpp"
#include "cutune/store.hpp"

namespace cutune::participation {

enum class Turn {
  ours,    // claimed: measure it
  stored,  // another participant measured it: read it from the store
  wait,    // another participant is measuring it under a live lease
  full,    // the tune's budget of distinct configs is spent (measured or claimed)
};

class Participant {
 public:
  // Joins the key as owner (unique per tune run). Throws StoreError.
  Participant(Store& store, const TuningKey& key, std::string owner, double lease_seconds,
              std::size_t budget);

  std::size_t index() const { return index_; }  // 0 for the first to join the key
  // The first participant searches from the tune's seed, so that one participant on PostgreSQL
  // proposes what it would on SQLite; later ones from seeds of their own, so that they spread.
  std::uint64_t seed(std::uint64_t base) const;

  Turn take(const Config& config);
  std::size_t takeovers() const { return takeovers_; }  // claims taken over after their lease

  // Configs whose claim expired unmeasured, read in `space`; reasons for those that do not fit
  // it go to `dropped`, once each.
  std::vector<Config> orphans(const Space& space, std::vector<std::string>& dropped);

  // A decision recorded since this participant joined (by whichever ran the tournament).
  std::optional<Decision> new_decision();
  // True when the tournament is now this participant's: no other holds a live claim on the key
  // and the tournament's own claim was granted. end_tournament() gives it back.
  bool take_tournament();
  void end_tournament();

 private:
  Store& store_;
  const TuningKey& key_;
  const std::string owner_;
  const double lease_seconds_;
  const std::size_t budget_;
  std::size_t index_ = 0;
  std::int64_t joined_decision_ = 0;  // winner row of the key's decision when it joined; 0: none
  std::size_t takeovers_ = 0;
  std::unordered_set<std::string> rejected_;
};

}  // namespace cutune::participation
