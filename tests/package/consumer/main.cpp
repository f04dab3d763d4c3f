// Uses the installed cutune: loads a spec (muparser), records a result in a store (SQLite),
// exports the winners (`cutune export --json`'s format) and looks one up with the lookup runtime.
// usage: consumer SPEC.json FOLDER
#include <cstdio>
#include <filesystem>

#include "cutune/lookup.hpp"
#include "cutune/spec.hpp"
#include "cutune/store.hpp"

int main(int argc, char** argv) {
  if (argc != 3) return 2;
  const cutune::KernelSpec spec = cutune::load_spec(argv[1]);
  cutune::Store store = cutune::Store::open(std::filesystem::path(argv[2]) / "results.db");
  cutune::StoredResult result;
  result.key = {spec.name, "v1", "k=64,m=64,n=64", "host-cpu", "c++"};
  result.config_hash = "a";
  result.config_json = R"({"BM": 16})";
  result.measurement.time_ms = 0.5;
  store.record(result);
  const auto table = cutune::LookupTable::from_json(
      nlohmann::json::parse(cutune::export_json(store.best_per_key())));
  const auto& answer = table.find(table.prepare(spec.name, "m=64,n=64,k=64"));
  std::printf("%s knobs=%zu BM=%d\n", spec.name.c_str(), spec.tuning->space.knob_count(),
              answer.config.at("BM").get<int>());
  return 0;
}
