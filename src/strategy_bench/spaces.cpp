// The spaces a strategy benchmark replays: the recordings its inputs name, each distinct
// recording once, with what random search is expected to reach on it and, for --transfer, the
// other spaces with the same knobs as its priors.
#include <fmt/core.h>

#include <algorithm>
#include <stdexcept>

#include "bench_data.hpp"
#include "cutune/strategy_metrics.hpp"

namespace cutune::strategy_bench {
namespace {

namespace fs = std::filesystem;

bool is_recording(const fs::path& p) {
  const std::string name = p.filename().string();
  return name.ends_with(".json") || name.ends_with(".json.gz");
}

std::string label_of(const fs::path& file) {
  std::string stem = file.filename().string();
  for (const char* suffix : {".gz", ".json"}) {
    if (stem.ends_with(suffix)) stem.resize(stem.size() - std::string_view(suffix).size());
  }
  const std::string folder = file.parent_path().filename().string();
  return folder.empty() ? stem : folder + "/" + stem;
}

bool same_knobs(const Recording& a, const Recording& b) {
  if (a.knobs.size() != b.knobs.size()) return false;
  for (std::size_t k = 0; k < a.knobs.size(); ++k) {
    if (a.knobs[k].name != b.knobs[k].name || a.knobs[k].values != b.knobs[k].values) return false;
  }
  return true;
}

}  // namespace

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

std::vector<fs::path> collect_files(const std::vector<std::string>& inputs) {
  std::vector<fs::path> files;
  for (const std::string& input : inputs) {
    const fs::path path(input);
    if (fs::is_directory(path)) {
      std::vector<fs::path> found;
      for (const auto& entry : fs::recursive_directory_iterator(path)) {
        if (entry.is_regular_file() && is_recording(entry.path())) found.push_back(entry.path());
      }
      std::sort(found.begin(), found.end());
      files.insert(files.end(), found.begin(), found.end());
    } else if (fs::is_regular_file(path)) {
      files.push_back(path);
    } else {
      throw std::invalid_argument(
          fmt::format("bench-strategies: {} is neither a recorded space "
                      "nor a folder of them",
                      input));
    }
  }
  if (files.empty()) {
    throw std::invalid_argument("bench-strategies: no recorded spaces (*.json, *.json.gz) found");
  }
  return files;
}

std::vector<BenchSpace> load_spaces(const std::vector<fs::path>& files, std::size_t budget,
                                    const Note& note) {
  std::vector<BenchSpace> spaces;
  std::map<std::string, std::string> seen;
  for (const fs::path& file : files) {
    auto recorded = load_recorded_space(file);
    const std::string label = label_of(file);
    const auto [it, fresh] = seen.emplace(measurements_fingerprint(recorded->recording()), label);
    if (!fresh) {
      note(fmt::format("skipping {}: the same recording as {}", label, it->second));
      continue;
    }
    BenchSpace space;
    space.recorded = recorded;
    space.label = label;
    for (const auto& entry : recorded->recording().entries) {
      if (entry.measurement.ok()) {
        space.ok_times.push_back(entry.measurement.time_ms);
      } else {
        ++space.failed;
      }
    }
    if (space.ok_times.empty()) {
      note(fmt::format("skipping {}: no configuration succeeded", label));
      continue;
    }
    space.random_curve = random_search_curve(space.ok_times, space.failed, budget);
    std::vector<double> compiles, benches;
    for (const auto& entry : recorded->recording().entries) {
      if (!std::isnan(entry.compile_s)) compiles.push_back(entry.compile_s);
      if (!std::isnan(entry.benchmark_s)) benches.push_back(entry.benchmark_s);
    }
    if (!compiles.empty()) space.fallback_compile_s = median(compiles);
    if (!benches.empty()) space.fallback_bench_s = median(benches);
    spaces.push_back(std::move(space));
  }
  return spaces;
}

// Leave-one-device-out priors: for each space, every other space with the same knobs, all of its
// recorded results as configs of this space.
void add_priors(std::vector<BenchSpace>& spaces, const Note& note) {
  for (BenchSpace& target : spaces) {
    for (const BenchSpace& source : spaces) {
      if (&source == &target ||
          !same_knobs(source.recorded->recording(), target.recorded->recording())) {
        continue;
      }
      PriorSource prior{.name = source.label};
      for (const auto& entry : source.recorded->recording().entries) {
        prior.configs.push_back(target.recorded->config_of(entry));
        prior.results.push_back(entry.measurement);
      }
      target.priors.push_back(std::move(prior));
    }
    note(fmt::format("{}: priors from {} other spaces", target.label, target.priors.size()));
  }
}

}  // namespace cutune::strategy_bench
