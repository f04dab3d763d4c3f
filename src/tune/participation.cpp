#include "participation.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <nlohmann/json.hpp>

#include "cutune/space.hpp"

namespace cutune::participation {

namespace {

// Not a config hash (those are hex digits): the claim on running the final tournament.
constexpr std::string_view kTournament = "tournament";

}  // namespace

Participant::Participant(Store& store, const TuningKey& key, std::string owner, std::size_t budget)
    : store_(store), key_(key), owner_(std::move(owner)), budget_(budget) {
  index_ = store_.join(key_, owner_);
  if (auto d = store_.decision(key_)) joined_decision_ = d->winner_measurement;
}

Participant::~Participant() {
  try {
    store_.leave(owner_);
  } catch (const StoreError&) {
    // The connection is gone, and with it the lock: the claims are the others' already.
  }
}

std::uint64_t Participant::seed(std::uint64_t base) const {
  return base + static_cast<std::uint64_t>(index_) * 0x9E37'79B9'7F4A'7C15ULL;
}

Turn Participant::take(const Config& config) {
  switch (store_.claim(key_, config.hash_hex(), config.to_string(), owner_, budget_)) {
    case ClaimResult::taken_over:
      ++takeovers_;
      return Turn::ours;
    case ClaimResult::granted:
      return Turn::ours;
    case ClaimResult::measured:
      return Turn::stored;
    case ClaimResult::held:
      return Turn::wait;
    case ClaimResult::budget_full:
      break;
  }
  return Turn::full;
}

std::vector<Config> Participant::orphans(const Space& space, std::vector<std::string>& dropped) {
  std::vector<Config> out;
  for (const std::string& json : store_.orphans(key_)) {
    if (rejected_.contains(json)) continue;
    try {
      out.push_back(space.from_json(nlohmann::json::parse(json)));
    } catch (const std::exception& error) {
      // Another participant's config under the same key fits the same space; one that does not
      // is named once rather than retried every round.
      rejected_.insert(json);
      dropped.push_back(
          fmt::format("claimed config {} is not a config of this space: {}", json, error.what()));
    }
  }
  return out;
}

std::optional<Decision> Participant::decision_to_adopt() {
  auto d = store_.decision(key_);
  if (!d) return std::nullopt;
  if (d->winner_measurement != joined_decision_ || store_.measured_since_decision(key_) == 0) {
    return d;
  }
  return std::nullopt;
}

bool Participant::take_tournament() {
  if (!store_.claims_of_others(key_, owner_).empty()) return false;
  const ClaimResult result = store_.claim(key_, kTournament, "", owner_, 0);
  return result == ClaimResult::granted || result == ClaimResult::taken_over;
}

std::string Participant::others_in_flight() {
  const std::vector<Claim> claims = store_.claims_of_others(key_, owner_);
  if (claims.empty()) return {};
  std::vector<std::string> owners;  // claims come sorted by owner
  std::size_t candidates = 0;
  bool tournament = false;
  for (std::size_t i = 0; i < claims.size();) {
    std::size_t n = 0;
    for (; i + n < claims.size() && claims[i + n].owner == claims[i].owner; ++n) {
      if (claims[i + n].config_hash == kTournament) tournament = true;
    }
    owners.push_back(fmt::format("{} ({})", claims[i].owner, n));
    candidates += n;
    i += n;
  }
  return fmt::format("{} {}{} of {}", candidates, candidates == 1 ? "claim" : "claims",
                     tournament ? " (a tournament among them)" : "", fmt::join(owners, ", "));
}

void Participant::end_tournament() { store_.release(key_, kTournament, owner_); }

}  // namespace cutune::participation
