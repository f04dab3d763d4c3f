// The family of a host spec: the spec's space with the framework's normalize as its last
// constraint, and an evaluator that hands each batch to the host's measure function.
#include <fmt/format.h>

#include <memory>
#include <stdexcept>

#include "cutune/host.hpp"
#include "spec/spec_family.hpp"

namespace cutune {
namespace {

class HostEvaluator final : public Evaluator {
 public:
  explicit HostEvaluator(std::shared_ptr<const HostMeasurer> measurer)
      : measurer_(std::move(measurer)) {}

  std::vector<Measurement> evaluate(std::span<const Config> batch) override {
    std::vector<Measurement> out = measurer_->measure(batch);
    if (out.size() != batch.size()) {
      throw std::logic_error(
          fmt::format("the host measured {} of a batch of {} configs", out.size(), batch.size()));
    }
    for (Measurement& m : out) {
      if (m.ok() && m.device_name.empty()) m.device_name = measurer_->device_name;
    }
    return out;
  }
  std::string device_name() const override { return measurer_->device_name; }
  std::string toolchain() const override { return measurer_->toolchain; }

 private:
  std::shared_ptr<const HostMeasurer> measurer_;
};

// The framework's normalize as a constraint: it holds where the framework runs the config as
// given, and its repair is the framework's own.
Constraint framework_constraint(std::shared_ptr<const HostMeasurer> measurer) {
  Constraint c;
  c.name = "framework_normalize";
  c.holds = [measurer](const Config& config, const Problem&, const Device&) {
    const std::optional<Config> normalized = measurer->normalize(config);
    return normalized && *normalized == config;
  };
  c.repair = [measurer](Config& config, const Problem&, const Device&) {
    if (std::optional<Config> normalized = measurer->normalize(config)) {
      config = std::move(*normalized);
    }
  };
  return c;
}

}  // namespace

Family host_family(KernelSpec& spec, HostMeasurer measurer) {
  if (!measurer.measure) {
    throw std::invalid_argument(spec.path.string() + ": a host family needs a measure function");
  }
  Family f = families::spec_common(spec, "host");
  auto shared = std::make_shared<const HostMeasurer>(std::move(measurer));
  if (shared->normalize) spec.tuning->space.constrain(framework_constraint(shared));
  f.summary =
      fmt::format("kernel of {}, measured by the program that tunes it", spec.path.string());
  f.device = shared->device;
  f.device_key = shared->device_name;
  f.toolchain = shared->toolchain;
  f.make_evaluator = [shared](const Problem&, const std::vector<int>&) {
    return FamilyEvaluator{std::make_unique<HostEvaluator>(shared), shared->device};
  };
  return f;
}

}  // namespace cutune
