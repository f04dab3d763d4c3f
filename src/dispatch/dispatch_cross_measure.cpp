// cross_measure(): every candidate of a dispatch fit, as repaired for each tuned shape, measured on
// that shape, so that the fit scores what the runtime would load.
#include <fmt/format.h>

#include <set>

#include "dispatch/dispatch_gather.hpp"
#include "space/repair.hpp"

namespace cutune {

std::size_t cross_measure(
    Store& store, const DispatchOptions& options, const Space& space, const Device& device,
    const std::function<std::unique_ptr<Evaluator>(const Problem&)>& make_evaluator) {
  DispatchOptions repairing = options;
  repairing.repair_space = &space;
  repairing.repair_device = device;
  const dispatch::Gathered g = dispatch::gather(store, repairing);
  const DispatchFitter& fitter = g.fitter;
  std::size_t measured = 0;
  for (std::size_t s = 0; s < fitter.shapes.size(); ++s) {
    const Problem& problem = fitter.shapes[s].problem;
    const TuningKey& key = g.shape_keys[s];
    auto record = [&](const std::string& hash, std::string json, Measurement m) {
      store.record({key, hash, std::move(json), std::move(m), std::string(dispatch::kCrossMeasure),
                    unix_seconds_now()});
      ++measured;
    };
    std::vector<Config> batch;
    std::set<std::string> queued;
    for (std::size_t c = 0; c < fitter.hashes.size(); ++c) {
      if (!options.remeasure && fitter.cells[s][c].state != dispatch::Cell::State::unknown) {
        continue;
      }
      Repaired r = repaired(space, fitter.configs[c], problem, device);
      if (!r.config) {
        record(fitter.hashes[c], fitter.configs[c].dump(),
               {.outcome = Outcome::invalid_config, .detail = "for this shape: " + r.why});
      } else if (queued.insert(r.config->hash_hex()).second) {
        batch.push_back(std::move(*r.config));
      }
    }
    if (batch.empty()) continue;
    const std::vector<Measurement> results = make_evaluator(problem)->evaluate(batch);
    for (std::size_t i = 0; i < batch.size(); ++i) {
      record(batch[i].hash_hex(), batch[i].to_string(),
             i < results.size() ? results[i]
                                : Measurement{.outcome = Outcome::crash,
                                              .detail = "the evaluator returned no result"});
    }
  }
  return measured;
}

}  // namespace cutune
