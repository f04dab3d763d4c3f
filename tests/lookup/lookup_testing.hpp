// A real store of a toy family, exported as `cutune export --json` does, for the lookup tests.
#pragma once

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <string>

#include "cutune/store.hpp"
#include "store/store_testing.hpp"

namespace cutune::testing {

inline const TuningKey kToyKey{"toy", "v1", "", "cpu: test", "c++ 12"};

inline StoredResult toy_result(const std::string& problem, int block, double time_ms,
                               const std::string& device = kToyKey.device) {
  StoredResult r;
  r.key = kToyKey;
  r.key.problem = problem;
  r.key.device = device;
  r.config_hash = fmt::format("block{}", block);
  r.config_json = fmt::format(R"({{"block": {}, "layout": "row"}})", block);
  r.measurement.outcome = Outcome::ok;
  r.measurement.time_ms = time_ms;
  return r;
}

// Per shape, block = m / 16 is fastest; every config is measured on every shape.
inline void fill_toy_store(Store& store, const std::string& device = kToyKey.device) {
  for (int m : {64, 256, 1024, 4096}) {
    for (const std::string dtype : {"f32", "f16"}) {
      const std::string problem = fmt::format("dtype={},m={},n=512", dtype, m);
      for (int block : {4, 16, 64, 256}) {
        const double off = std::abs(std::log2(static_cast<double>(block) * 16 / m));
        store.record(toy_result(problem, block, 1.0 + off + (dtype == "f16" ? 0.5 : 0), device));
      }
    }
  }
}

inline nlohmann::json exported(Store& store) {
  return nlohmann::json::parse(export_json(store.best_per_key()));
}

}  // namespace cutune::testing
