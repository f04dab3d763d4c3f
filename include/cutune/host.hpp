// Families whose candidates the host program measures: kernels written in a framework that
// compiles and times them itself (Helion, Triton, from the Python package). cutune holds the space
// (a spec of backend "host": knobs, constraints, seeds, problem), the search, the store and the
// tournament; the host only compiles and times each batch it is handed.
//
// Throws: host_family throws std::invalid_argument for a spec of another backend or a measurer
// without `measure`. What `measure` and `normalize` throw leaves the tune through tune() (results
// already measured are in the store).
#pragma once

#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "cutune/config.hpp"
#include "cutune/family.hpp"
#include "cutune/measurement.hpp"
#include "cutune/problem.hpp"
#include "cutune/spec.hpp"

namespace cutune {

struct HostMeasurer {
  // One measurement per config, in order: a config that fails is a Measurement with its outcome
  // (compile_error, wrong_result, ...), never an exception. Called from the tune's thread, one
  // batch at a time; the host compiles a batch in parallel where its framework can.
  std::function<std::vector<Measurement>(std::span<const Config>)> measure;
  // The framework's own normalization: the config it would run for `config` (knobs it drops
  // reset, values it clamps clamped), or nullopt when it rejects the config. Empty: the spec's
  // constraints are the whole rule. Must be idempotent, as every repair is.
  std::function<std::optional<Config>(const Config&)> normalize;
  std::string device_name;  // the store key's device ("NVIDIA H200")
  std::string toolchain;    // the store key's toolchain ("helion 1.5.1 triton 3.6.0 torch 2.11.0")
  Device device;            // what the spec's expressions and seeds see
};

// The tuning family of a host spec. The framework's normalize joins the spec's constraints as the
// last one ("framework_normalize"), so that repair, deduplication and the store see the configs
// the framework runs. `spec` must outlive the family.
Family host_family(KernelSpec& spec, HostMeasurer measurer);

}  // namespace cutune
