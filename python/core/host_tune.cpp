// cutune.helion and cutune.triton's C++ side: a host spec's family whose measure and normalize
// are the package's Python functions (JSON text across the boundary), tuned by the one session.
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "cutune/host.hpp"
#include "cutune/spec.hpp"
#include "cutune/tune.hpp"
#include "cutune_python.hpp"
#include "tune_session.hpp"

namespace cutune::python {
namespace {

Device device_from(const std::string& text) {
  const nlohmann::json j = nlohmann::json::parse(text);
  Device d;
  d.name = j.value("name", std::string("unknown"));
  d.cc_major = j.value("cc_major", 0);
  d.cc_minor = j.value("cc_minor", 0);
  d.sm_count = j.value("sm_count", 0);
  d.smem_per_block = j.value("smem_per_block", std::int64_t{0});
  d.regs_per_sm = j.value("regs_per_sm", 0);
  return d;
}

Measurement measurement_from(const nlohmann::json& j) {
  Measurement m;
  const std::string outcome = j.value("outcome", std::string("ok"));
  const std::optional<Outcome> parsed = outcome_from_string(outcome);
  if (!parsed) throw std::invalid_argument("measure returned an unknown outcome '" + outcome + "'");
  m.outcome = *parsed;
  m.detail = j.value("detail", std::string());
  m.compile_s = j.value("compile_s", 0.0);
  if (m.ok()) {
    m.time_ms = j.at("time_ms").get<double>();
    m.min_ms = j.value("min_ms", m.time_ms);
    m.max_ms = j.value("max_ms", m.time_ms);
    m.repetitions = j.value("repetitions", 1);
  }
  return m;
}

// The spec with the family made over it: the family points into the spec.
struct HostSession {
  KernelSpec spec;
  Family family;
  Problem problem;
};

HostSession open_session(const HostKernel& kernel, HostMeasurer measurer) {
  HostSession s{parse_spec(kernel.spec, kernel.origin), {}, {}};
  measurer.device = device_from(kernel.device);
  measurer.device_name = measurer.device.name;
  measurer.toolchain = kernel.toolchain;
  s.family = host_family(s.spec, std::move(measurer));
  s.problem = s.family.resolved(Problem::parse(kernel.problem));
  return s;
}

}  // namespace

std::string host_tune_json(const HostKernel& kernel, const TuneRequest& request,
                           MeasureText measure, NormalizeText normalize) {
  HostMeasurer measurer;
  measurer.measure = [measure = std::move(measure)](std::span<const Config> batch) {
    nlohmann::json configs = nlohmann::json::array();
    for (const Config& c : batch) configs.push_back(c.to_json());
    const nlohmann::json answers = nlohmann::json::parse(measure(configs.dump()));
    std::vector<Measurement> out;
    for (const nlohmann::json& answer : answers) out.push_back(measurement_from(answer));
    return out;
  };
  if (normalize) {
    measurer.normalize = [normalize =
                              std::move(normalize)](const Config& config) -> std::optional<Config> {
      const nlohmann::json answer = nlohmann::json::parse(normalize(config.to_json().dump()));
      if (answer.is_null()) return std::nullopt;
      return config.space().from_json(answer);  // read back in the config's own space
    };
  }
  HostSession session = open_session(kernel, std::move(measurer));
  // Each of a host kernel's configs is a framework's compile: start from the default's and the
  // seeds' neighbours, not from random draws, and spend no compile on following a gain that is
  // noise (TuneOptions::start_near_seeds; min_move_gain: the gain the patience counts, min_gain).
  TuneRequest host = request;
  host.start_near_seeds = true;
  host.min_move_gain = TuneOptions{}.min_gain;
  return tune_family_json(session.family, session.problem, host);
}

std::string host_decision_json(const HostKernel& kernel, const std::string& db) {
  // Nothing is measured: the session only names the key.
  HostMeasurer nothing;
  nothing.measure = [](std::span<const Config>) { return std::vector<Measurement>{}; };
  HostSession session = open_session(kernel, std::move(nothing));
  const TuningKey key =
      session.family.key(session.problem, session.family.device_key, session.family.toolchain);
  return nlohmann::json{{"key",
                         {{"family", key.family},
                          {"family_version", key.family_version},
                          {"problem", key.problem},
                          {"device", key.device},
                          {"toolchain", key.toolchain}}},
                        {"decision", nlohmann::json::parse(stored_decision_json(key, db))}}
      .dump();
}

}  // namespace cutune::python
