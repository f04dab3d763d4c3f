#include <fmt/core.h>

#include <algorithm>
#include <limits>
#include <stdexcept>

#include "cutune/replay.hpp"
#include "cutune/space.hpp"

namespace cutune {

RecordedSpace::RecordedSpace(Recording recording) : recording_(std::move(recording)) {
  Space& space = tuning_space_.space;
  for (const RecordedKnob& knob : recording_.knobs) {
    try {
      space.add(knob.name, enum_fragment(knob.values));
    } catch (const std::invalid_argument& e) {
      throw RecordingError(
          fmt::format("{}: knob {}: {}", recording_.source.string(), knob.name, e.what()));
    }
  }
  // Kernel Tuner launches its kernels with block_size_x as the thread block's x side.
  if (const std::optional<std::size_t> block_x = space.find("block_size_x")) {
    space.prefer(whole_warps("block_size_x is a whole number of warps",
                             [knob = *block_x](const Config& c, const Problem&, const Device&) {
                               return c.at(knob).as_double();
                             }));
  }
  for (std::size_t i = 0; i < recording_.entries.size(); ++i) {
    const Config config = config_of(recording_.entries[i]);
    if (find(config) == nullptr) index_.emplace(config.hash(), i);  // a repeat keeps the first
  }
  space.constrain(Constraint{.name = "recorded",
                             .holds = [this](const Config& c, const Problem&,
                                             const Device&) { return find(c) != nullptr; },
                             .repair = nullptr,
                             .is_gate = false});
}

std::string RecordedSpace::name() const {
  return fmt::format("{}@{}", recording_.kernel_name.empty() ? "kernel" : recording_.kernel_name,
                     recording_.device_name.empty() ? recording_.source.filename().string()
                                                    : recording_.device_name);
}

Config RecordedSpace::config_of(const RecordedEntry& entry) const {
  return Config(tuning_space_.space, entry.values);
}

const RecordedEntry* RecordedSpace::find(const Config& config) const {
  const auto [first, last] = index_.equal_range(config.hash());
  for (auto it = first; it != last; ++it) {
    const RecordedEntry& entry = recording_.entries[it->second];
    if (std::equal(entry.values.begin(), entry.values.end(), config.values().begin(),
                   config.values().end())) {
      return &entry;
    }
  }
  return nullptr;
}

std::size_t RecordedSpace::ok_count() const {
  std::size_t n = 0;
  for (const auto& [hash, i] : index_) n += recording_.entries[i].measurement.ok() ? 1 : 0;
  return n;
}

double RecordedSpace::optimum_ms() const {
  double best = std::numeric_limits<double>::infinity();
  for (const auto& [hash, i] : index_) {
    const Measurement& m = recording_.entries[i].measurement;
    if (m.ok()) best = std::min(best, m.time_ms);
  }
  if (best == std::numeric_limits<double>::infinity()) {
    throw std::logic_error(
        fmt::format("{}: no configuration succeeded", recording_.source.string()));
  }
  return best;
}

std::shared_ptr<const RecordedSpace> load_recorded_space(const std::filesystem::path& path) {
  return std::make_shared<const RecordedSpace>(read_recording(path));
}

ReplayEvaluator::ReplayEvaluator(std::shared_ptr<const RecordedSpace> space)
    : space_(std::move(space)) {
  if (space_ == nullptr) throw std::invalid_argument("ReplayEvaluator: no recorded space");
}

std::vector<Measurement> ReplayEvaluator::evaluate(std::span<const Config> batch) {
  std::vector<Measurement> results;
  results.reserve(batch.size());
  for (const Config& config : batch) {
    const RecordedEntry* entry =
        &config.space() == &space_->space() ? space_->find(config) : nullptr;
    if (entry != nullptr) {
      results.push_back(entry->measurement);
    } else {
      Measurement m;
      m.outcome = Outcome::invalid_config;
      m.detail = fmt::format("{} is not in the recording {}", config.to_string(),
                             space_->recording().source.filename().string());
      results.push_back(std::move(m));
    }
  }
  return results;
}

std::string ReplayEvaluator::device_name() const {
  return space_->recording().device_name.empty() ? "unknown (recorded)"
                                                 : space_->recording().device_name;
}

std::string ReplayEvaluator::toolchain() const {
  return "replay of " + space_->recording().source.filename().string();
}

}  // namespace cutune
