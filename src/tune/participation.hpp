// One tune's part in a tune shared through a PostgreSQL store (docs/scale-out.md): it joins the
// key, claims each candidate before measuring it, hands back what another participant measured or
// is measuring, finds candidates whose participant died holding them, and runs the final
// tournament only when no other participant has it or anything in flight. Its claims live as long
// as it does: the store binds them to its connection, and the destructor gives them back.
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
  wait,    // another participant, alive, is measuring it
  full,    // the tune's budget of distinct configs is spent (measured or claimed)
};

class Participant {
 public:
  // Joins the key as owner (unique per tune run). Throws StoreError.
  Participant(Store& store, const TuningKey& key, std::string owner, std::size_t budget);
  Participant(const Participant&) = delete;
  Participant& operator=(const Participant&) = delete;
  ~Participant();  // leaves: what it still holds goes to the others at once

  std::size_t index() const { return index_; }  // 0 for the first to join the key
  // The first participant searches from the tune's seed, so that one participant on PostgreSQL
  // proposes what it would on SQLite; later ones from seeds of their own, so that they spread.
  std::uint64_t seed(std::uint64_t base) const;

  Turn take(const Config& config);
  std::size_t takeovers() const { return takeovers_; }  // claims taken over from the dead

  // Configs whose claim expired unmeasured, read in `space`; reasons for those that do not fit
  // it go to `dropped`, once each.
  std::vector<Config> orphans(const Space& space, std::vector<std::string>& dropped);

  // The key's decision when this participant should adopt it: recorded since it joined (by
  // whichever ran the tournament), or current (no other tune measured anything under the key
  // after it: a participant that came after the decision, with nothing left to measure).
  std::optional<Decision> decision_to_adopt();
  // True when the tournament is now this participant's: no other holds a live claim on the key
  // and the tournament's own claim was granted. end_tournament() gives it back.
  bool take_tournament();
  void end_tournament();
  // What the others still hold on the key, for a participant that waits on it: empty when
  // nothing; else e.g. "3 candidates of p1@host:12 (2), p2@host:40 (1)".
  std::string others_in_flight();

 private:
  Store& store_;
  const TuningKey& key_;
  const std::string owner_;
  const std::size_t budget_;
  std::size_t index_ = 0;
  std::int64_t joined_decision_ = 0;  // winner row of the key's decision when it joined; 0: none
  std::size_t takeovers_ = 0;
  std::unordered_set<std::string> rejected_;
};

}  // namespace cutune::participation
