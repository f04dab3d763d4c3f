// `cutune space SPEC|NAME`: how much of a spec file's or a built-in space random search reaches
// for one problem.
#include <fmt/core.h>

#include <nlohmann/json.hpp>

#include "command.hpp"
#include "cutune/diversity.hpp"
#include "cutune/family.hpp"
#include "cutune/session.hpp"

namespace cutune::cli {
namespace {

struct SpaceOptions {
  std::string name;
  std::string problem;
  std::size_t draws = 300;
  std::uint64_t seed = 0;
  bool json = false;
};

std::string join(const std::vector<std::string>& items) {
  std::string text;
  for (const std::string& item : items) text += (text.empty() ? "" : ", ") + item;
  return text.empty() ? "none" : text;
}

std::string view_size(const Space& space, View view) {
  const auto size = space.size(view);
  return size ? std::to_string(*size) : "over 2^64";
}

void run_space(const SpaceOptions& options) {
  // The family and problem `cutune tune` and the Python package would tune (cutune/session.hpp):
  // a session that never runs measures nothing and opens no store.
  const TuneSession session = tune_session(options.name, options.problem);
  const Family& family = session.family();
  const TuningSpace& ts = *family.tuning;
  const Problem& problem = session.problem();
  const DiversityReport report =
      measure_diversity(ts, problem, family.device, options.draws, options.seed);
  // A GPU's figures come from its description (Family::device: a CUDA spec's and the GEMM's before
  // any worker reports one), not from a device on this machine.
  const bool described = family.device.cc_major > 0;
  if (options.json) {
    nlohmann::json j = report.to_json();
    j["space"] = family.name;
    j["problem"] = problem.canonical();
    j["device"] = family.device.canonical();
    j["device_is_description"] = described;
    j["seed"] = options.seed;
    // The family's short names of those configs, as its benchmarks take them
    // (scripts/gpu/gemm-ab.sh builds the seeds' and the default's kernels by them).
    if (family.config_name) {
      if (report.default_error.empty()) {
        j["default_config_name"] = family.config_name(ts.space.from_json(j["default_config"]));
      }
      j["seed_config_names"] = nlohmann::json::array();
      for (const nlohmann::json& config : j["seed_configs"]) {
        j["seed_config_names"].push_back(family.config_name(ts.space.from_json(config)));
      }
    }
    fmt::print("{}\n", j.dump(2));
    return;
  }

  const Space& space = ts.space;
  fmt::print("space {}: {}\n", family.name, family.summary);
  fmt::print("problem {} on {}{}\n", problem.canonical(), family.device.canonical(),
             described ? " (the device's description: no GPU is consulted)" : "");
  for (const std::string& error : report.problem_errors) {
    fmt::print("problem not supported: {}\n", error);
  }
  fmt::print("search view {} configs, full view {}\n", view_size(space, View::search),
             view_size(space, View::full));
  fmt::print("population of {} (seed {}): {} distinct configs after normalization\n",
             report.population, options.seed, report.distinct);
  fmt::print("  {} draws: {} distinct among the first {}, {} redrawn as duplicates, {} dropped\n",
             report.draws, report.first_distinct, report.population, report.duplicates,
             report.dropped);
  for (const std::string& reason : report.drop_reasons) fmt::print("  dropped: {}\n", reason);
  fmt::print("knobs varying: {} of {} searchable ({} knobs in all): {}\n",
             report.varying_knobs.size(), report.searchable_knobs.size(), space.knob_count(),
             join(report.varying_knobs));
  fmt::print("constraints (share of draws repaired):\n");
  for (std::size_t i = 0; i < report.constraint_names.size(); ++i) {
    fmt::print("  {:<32} {:6.1f}%  ({}){}\n", report.constraint_names[i],
               100.0 * report.constraint_rate(i), report.constraint_trips[i],
               space.constraints()[i].is_gate ? "  gate" : "");
  }
  if (!report.preference_names.empty()) {
    fmt::print(
        "preferences (share of the distinct configs they hold for; a first round keeps to "
        "them):\n");
    for (std::size_t i = 0; i < report.preference_names.size(); ++i) {
      fmt::print("  {:<32} {:6.1f}%  ({})\n", report.preference_names[i],
                 100.0 * report.preference_share(i), report.preference_holds[i]);
    }
  }
  fmt::print("eligible seeds: {}\n", join(report.eligible_seeds));
  for (const std::string& error : report.seed_errors) fmt::print("  unusable: {}\n", error);
  if (report.default_error.empty()) {
    fmt::print("default config: {}\n", report.default_config);
  } else {
    fmt::print("default config: none ({})\n", report.default_error);
  }
}

}  // namespace

void add_space_command(CLI::App& app) {
  auto options = std::make_shared<SpaceOptions>();
  CLI::App* sub = app.add_subcommand(
      "space", "Draw from a space and report how many distinct configs survive repair");
  sub->add_option("space", options->name,
                  "A kernel spec file (JSON), or a built-in space: " + join(family_names()))
      ->required();
  sub->add_option("--problem", options->problem, "Problem arguments, e.g. m=2048,n=4096,k=4096");
  sub->add_option("--draws", options->draws, "Population size to draw")->check(CLI::PositiveNumber);
  sub->add_option("--seed", options->seed, "Random seed");
  sub->add_flag("--json", options->json, "Print the report as JSON");
  sub->callback([options] { run_space(*options); });
}

}  // namespace cutune::cli
